// Where an initial sync's time goes in Chromium (bench/browser-initial-sync.ts): one attempt of
// the SDK (or of RxDB's replication alone, or the bulk insert) on a fresh browser and profile,
// with the page's CPU profile (Chrome DevTools Protocol, written as a .cpuprofile that
// cpu-profile.ts reads), every request (sent, answered), every IndexedDB read-write transaction
// (begun, completed, its stores) on one clock from the start, and the IndexedDB requests (get,
// put, …) per database.
//
//   npx tsx --conditions=@family-shopping/source bench/lib/browser-sync-profile.ts [sdk|replication|floor] [out.cpuprofile]
//   (BENCH_ITEMS=… picks the size)
import { writeFileSync } from 'node:fs';
import { Service } from './service.js';
import { bundles, inFreshBrowser, pageAt, pulledItems, SDK_IN_PAGE } from './browser-sync.js';
import { harnessPage } from '../../test/browser/sdk-harness.js';
import type { Timed } from './browser-sync-page.js';

const N = Number(process.env.BENCH_ITEMS ?? 10_000);
const [mode = 'sdk', out] = process.argv.slice(2);

/** Installed before anything of the page runs: a log of requests and IndexedDB read-write
 *  transactions (`window.trace`), times from `performance.now()`. */
const TRACE = `(() => {
  const trace = (window.trace = []);
  const fetch0 = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input).replace(/^https?:\\/\\/[^/]+/, '');
    const e = { kind: 'fetch', what: url.slice(0, 90), start: performance.now(), end: 0 };
    trace.push(e);
    const res = await fetch0(input, init);
    e.end = performance.now();
    return res;
  };
  const ops = (window.idbOps = {});
  for (const op of ['get', 'getAll', 'put', 'add', 'delete', 'openCursor', 'count']) {
    const f = IDBObjectStore.prototype[op];
    IDBObjectStore.prototype[op] = function (...args) {
      const k = this.transaction.db.name.replace(/-[0-9a-f]{6,}/g, '').replace(/^.*--/, '') + ' ' + op;
      ops[k] = (ops[k] || 0) + 1;
      return f.apply(this, args);
    };
  }
  const tx0 = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
    const tx = tx0.call(this, stores, mode, ...rest);
    if (mode === 'readwrite') {
      const e = { kind: 'idb', what: this.name.replace(/-[0-9a-f]{6,}/g, '') + ':' + [].concat(stores).join(','), start: performance.now(), end: 0 };
      trace.push(e);
      tx.addEventListener('complete', () => (e.end = performance.now()));
    }
    return tx;
  };
})();`;

interface TraceEntry {
  kind: string;
  what: string;
  start: number;
  end: number;
}

async function main() {
  const scripts = await bundles();
  const service = await Service.start();
  try {
    const family = await service.family();
    const list = await service.rest(family, 'POST', '/api/lists', { name: 'Initial sync' });
    await service.seedItems(family, list.id, N);
    const docs = (await pulledItems(service.url, family)).map(({ _deleted, ...d }) => d);
    console.log(`${docs.length} docs pulled, ${new Set(docs.map((d) => d.id)).size} distinct`);
    await inFreshBrowser(async (context) => {
      await context.addInitScript(TRACE);
      const page =
        mode === 'sdk'
          ? await harnessPage(context, service.url)
          : await pageAt(context, `${service.url}/healthz`, scripts.page);
      const cdp = await context.newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
      await cdp.send('Profiler.start');
      const t0 = (await page.evaluate(() => performance.now())) as number;
      let r: Timed;
      if (mode === 'sdk') {
        const run = await page.evaluateHandle(`(${SDK_IN_PAGE})`);
        r = (await run.evaluate((fn: any, arg) => fn(arg), { session: family.session, expect: N })) as Timed;
      } else if (mode === 'replication') {
        r = await page.evaluate((d) => bench.replication(d), docs);
      } else {
        r = await page.evaluate((d) => bench.floor(d), docs);
      }
      const { profile } = (await cdp.send('Profiler.stop')) as { profile: unknown };
      if (out) writeFileSync(out, JSON.stringify(profile));
      const trace = (await page.evaluate('window.trace')) as TraceEntry[];
      console.log(`${mode}: ${r.ms.toFixed(0)} ms, ${r.count} items`);
      const byKind = new Map<string, { n: number; ms: number }>();
      for (const e of trace) {
        const k = `${e.kind} ${e.kind === 'idb' ? e.what : ''}`;
        const a = byKind.get(k) ?? { n: 0, ms: 0 };
        a.n++;
        a.ms += e.end - e.start;
        byKind.set(k, a);
      }
      for (const [k, a] of byKind) console.log(`  ${k}: ${a.n}, ${a.ms.toFixed(0)} ms in all`);
      console.log(`  IndexedDB requests: ${JSON.stringify(await page.evaluate('window.idbOps'))}`);
      for (const e of trace)
        if (e.kind === 'fetch' || e.end - e.start > 20)
          console.log(
            `  ${(e.start - t0).toFixed(0).padStart(6)} → ${(e.end - t0).toFixed(0).padStart(6)} ms  ${e.kind} ${e.what}`,
          );
    });
  } finally {
    await service.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
