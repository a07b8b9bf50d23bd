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
// - RxDB's replication alone (where the SDK's pulls go): the same database and docs, through
//   `replicateRxCollection` with a pull handler answering pages of 1,000 from memory;
// - PouchDB 9 in the page (`pouchdb-browser`: IndexedDB adapter, HTTP, replication) replicating
//   the same docs (`_id` = the item's id) from express-pouchdb (memory adapter, its own process)
//   with batch_size 100 (its default), 500, 1,000 and 2,000; the ratio takes the round's best.
// Rounds interleave every attempt (the order reversed every other round) after one warm-up each.
//
//   npm run bench -- browser-initial-sync     (BENCH_ITEMS=…, BENCH_ROUNDS=… pick the sizes)
import path from 'node:path';
import { PULL_LIMIT_MAX } from '@family-shopping/client/protocol';
import { BENCH_DIR, backend, backendName, machine, pick, today, SMOKE } from './lib/common.js';
import { ensurePeers } from './lib/peers.js';
import { forkRemote } from './lib/rpc.js';
import { writeResult } from './lib/report.js';
import { Service } from './lib/service.js';
import { fmtSpread, num, ratioSpread, spread } from './lib/stats.js';
import type { Timed } from './lib/browser-sync-page.js';
import { bundles, inFreshBrowser, pageAt, pulledItems, SDK_IN_PAGE, seedPouch } from './lib/browser-sync.js';
import { harnessPage } from '../test/browser/sdk-harness.js';

const N = Number(process.env.BENCH_ITEMS ?? pick(10_000, 500));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? pick(5, 1));
const BATCHES = [100, 500, 1000, 2000];
const SYSTEMS = ['sdk', 'floor', 'replication', ...BATCHES.map((b) => `pouch${b}` as const)] as const;
type System = (typeof SYSTEMS)[number];

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
        if (system === 'floor' || system === 'replication') {
          const page = await pageAt(context, `${service.url}/healthz`, scripts.page);
          return system === 'floor'
            ? page.evaluate((d) => bench.floor(d), docs)
            : page.evaluate((d) => bench.replication(d), docs);
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
| RxDB + Dexie, the same docs through RxDB's replication, pages of ${PULL_LIMIT_MAX.toLocaleString('en-US')} from memory | ${secs(results.replication)} | ${fmtSpread(ratioSpread(results.sdk, results.replication))}× | — |
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
