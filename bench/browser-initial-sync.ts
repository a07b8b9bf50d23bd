// Real-browser initial sync (issue 23, item 4): the time until 10,000 items of one family are in
// IndexedDB in Chromium (Debian's, through playwright-core), three ways in the same run, each
// attempt in a fresh browser with a fresh profile on disk (its IndexedDB on disk, as a user's):
// - the SDK (RxDB, Dexie storage: what the web app uses) syncing from the service (seeded
//   beforehand): the page opens a client with the member's session (database and collections
//   created), then the clock runs from `start()` until `awaitInSync()` and the items collection
//   holds every item;
// - the floor: RxDB + its Dexie storage in the page, the items collection with the SDK's schema,
//   the same 10,000 docs (the service's own pull pages, fetched before) in one `bulkInsert`:
//   no network, no replication; clock from `bulkInsert` to its end;
// - PouchDB 9 in the page (`pouchdb-browser`: IndexedDB adapter, HTTP, replication) replicating
//   the same docs (`_id` = the item's id) from express-pouchdb (memory adapter, its own process)
//   with batch_size 100 (its default), 500, 1,000 and 2,000; the ratio takes the round's best.
// Rounds interleave every attempt (the order reversed every other round) after one warm-up each.
//
//   npm run bench -- browser-initial-sync     (BENCH_ITEMS=…, BENCH_ROUNDS=… pick the sizes)
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { PULL_LIMIT_MAX, pullUrl, type Checkpoint } from '@family-shopping/client/protocol';
import { BENCH_DIR, backend, backendName, machine, pick, today, SMOKE } from './lib/common.js';
import { ensurePeers, PEERS_DIR } from './lib/peers.js';
import { forkRemote } from './lib/rpc.js';
import { writeResult } from './lib/report.js';
import { Service, type BenchFamily } from './lib/service.js';
import { fmtSpread, num, ratioSpread, spread } from './lib/stats.js';
import type { BrowserSyncPage, Timed } from './lib/browser-sync-page.js';
import { launchPersistentContext } from '../test/helpers/browser.js';
import { harnessPage } from '../test/browser/sdk-harness.js';

declare global {
  // the page's part (browser-sync-page.ts)
  var bench: BrowserSyncPage;
}

const N = Number(process.env.BENCH_ITEMS ?? pick(10_000, 500));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? pick(5, 1));
const BATCHES = [100, 500, 1000, 2000];
const SYSTEMS = ['sdk', 'floor', ...BATCHES.map((b) => `pouch${b}` as const)] as const;
type System = (typeof SYSTEMS)[number];

