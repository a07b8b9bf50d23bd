// The web app (issue 11):
// 1. its JavaScript and CSS as built in web/dist, raw and gzipped (level 9), per file kind (the
//    scripts: the entry every page loads, the signed-in shell's chunks, the other languages);
// 2. time to interactive of the list page with 200 items, in Chromium (Debian's, through
//    playwright-core) at phone size, served by the service: from navigation start until the
//    list's item checkboxes are in the page, on a cold load (a fresh browser context holding only
//    the signed-in session: no HTTP cache, no service worker, an empty local database, so the
//    SDK syncs first) and on a warm one (the same context reloaded offline: the app shell from the
//    service worker, the data from IndexedDB). Baseline in the same run: the same page as static
//    HTML (the app's own rendered DOM with its CSS inlined and its scripts removed) from a bare
//    Koa app. Rounds alternate.
// When web/dist is absent (the app not built) it says so and measures nothing; when the service
// does not serve the app at `/`, only the sizes are measured.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { BENCH_DIR, ROOT, backend, machine, pick, today, SMOKE } from './lib/common.js';
import { writeResult } from './lib/report.js';
import { Service } from './lib/service.js';
import { seedList } from './lib/seed.js';
import { forkRemote } from './lib/rpc.js';
import { fmtSpread, ratioSpread, spread } from './lib/stats.js';
import { launchBrowser, phoneContext } from '../test/helpers/browser.js';
import { DEFAULT_PASSWORD } from '../test/helpers/factories.js';

const DIST = path.join(ROOT, 'web', 'dist');
const ITEMS = 200;
const ROUNDS = pick(3, 2);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

function sizes() {
  const kinds: Record<string, { raw: number; gz: number; count: number }> = {};
  // The entry and what it preloads (index.html) is what every page loads first; the rest of the
  // app's scripts are the signed-in shell's chunks (docs/web.md "Size") and the languages.
  const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const first = new Set([...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!));
  for (const f of files(DIST)) {
    const ext = path.extname(f).slice(1);
    if (!['js', 'mjs', 'css', 'html', 'webmanifest'].includes(ext)) continue;
    const base = path.basename(f);
    const rel = path.relative(DIST, f).split(path.sep).join('/');
    const kind =
      ext === 'css' || ext === 'html' || ext === 'webmanifest'
        ? ext
        : path.dirname(f) === DIST && /^(sw|workbox-)/.test(base)
          ? 'js (service worker)'
          : first.has(rel)
            ? 'js (entry: every page, the public ones alone)'
            : /^locale-/.test(base)
              ? 'js (other languages, each its users only)'
              : 'js (signed-in shell, after sign-in)';
    const buf = readFileSync(f);
    const k = (kinds[kind] ??= { raw: 0, gz: 0, count: 0 });
    k.raw += buf.byteLength;
    k.gz += gzipSync(buf, { level: 9 }).byteLength;
    k.count++;
  }
  return kinds;
}

/** Records in the page when `threshold` checkboxes first exist (performance.now(), ms since
 *  navigation start), from a MutationObserver installed before any script runs. A string: a
 *  compiled function would carry the TypeScript loader's helpers into the page. */
const probe = (threshold: number) => `
  (() => {
    const obs = new MutationObserver(() => {
      if (window.__tti === undefined && document.querySelectorAll('input[type=checkbox], [role=checkbox]').length >= ${threshold}) {
        window.__tti = performance.now();
        obs.disconnect();
      }
    });
    obs.observe(document, { childList: true, subtree: true });
  })();`;

async function ttiOf(page: Page, url: string, threshold: number, reload = false): Promise<number> {
  await page.addInitScript(probe(threshold));
  if (reload) await page.reload({ waitUntil: 'commit' });
  else await page.goto(url, { waitUntil: 'commit' });
  try {
    const h = await page.waitForFunction(() => (window as unknown as { __tti?: number }).__tti, undefined, {
      timeout: 60_000,
      polling: 50,
    });
    return (await h.jsonValue()) as number;
  } catch (err) {
    const shown = await page
      .locator('input[type=checkbox], [role=checkbox]')
      .count()
      .catch(() => -1);
    const file = path.join(BENCH_DIR, 'results', 'web-app-timeout.png');
    await page.screenshot({ path: file }).catch(() => undefined);
    throw new Error(`${url}: ${shown} of ${threshold} checkboxes after 60 s (screenshot: ${file})`, { cause: err });
  }
}

