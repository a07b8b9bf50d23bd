// A new phone: usable first, complete later (issue 23, item 3). In Chromium (Debian's, through
// playwright-core) on IndexedDB (the SDK's default storage in a browser), a fresh browser
// context opens the SDK with a member's session and starts it; timed from before the client is
// created until the lists page and the list are usable: `lists.summaries$()` counts the list's
// ACTIVE items and `lists.detail$(list)` shows all of them. Two families in the same run, on one
// list each: ACTIVE active items only, and the same after HISTORY removed items (pushed first,
// as history is older than what is on the list now). Also: how long a local edit made at that
// moment takes (an active item's note changed, while the history still streams in), and the
// time until every item is in (complete).
//
// "before" is the walk every first sync took before the phases: the first items pull is sent
// from the plain checkpoint {version: 0, id: ""} instead of none (the page's own requests,
// rewritten by the browser context's router; every later page follows from the checkpoints the
// server returns), so the items come in commit order through the statement and pages of
// before. "after" goes through the same router unchanged. Rounds interleave the four attempts.
//
//   npm run bench -- first-sync        (BENCH_HISTORY=…, BENCH_ACTIVE=…, BENCH_ROUNDS=… pick the sizes)
import type { Browser, BrowserContext } from 'playwright-core';
import { newDoc } from '@family-shopping/client';
import { PUSH_MAX_ROWS, SCHEMA_VERSION } from '@family-shopping/client/protocol';
import { backend, backendName, machine, pick, today, SMOKE } from './lib/common.js';
import { writeResult } from './lib/report.js';
import { Service, type BenchFamily } from './lib/service.js';
import { fmtSpread, ratioSpread, spread, num } from './lib/stats.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { harnessPage } from '../test/browser/sdk-harness.js';

const ACTIVE = Number(process.env.BENCH_ACTIVE ?? pick(500, 50));
const HISTORY = Number(process.env.BENCH_HISTORY ?? pick(20_000, 500));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? pick(5, 1));
const ALL_MODES = ['before', 'after'] as const;
type Mode = (typeof ALL_MODES)[number];
/** BENCH_MODES=after: only the walk in phases (the before walk takes minutes a round). */
const MODES = ALL_MODES.filter((m) => (process.env.BENCH_MODES ?? 'before,after').split(',').includes(m));

interface Attempt {
  usable: number;
  edit: number;
  complete: number;
  /** When the first items page had arrived (its response's end, ms since open). */
  firstPage: number;
  /** How many times each view emitted until complete. */
  emissions: { lists: number; detail: number };
}

/** A family with one list: `removed` items pushed removed first, then `active` ones. */
async function seedFamily(service: Service, active: number, removed: number) {
  const family = await service.family();
  const list = await service.rest(family, 'POST', '/api/lists', { name: 'Weekly' });
  const removedAt = new Date(Date.now() - 86_400_000).toISOString();
  const pushItems = async (n: number, over: Record<string, unknown>) => {
    for (let i = 0; i < n; i += PUSH_MAX_ROWS) {
      const rows = Array.from({ length: Math.min(PUSH_MAX_ROWS, n - i) }, (_, k) => ({
        newDocumentState: { ...newDoc('items', { listId: list.id, name: `Item ${i + k}` }), ...over, _deleted: false },
      }));
      const body = await service.rest(family, 'POST', `/api/sync/items/push?schema=${SCHEMA_VERSION}`, rows);
      if (body.rejected.length > 0) throw new Error(`seed: ${JSON.stringify(body.rejected[0])}`);
    }
  };
  await pushItems(removed, { removedAt });
  await pushItems(active, {});
  return { family, listId: list.id as string, total: active + removed };
}

/** The page's part: open, start, wait until usable, edit, wait until complete (ms since open). A
 *  string: a compiled function would carry the TypeScript loader's helpers into the page. */
const RUN_IN_PAGE = `async ({ session, listId, active, total }) => {
  const t0 = performance.now();
  await h.open({ session });
  const c = h.c;
  const subs = [];
  const emissions = { lists: 0, detail: 0 };
  const usable = new Promise((resolve) => {
    let lists = false, detail = false;
    const check = () => { if (lists && detail) resolve(performance.now() - t0); };
    subs.push(c.lists.summaries$().subscribe((ls) => {
      emissions.lists++;
      const l = ls.find((x) => x.id === listId);
      if (!lists && l && l.itemCount === active) { lists = true; check(); }
    }));
    subs.push(c.lists.detail$(listId).subscribe((d) => {
      emissions.detail++;
      if (!detail && d && d.groups.reduce((n, g) => n + g.items.length, 0) === active) { detail = true; check(); }
    }));
  });
  await c.start();
  const ready = await usable;
  const pulls = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/sync/items/pull'));
  const firstPage = Math.min(...pulls.map((e) => e.responseEnd)) - t0;
  const e0 = performance.now();
  const doc = await c.db.items.findOne({ selector: { listId, removedAt: null } }).exec();
  await doc.incrementalPatch({ quantityNote: 'edited at ' + Date.now() });
  const edit = performance.now() - e0;
  while ((await c.db.items.count().exec()) < total) await new Promise((r) => setTimeout(r, 50));
  const complete = performance.now() - t0;
  for (const s of subs) s.unsubscribe();
  await c.stop();
  return { usable: ready, edit, complete, firstPage, emissions };
}`;