/** The page's script and PouchDB's (from bench/peers), each one IIFE. */
async function bundles(): Promise<{ page: string; pouch: string }> {
  const common = {
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@family-shopping/source'],
    write: false,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
  } as const;
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
async function pulledItems(baseUrl: string, family: BenchFamily): Promise<Record<string, unknown>[]> {
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
async function seedPouch(url: string, docs: Record<string, unknown>[]): Promise<void> {
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
const SDK_IN_PAGE = `async ({ session, expect }) => {
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
async function inFreshBrowser<T>(fn: (context: BrowserContext) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-chromium-'));
  const context = await launchPersistentContext(dir);
  try {
    return await fn(context);
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pageAt(context: BrowserContext, url: string, ...scripts: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(url);
  for (const content of scripts) await page.addScriptTag({ content });
  return page;
}

async function main() {
  ensurePeers();
  const scripts = await bundles();
  const service = await Service.start();
  const pouchServer = await forkRemote(
    'pouchdb-server',
    path.join(BENCH_DIR, 'lib', 'pouch-server-child.ts'),
    process.env,
  );
  const results = Object.fromEntries(SYSTEMS.map((s) => [s, [] as number[]])) as Record<System, number[]>;
  try {
    const family = await service.family();
    const list = await service.rest(family, 'POST', '/api/lists', { name: 'Initial sync' });
    await service.seedItems(family, list.id, N);
    const docs = (await pulledItems(service.url, family)).map(({ _deleted, ...d }) => d);
    if (docs.length !== N) throw new Error(`the service pulled ${docs.length} items, not ${N}`);
    const { url: pouchUrl } = await pouchServer.call<{ url: string }>('start');
    await seedPouch(pouchUrl, docs);

    const attempt = (system: System): Promise<Timed> =>
      inFreshBrowser(async (context) => {
        if (system === 'sdk') {
          const page = await harnessPage(context, service.url);
          const run = await page.evaluateHandle(`(${SDK_IN_PAGE})`);
          return (await run.evaluate((fn: any, arg) => fn(arg), { session: family.session, expect: N })) as Timed;
        }
        if (system === 'floor') {
          const page = await pageAt(context, `${service.url}/healthz`, scripts.page);
          return page.evaluate((d) => bench.floor(d), docs);
        }
        // The page on the peer server's origin: PouchDB's requests are its own, no CORS.
        const page = await pageAt(context, `${pouchUrl}/`, scripts.pouch, scripts.page);
        const batch = Number(system.slice('pouch'.length));
        return page.evaluate(([u, b]) => bench.pouch(u, b), [`${pouchUrl}/items`, batch] as const);
      }).then((r) => {
        if (r.count !== N) throw new Error(`${system}: ${r.count} of ${N} items in IndexedDB`);
        return r;
      });

    for (const s of ['sdk', 'floor', 'pouch1000'] as const) await attempt(s); // warm-up, not counted
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...SYSTEMS].reverse() : [...SYSTEMS];
      for (const s of order) results[s].push((await attempt(s)).ms);
      console.error(
        `round ${round + 1}: ${SYSTEMS.map((s) => `${s} ${Math.round(results[s][round]!)} ms`).join(', ')}`,
      );
    }
    await service.dropFamily(family);
  } finally {
    await pouchServer.call('close').catch(() => undefined);
    await pouchServer.close();
    await service.close();
  }

  const pouchKeys = BATCHES.map((b) => `pouch${b}` as System);
  const best = results.sdk.map((_, i) => Math.min(...pouchKeys.map((k) => results[k][i]!)));
  const bestBatch = results.sdk.map((_, i) => BATCHES[pouchKeys.findIndex((k) => results[k][i] === best[i])]!);
  const secs = (ms: number[]) => fmtSpread(spread(ms.map((x) => x / 1000)));
  const overFloor = ratioSpread(results.sdk, results.floor);
  const pouchOver = ratioSpread(best, results.sdk);
  const verdict = (s: { min: number; max: number; median: number }, ok: (x: number) => boolean) =>
    ok(s.median) ? (ok(s.min) && ok(s.max) ? 'met in every round' : 'met in the median') : 'missed';
  const md = `### Initial sync into IndexedDB in Chromium (${today()})

${N.toLocaleString('en-US')} items of one family; Debian Chromium ${'(headless)'}, a fresh browser and profile on disk per attempt;
${backendName()} behind the SDK, express-pouchdb (memory adapter) behind PouchDB; ${machine()};
median (min–max) of ${ROUNDS} interleaved rounds after one warm-up of each${SMOKE ? ' (smoke)' : ''}, seconds.

| system | seconds | SDK / this | this / SDK |
|---|---:|---:|---:|
| SDK (RxDB, Dexie storage), \`start()\` until in sync with every item | ${secs(results.sdk)} | 1 | 1 |
| floor: RxDB + Dexie, one \`bulkInsert\` of the same docs, no network | ${secs(results.floor)} | ${fmtSpread(overFloor)}× | — |
${BATCHES.map(
  (b) =>
    `| PouchDB 9 (IndexedDB adapter) ← express-pouchdb, batch_size ${b.toLocaleString('en-US')}${b === 100 ? ' (default)' : ''} | ${secs(results[`pouch${b}` as System])} | — | ${fmtSpread(ratioSpread(results[`pouch${b}` as System], results.sdk))}× |`,
).join('\n')}
| PouchDB, the round's best batch_size (${[...new Set(bestBatch)].map((b) => b.toLocaleString('en-US')).join(', ')}) | ${secs(best)} | — | ${fmtSpread(pouchOver)}× |

Goals: PouchDB's best / SDK ≥ 2: ${fmtSpread(pouchOver)}×, ${verdict(pouchOver, (x) => x >= 2)}; SDK / floor ≤ 1.3: ${fmtSpread(overFloor)}×, ${verdict(overFloor, (x) => x <= 1.3)}.
`;
  writeResult(`browser-initial-sync.${backend()}`, md, { n: N, results, best, bestBatch });
  console.log(`(${num(N, 0)} items; best batch per round: ${bestBatch.join(', ')})`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