async function timeToInteractive(): Promise<
  { cold: number[]; warm: number[]; bare: number[]; boxes: number } | string
> {
  const service = await Service.start();
  const bare = await forkRemote('bare-koa', path.join(BENCH_DIR, 'lib', 'bare-child.ts'), process.env);
  const browser = await launchBrowser();
  try {
    const home = await fetch(service.url + '/');
    if (!(home.headers.get('content-type') ?? '').includes('text/html'))
      return 'the service does not serve the app at / in this tree';
    const { url: bareUrl } = await bare.call<{ url: string }>('start');
    const family = await service.family();
    const { listId } = await seedList(service, family, ITEMS);
    const listUrl = `${service.url}/lists/${listId}`;

    // Sign in once through the login page: its storage (the session) seeds every cold context.
    const first = await phoneContext(browser);
    const page = await first.newPage();
    await page.goto(`${service.url}/login`);
    await page.getByRole('textbox', { name: 'Email' }).fill(family.session.user.email);
    await page.getByLabel('Password', { exact: true }).fill(DEFAULT_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: 30_000 });
    const state = await first.storageState();
    // The list page as rendered: how many checkboxes it shows, and its static copy.
    await page.goto(listUrl);
    const boxes = page.locator('input[type=checkbox], [role=checkbox]');
    let count = -1;
    for (let stable = 0; stable < 4;) {
      await page.waitForTimeout(250);
      const c = await boxes.count();
      stable = c === count && c > 0 ? stable + 1 : 0;
      count = c;
    }
    const html = await page.evaluate(() => {
      const css = [...document.styleSheets].map((s) => [...s.cssRules].map((r) => r.cssText).join('\n')).join('\n');
      const root = document.documentElement.cloneNode(true) as HTMLElement;
      root.querySelectorAll('script, link, style').forEach((e) => e.remove());
      const style = document.createElement('style');
      style.textContent = css;
      root.querySelector('head')!.append(style);
      return `<!doctype html>${root.outerHTML}`;
    });
    await bare.call('body', { path: '/list', body: html });
    await first.close();

    const cold: number[] = [];
    const warm: number[] = [];
    const base: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ctx = await phoneContext(browser, { storageState: state });
      const p = await ctx.newPage();
      cold.push(await ttiOf(p, listUrl, count));
      await p.evaluate(async () => {
        await navigator.serviceWorker?.ready;
      });
      await p.waitForTimeout(500); // the local database settles
      await ctx.setOffline(true);
      warm.push(await ttiOf(p, listUrl, count, true));
      await ctx.close();
      const bctx = await phoneContext(browser);
      base.push(await ttiOf(await bctx.newPage(), `${bareUrl}/list`, count));
      await bctx.close();
    }
    return { cold, warm, bare: base, boxes: count };
  } finally {
    await browser.close();
    await bare.call('close').catch(() => undefined);
    await bare.close();
    await service.close();
  }
}

async function main() {
  if (!existsSync(DIST)) {
    console.log('web/dist is absent (build the web app first): nothing measured');
    return;
  }
  const kinds = sizes();
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const tti = await timeToInteractive();
  const lines = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: web/dist as built, ${machine()}.`,
    '',
    '| files | count | size | gzipped |',
    '|---|---:|---:|---:|',
    ...Object.entries(kinds)
      .sort()
      .map(([kind, k]) => `| ${kind} | ${k.count} | ${kib(k.raw)} | ${kib(k.gz)} |`),
    '',
  ];
  if (typeof tti === 'string') lines.push(`Time to interactive not measured: ${tti}.`);
  else {
    lines.push(
      `Time to interactive of the list page with ${ITEMS} items (${tti.boxes} item checkboxes shown), Chromium at 360×640, ${ROUNDS} rounds, ms from navigation start, median (min–max):`,
      '',
      '| load | app ms | static copy ms (bare Koa) | app / static |',
      '|---|---:|---:|---:|',
      `| cold (no cache, no service worker, empty local database) | ${fmtSpread(spread(tti.cold), 0)} | ${fmtSpread(spread(tti.bare), 0)} | ${fmtSpread(ratioSpread(tti.cold, tti.bare), 1)} |`,
      `| warm, offline (service worker, IndexedDB) | ${fmtSpread(spread(tti.warm), 0)} | ${fmtSpread(spread(tti.bare), 0)} | ${fmtSpread(ratioSpread(tti.warm, tti.bare), 1)} |`,
    );
  }
  writeResult(`web-app.${backend()}`, lines.join('\n'), { kinds, tti });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
