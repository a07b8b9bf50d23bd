// Long lists (issue 23): how long the list page takes to open with 2,000 items against 200, in
// the same run. Chromium (Debian's, through playwright-core) at phone size (360×640), the app as
// built in web/dist served by the service, one signed-in device that has synced both lists.
// Each round is an in-app navigation: a tap on the list's card on the lists page, timed in the
// page from the click until the first item checkbox of the list is in the page (a
// MutationObserver) and the frame after that is painted (requestAnimationFrame, then a task):
// the list open; and until every item checkbox is in the page and that frame painted; then back to
// the lists page (history.back(), in-app too). Also recorded: when the first item checkbox
// appeared, and how many elements the page holds with the list open. One warm-up round is
// left out; the two sizes alternate which goes first.
// When web/dist is absent (the app not built) it says so and measures nothing.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT, backend, machine, pick, today, SMOKE } from './lib/common.js';
import { writeResult } from './lib/report.js';
import { Service } from './lib/service.js';
import { seedList } from './lib/seed.js';
import { fmtSpread, ratioSpread, spread } from './lib/stats.js';
import { launchBrowser, phoneContext } from '../test/helpers/browser.js';
import { DEFAULT_PASSWORD } from '../test/helpers/factories.js';

const DIST = path.join(ROOT, 'web', 'dist');
const SMALL = 200;
const LARGE = pick(2000, 600);
const ROUNDS = pick(9, 2);

interface Open {
  /** ms from the click: the first item checkbox, every item checkbox, the frame after painted. */
  first: number;
  firstPainted: number;
  all: number;
  painted: number;
  /** Elements in the document with the list open. */
  elements: number;
}

/** Taps the card of `listId` on the lists page and times the list page's opening in the page.
 *  A string: a compiled function would carry the TypeScript loader's helpers into the page. */
const openScript = (listId: string, n: number) => `
  new Promise((resolve, reject) => {
    const boxes = () => document.querySelectorAll('input[type=checkbox][aria-label^="Item "], [role=checkbox][aria-label^="Item "]').length;
    const card = document.querySelector('a[href="/lists/${listId}"]');
    if (!card) return reject(new Error('no card for the list on the lists page'));
    let first;
    const timer = setTimeout(() => reject(new Error('only ' + boxes() + ' of ${n} checkboxes after 60 s')), 60000);
    let firstPainted;
    const afterPaint = (fn) => requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = fn;
      ch.port2.postMessage(null);
    });
    const obs = new MutationObserver(() => {
      const c = boxes();
      if (c > 0 && first === undefined) {
        first = performance.now() - t0;
        afterPaint(() => (firstPainted = performance.now() - t0));
      }
      if (c >= ${n}) {
        obs.disconnect();
        const all = performance.now() - t0;
        afterPaint(() => {
          clearTimeout(timer);
          const painted = performance.now() - t0;
          resolve({ first, firstPainted: firstPainted ?? painted, all, painted, elements: document.getElementsByTagName('*').length });
        });
      }
    });
    obs.observe(document, { childList: true, subtree: true });
    const t0 = performance.now();
    card.click();
  })`;

async function backToLists(page: Page, ids: string[]): Promise<void> {
  await page.evaluate(() => history.back());
  await page.waitForURL((u) => u.pathname === '/');
  for (const id of ids) await page.locator(`a[href="/lists/${id}"]`).waitFor();
  await page.waitForTimeout(300); // the lists page settles
}

async function measure(): Promise<{ small: Open[]; large: Open[] } | string> {
  const service = await Service.start();
  const browser = await launchBrowser();
  try {
    const home = await fetch(service.url + '/');
    if (!(home.headers.get('content-type') ?? '').includes('text/html'))
      return 'the service does not serve the app at / in this tree';
    const family = await service.family();
    const small = await seedList(service, family, SMALL);
    const large = await seedList(service, family, LARGE);
    const ctx = await phoneContext(browser);
    const page = await ctx.newPage();
    await page.goto(`${service.url}/login`);
    await page.getByRole('textbox', { name: 'Email' }).fill(family.session.user.email);
    await page.getByLabel('Password', { exact: true }).fill(DEFAULT_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/', { timeout: 30_000 });
    // Synced: both cards show their full item count.
    for (const n of [SMALL, LARGE])
      await page.getByText(new RegExp(`of ${n.toLocaleString('en-US')}\\b|of ${n}\\b`)).waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1_000);
    const ids = [small.listId, large.listId];
    const out = { small: [] as Open[], large: [] as Open[] };
    for (let round = 0; round <= ROUNDS; round++) {
      const order = round % 2 ? (['large', 'small'] as const) : (['small', 'large'] as const);
      for (const which of order) {
        const [id, n] = which === 'small' ? [small.listId, SMALL] : [large.listId, LARGE];
        const r = (await page.evaluate(openScript(id, n))) as Open;
        if (round > 0) out[which].push(r);
        await page.waitForTimeout(300);
        await backToLists(page, ids);
      }
    }
    await ctx.close();
    return out;
  } finally {
    await browser.close();
    await service.close();
  }
}

async function main() {
  if (!existsSync(DIST)) {
    console.log('web/dist is absent (build the web app first): nothing measured');
    return;
  }
  const r = await measure();
  const lines = [`Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: web/dist as built, ${machine()}.`, ''];
  if (typeof r === 'string') lines.push(`Not measured: ${r}.`);
  else {
    const col = (xs: Open[], k: keyof Open, d = 0) => fmtSpread(spread(xs.map((x) => x[k])), d);
    const ratio = (k: keyof Open) =>
      fmtSpread(
        ratioSpread(
          r.large.map((x) => x[k]),
          r.small.map((x) => x[k]),
        ),
        1,
      );
    lines.push(
      `Opening a list from the lists page (in-app navigation), Chromium at 360×640, ${ROUNDS} rounds after a warm-up, ms from the tap, median (min–max):`,
      '',
      `| measure | ${SMALL} items | ${LARGE.toLocaleString('en-US')} items | ${LARGE.toLocaleString('en-US')} / ${SMALL} |`,
      '|---|---:|---:|---:|',
      `| first item checkbox in the page | ${col(r.small, 'first')} | ${col(r.large, 'first')} | ${ratio('first')} |`,
      `| **that frame painted: the list open** | ${col(r.small, 'firstPainted')} | ${col(r.large, 'firstPainted')} | **${ratio('firstPainted')}** |`,
      `| every item checkbox in the page | ${col(r.small, 'all')} | ${col(r.large, 'all')} | ${ratio('all')} |`,
      `| that frame painted | ${col(r.small, 'painted')} | ${col(r.large, 'painted')} | ${ratio('painted')} |`,
      `| elements in the page | ${col(r.small, 'elements')} | ${col(r.large, 'elements')} | ${ratio('elements')} |`,
    );
  }
  writeResult(`long-list.${backend()}`, lines.join('\n'), r);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
