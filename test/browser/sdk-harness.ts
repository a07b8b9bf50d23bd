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

/** The harness page: a blank document that runs the bundle. */
export async function harnessHtml(): Promise<string> {
  const script = (await harnessBundle()).replace(/<\/script/gi, '<\\/script');
  return `<!doctype html><html><head><title>SDK harness</title></head><body><script>${script}</script></body></html>`;
}

/** A page of the app's own origin (`/healthz`, a real document of the server) with the harness
 *  injected (`window.h`). */
export async function harnessPage(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(`${url}/healthz`);
  await page.addScriptTag({ content: await harnessBundle() });
  return page;
}

/** A page at `${switchUrl}/sdk-harness` (see sdk-switch.ts), which loads even while cut. */
export async function switchedPage(context: BrowserContext, switchUrl: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(`${switchUrl}/sdk-harness`);
  await page.waitForFunction(() => typeof (globalThis as { h?: unknown }).h === 'object');
  return page;
}

/** Reloads a harness page (injecting the harness again where the document lacks it). */
export async function reloadHarness(page: Page): Promise<void> {
  await page.reload();
  if (!(await page.evaluate(() => typeof (globalThis as { h?: unknown }).h === 'object'))) {
    await page.addScriptTag({ content: await harnessBundle() });
  }
}

/** Polls a page-side condition until truthy (returned) or fails after `timeoutMs`. */
export async function waitInPage<T, A = undefined>(
  page: Page,
  fn: (arg: A) => T | Promise<T>,
  arg: A,
  message: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = (await page.evaluate(fn as never, arg as never)) as T;
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${message}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
