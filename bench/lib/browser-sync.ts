// What bench/browser-initial-sync.ts and its profile (browser-sync-profile.ts) share: the
// page's scripts, the family's items as the SDK pulls them, the peer server's copy of them, a
// fresh Chromium per attempt and the SDK's part in the page.
import { build, type BuildOptions } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { PULL_LIMIT_MAX, pullUrl, type Checkpoint } from '@family-shopping/client/protocol';
import { BENCH_DIR } from './common.js';
import { PEERS_DIR } from './peers.js';
import type { BenchFamily } from './service.js';
import type { BrowserSyncPage } from './browser-sync-page.js';
import { launchPersistentContext } from '../../test/helpers/browser.js';

declare global {
  // the page's part (browser-sync-page.ts)
  var bench: BrowserSyncPage;
}

/** The page's script and PouchDB's (from bench/peers), each one IIFE. */
export async function bundles(): Promise<{ page: string; pouch: string }> {
  const common: BuildOptions & { write: false } = {
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@family-shopping/source'],
    write: false,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
  };
  const [page, pouch] = await Promise.all([
    build({ ...common, entryPoints: [path.join(BENCH_DIR, 'lib', 'browser-sync-page.ts')] }),
    build({
      ...common,
      stdin: {
        contents: "import PouchDB from 'pouchdb-browser'; globalThis.PouchDB = PouchDB;",
        resolveDir: PEERS_DIR,
        loader: 'js',
      },
    }),
  ]);
  return { page: page.outputFiles[0]!.text, pouch: pouch.outputFiles[0]!.text };
}

/** The family's items as the SDK pulls them (every page of the service's pull walk). */
export async function pulledItems(baseUrl: string, family: BenchFamily): Promise<Record<string, unknown>[]> {
  const docs: Record<string, unknown>[] = [];
  let checkpoint: Checkpoint | null = null;
  for (;;) {
    const res = await fetch(baseUrl + pullUrl('items', checkpoint, PULL_LIMIT_MAX), {
      headers: { accept: 'application/json', authorization: `Bearer ${family.session.accessToken}` },
    });
    if (res.status !== 200) throw new Error(`pull: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { documents: Record<string, unknown>[]; checkpoint: Checkpoint | null };
    docs.push(...body.documents);
    if (body.documents.length < PULL_LIMIT_MAX) return docs;
    checkpoint = body.checkpoint;
  }
}

/** The same docs into the peer server's database `items`, through its CouchDB API. */
export async function seedPouch(url: string, docs: Record<string, unknown>[]): Promise<void> {
  const put = await fetch(`${url}/items`, { method: 'PUT' });
  if (put.status !== 201) throw new Error(`PUT /items: ${put.status}`);
  for (let i = 0; i < docs.length; i += 1000) {
    const res = await fetch(`${url}/items/_bulk_docs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ docs: docs.slice(i, i + 1000).map((d) => ({ _id: d.id, ...d })) }),
    });
    if (res.status !== 201) throw new Error(`_bulk_docs: ${res.status}`);
  }
  const info = (await (await fetch(`${url}/items`)).json()) as { doc_count: number };
  if (info.doc_count !== docs.length)
    throw new Error(`PouchDB server holds ${info.doc_count} docs, not ${docs.length}`);
}

/** The SDK's part in the page (a string: a compiled function would carry the TypeScript
 *  loader's helpers into the page). */
export const SDK_IN_PAGE = `async ({ session, expect }) => {
  await h.open({ session });
  const c = h.c;
  const t0 = performance.now();
  await c.start();
  await c.awaitInSync();
  let count = await c.db.items.count().exec();
  while (count < expect) {
    await new Promise((r) => setTimeout(r, 5));
    count = await c.db.items.count().exec();
  }
  const ms = performance.now() - t0;
  await c.stop();
  return { ms, count };
}`;

/** A fresh Chromium with a fresh profile on disk, closed (and its profile removed) after `fn`. */
export async function inFreshBrowser<T>(fn: (context: BrowserContext) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-chromium-'));
  const context = await launchPersistentContext(dir);
  try {
    return await fn(context);
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function pageAt(context: BrowserContext, url: string, ...scripts: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(url);
  for (const content of scripts) await page.addScriptTag({ content });
  return page;
}
