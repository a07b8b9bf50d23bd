// Shared setup of the SDK browser tests: the in-page harness (sdk-page.ts) bundled once with
// esbuild into an IIFE, and pages of the app's origin with it injected.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import type { Harness } from './sdk-page.js';

declare global {
  // the harness in the page (page.evaluate callbacks run there)
  var h: Harness;
}

const here = path.dirname(fileURLToPath(import.meta.url));
let bundle: Promise<string> | undefined;

/** The harness as one script: the package resolved as an app resolves it (from source here). */
export function harnessBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [path.join(here, 'sdk-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@family-shopping/source'],
    write: false,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
  }).then((r) => r.outputFiles[0]!.text);
  return bundle;
}

/** A page of the app's origin (`/healthz`) with the harness loaded (`window.h`). */
export async function harnessPage(context: BrowserContext, url: string, page?: Page): Promise<Page> {
  const p = page ?? (await context.newPage());
  p.on('pageerror', (err) => console.error('page error:', err.message));
  await p.goto(`${url}/healthz`);
  await p.addScriptTag({ content: await harnessBundle() });
  return p;
}

/** Reloads the page and loads the harness again. */
export async function reloadHarness(page: Page): Promise<void> {
  await page.reload();
  await page.addScriptTag({ content: await harnessBundle() });
}

/** Polls a page-side condition until truthy (returned) or fails after `timeoutMs`. */
export async function waitInPage<T>(page: Page, fn: () => T | Promise<T>, message: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = (await page.evaluate(fn)) as T;
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${message}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
