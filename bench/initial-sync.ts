// Initial sync: a fresh SDK database (RxDB memory storage) from start() until it holds the
// family's 10,000 items and is in sync (all nine collections), against PouchDB 9 replicating
// the same 10,000 item docs from express-pouchdb (memory adapter) into a fresh memory database
// with batch_size 100 (its default) and 1,000, in the same run. Every attempt runs in a fresh
// worker thread; rounds interleave the three. The ratio is PouchDB's best batch size of the
// round over the SDK.
//
//   npx tsx bench/initial-sync.ts        (BENCH_ITEMS=… picks the size)
import path from 'node:path';
import { BENCH_DIR, backend, backendName, machine, pick, today, SMOKE } from './lib/common.js';
import { fmtSpread, spread } from './lib/stats.js';
import { forkRemote, workerRemote } from './lib/rpc.js';
import { Service } from './lib/service.js';
import { ensurePeers } from './lib/peers.js';
import { bundleWorker } from './lib/bundle.js';
import { writeResult } from './lib/report.js';

const N = Number(process.env.BENCH_ITEMS ?? pick(10_000, 500));
const ROUNDS = pick(5, 2);
const BATCHES = [100, 1000];

async function main() {
  ensurePeers();
  const [sdkFile, pouchFile] = await Promise.all([bundleWorker('sdk-device'), bundleWorker('pouch-device')]);
  const service = await Service.start();
  const pouchServer = await forkRemote(
    'pouchdb-server',
    path.join(BENCH_DIR, 'lib', 'pouch-server-child.ts'),
    process.env,
  );
  const sdk: number[] = [];
  const pouch: Record<number, number[]> = Object.fromEntries(BATCHES.map((b) => [b, []]));
  try {
    const family = await service.family();
    const list = await service.rest(family, 'POST', '/api/lists', { name: 'Initial sync' });
    await service.seedItems(family, list.id, N);
    const { url } = await pouchServer.call<{ url: string }>('start');
    const doc = {
      listId: list.id,
      quantity: 2.5,
      unitOfMeasureId: null,
      familyUnitOfMeasureId: null,
      isApproximate: false,
      quantityNote: 'ripe ones',
      productId: null,
      familyProductId: null,
      sectionId: null,
      checked: false,
      checkedAt: null,
      removedAt: null,
      removedByUserId: null,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    };
    const seeded = await pouchServer.call<number>('seed', { name: 'items', n: N, doc });
    if (seeded !== N) throw new Error(`PouchDB server holds ${seeded} docs, not ${N}`);

    const attempt = async (file: string, args: Record<string, unknown>) => {
      const w = await workerRemote('device', file, null);
      try {
        const r = await w.call<{ ms: number; count: number }>('initialSync', args);
        if (r.count < N) throw new Error(`synced ${r.count} of ${N}`);
        return r.ms;
      } finally {
        await w.close();
      }
    };
    // One warm-up of each (the OS and the servers' caches), not counted.
    await attempt(sdkFile, { baseUrl: service.url, session: family.session, expect: N });
    await attempt(pouchFile, { remoteUrl: `${url}/items`, batchSize: 1000, expect: N });
    for (let round = 0; round < ROUNDS; round++) {
      sdk.push(await attempt(sdkFile, { baseUrl: service.url, session: family.session, expect: N }));
      for (const b of BATCHES)
        pouch[b]!.push(await attempt(pouchFile, { remoteUrl: `${url}/items`, batchSize: b, expect: N }));
      console.error(
        `round ${round + 1}: SDK ${Math.round(sdk[round]!)} ms, PouchDB ${BATCHES.map((b) => `${b}: ${Math.round(pouch[b]![round]!)} ms`).join(', ')}`,
      );
    }
    await service.dropFamily(family);
  } finally {
    await pouchServer.call('close').catch(() => undefined);
    await pouchServer.close();
    await service.close();
  }
  const best = sdk.map((_, i) => Math.min(...BATCHES.map((b) => pouch[b]![i]!)));
  const s = (ms: number[]) => fmtSpread(spread(ms.map((x) => x / 1000)));
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${N.toLocaleString('en-US')} items, ${backendName()} behind the SDK, ${machine()}; ${ROUNDS} rounds (each attempt in a fresh worker thread, after one warm-up of each), seconds, median (min–max).`,
    '',
    '| system | seconds | PouchDB best / this |',
    '|---|---:|---:|',
    `| SDK, fresh RxDB memory database, all nine collections | ${s(sdk)} | ${fmtSpread(spread(best.map((b, i) => b / sdk[i]!)), 1)}× |`,
    ...BATCHES.map(
      (b) =>
        `| PouchDB 9 ↔ express-pouchdb, batch_size ${b}${b === 100 ? ' (default)' : ''} | ${s(pouch[b]!)} | ${fmtSpread(spread(best.map((x, i) => x / pouch[b]![i]!)), 2)} |`,
    ),
  ].join('\n');
  writeResult(`initial-sync.${backend()}`, md, { n: N, sdk, pouch });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