async function attempt(
  browser: Browser,
  service: Service,
  mode: Mode,
  f: { family: BenchFamily; listId: string; total: number },
): Promise<Attempt> {
  const context: BrowserContext = await browser.newContext();
  try {
    await context.route('**/api/sync/items/pull?*', async (route) => {
      const url = new URL(route.request().url());
      if (mode === 'before' && !url.searchParams.has('checkpoint'))
        url.searchParams.set('checkpoint', JSON.stringify({ version: 0, id: '' }));
      await route.continue({ url: url.toString() });
    });
    const page = await harnessPage(context, service.url);
    const run = await page.evaluateHandle(`(${RUN_IN_PAGE})`);
    return (await run.evaluate((fn: any, arg) => fn(arg), {
      session: f.family.session,
      listId: f.listId,
      active: ACTIVE,
      total: f.total,
    })) as Attempt;
  } finally {
    await context.close();
  }
}

async function main() {
  const service = await Service.start();
  const browser = await launchBrowser();
  const families = {
    active: await seedFamily(service, ACTIVE, 0),
    history: await seedFamily(service, ACTIVE, HISTORY),
  };
  type Key = `${Mode}.${keyof typeof families}`;
  const results: Record<Key, Attempt[]> = {
    'before.active': [],
    'before.history': [],
    'after.active': [],
    'after.history': [],
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which mode goes first, so neither always runs on the warmer machine.
      const modes = round % 2 ? [...MODES].reverse() : [...MODES];
      for (const mode of modes) {
        for (const which of ['active', 'history'] as const) {
          const a = await attempt(browser, service, mode, families[which]);
          results[`${mode}.${which}`].push(a);
          console.log(
            `round ${round + 1} ${mode} ${which}: first items page in ${num(a.firstPage, 0)} ms, usable ${num(a.usable, 0)} ms, edit ${num(a.edit, 0)} ms, complete ${num(a.complete, 0)} ms; views emitted ${a.emissions.lists} + ${a.emissions.detail} times`,
          );
        }
      }
    }
  } finally {
    await browser.close();
    await service.close();
  }

  const s = (k: Key, f: 'usable' | 'edit' | 'complete' | 'firstPage') => spread(results[k].map((a) => a[f] / 1000));
  const ratio = (mode: Mode) =>
    ratioSpread(
      results[`${mode}.history`].map((a) => a.usable),
      results[`${mode}.active`].map((a) => a.usable),
    );
  const ms = (k: Key) => fmtSpread(spread(results[k].map((a) => a.edit)), 0);
  const md = `### First sync of a new phone: usable first (${today()})

${ACTIVE.toLocaleString('en-US')} active items on a list, alone and after ${HISTORY.toLocaleString('en-US')} removed ones;
the SDK in Chromium on IndexedDB, a fresh browser context per attempt; ${backendName()}; ${machine()};
median (min–max) of ${ROUNDS} interleaved rounds${SMOKE ? ' (smoke)' : ''}. Usable: \`lists.summaries$()\` and
\`lists.detail$(list)\` show all the active items; edit: a local change of an item made then;
complete: every item in the local database.

| walk | first items page in, active only / with history (s) | usable, active only (s) | usable, with history (s) | ratio | edit then (ms) | complete, with history (s) |
|---|---|---|---|---|---|---|
${MODES.map(
  (m) =>
    `| ${m === 'before' ? 'before (commit order)' : 'after (active, history, then newer)'} | ${fmtSpread(s(`${m}.active`, 'firstPage'))} / ${fmtSpread(s(`${m}.history`, 'firstPage'))} | ${fmtSpread(s(`${m}.active`, 'usable'))} | ${fmtSpread(s(`${m}.history`, 'usable'))} | ${fmtSpread(ratio(m))}× | ${ms(`${m}.history`)} | ${fmtSpread(s(`${m}.history`, 'complete'))} |`,
).join('\n')}
`;
  writeResult(`first-sync.${backend()}`, md, results);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
