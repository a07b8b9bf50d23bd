// Initial sync: a fresh SDK database (RxDB memory storage) from start() until it holds the
// family's 10,000 items and is in sync (all nine collections), against PouchDB 9 replicating
// the same 10,000 item docs from express-pouchdb (memory adapter) into a fresh memory database
// with batch_size 100 (its default) and 1,000, in the same run. A fourth system is the floor of
// the SDK's own stack: RxDB (memory storage) replicating the nine collections with the SDK's
// schemas and settings, with no SDK code, its pull handler fetching (Node's `fetch`) the
// service's own pages, captured once before the rounds, from a bare HTTP server
// (workers/rxdb-floor-sync.ts, lib/pages-child.ts). Every attempt runs in a fresh worker thread;
// rounds interleave the four. The ratio is PouchDB's best batch size of the round over each.
//
//   npx tsx bench/initial-sync.ts        (BENCH_ITEMS=… picks the size)
import path from 'node:path';
import { BENCH_DIR, backend, backendName, machine, pick, today, SMOKE } from './lib/common.js';
import { fmtSpread, num, spread } from './lib/stats.js';
import { forkRemote, workerRemote } from './lib/rpc.js';
import { Service, type BenchFamily } from './lib/service.js';
import { ensurePeers } from './lib/peers.js';
import { bundleWorker } from './lib/bundle.js';
import { writeResult } from './lib/report.js';
import { COLLECTIONS, PULL_LIMIT_MAX, pullUrl, type Checkpoint } from '@family-shopping/client/protocol';

const N = Number(process.env.BENCH_ITEMS ?? pick(10_000, 500));
const ROUNDS = pick(5, 2);
const BATCHES = [100, 1000];

/**
 * The pages the SDK's pull walk of a fresh database gets from the service, by request URL (path
 * and query): each collection from no checkpoint, page after page of PULL_LIMIT_MAX until one is
 * short, built as the SDK builds them (client-sdk/src/replication.ts `pullPath`), with the
 * family's session. The bodies are the service's text, as it sent it.
 */
async function capturePages(baseUrl: string, family: BenchFamily): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  for (const c of COLLECTIONS) {
    let checkpoint: Checkpoint | null = null;
    for (;;) {
      const url = pullUrl(c, checkpoint, PULL_LIMIT_MAX);
      const res = await fetch(baseUrl + url, {
        headers: {
          accept: 'application/json, application/problem+json',
          authorization: `Bearer ${family.session.accessToken}`,
        },
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 200)}`);
      pages.set(url, text);
      const body = JSON.parse(text) as { documents: unknown[]; checkpoint: Checkpoint | null };
      if (body.documents.length < PULL_LIMIT_MAX) break;
      checkpoint = body.checkpoint;
    }
  }
  return pages;
}

async function main() {
  ensurePeers();
  const [sdkFile, pouchFile, floorFile] = await Promise.all([
    bundleWorker('sdk-device'),
    bundleWorker('pouch-device'),
    bundleWorker('rxdb-floor-sync'),
  ]);
  const service = await Service.start();
  const pouchServer = await forkRemote(
    'pouchdb-server',
    path.join(BENCH_DIR, 'lib', 'pouch-server-child.ts'),
    process.env,
  );
  const pagesServer = await forkRemote('pages-server', path.join(BENCH_DIR, 'lib', 'pages-child.ts'), process.env);
  const sdk: number[] = [];
  const floor: number[] = [];
  let floorPages = { count: 0, bytes: 0 };
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
    const pages = await capturePages(service.url, family);
    const { url: pagesUrl } = await pagesServer.call<{ url: string }>('start');
    for (const [u, body] of pages) await pagesServer.call('page', { url: u, body });
    floorPages = {
      count: pages.size,
      bytes: [...pages.values()].reduce((a, b) => a + Buffer.byteLength(b), 0),
    };

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
    const floorAttempt = async () => {
      const ms = await attempt(floorFile, { baseUrl: pagesUrl, expect: N });
      // Every request was one of the captured pages, and every captured page was asked for.
      const st = await pagesServer.call<{ served: number; missed: string[] }>('stats');
      if (st.missed.length > 0 || st.served !== pages.size)
        throw new Error(`floor: ${st.served} of ${pages.size} pages served; unknown: ${st.missed.join(', ')}`);
      return ms;
    };
    // One warm-up of each (the OS and the servers' caches), not counted.
    await attempt(sdkFile, { baseUrl: service.url, session: family.session, expect: N });
    await floorAttempt();
    await attempt(pouchFile, { remoteUrl: `${url}/items`, batchSize: 1000, expect: N });
    for (let round = 0; round < ROUNDS; round++) {
      sdk.push(await attempt(sdkFile, { baseUrl: service.url, session: family.session, expect: N }));
      floor.push(await floorAttempt());
      for (const b of BATCHES)
        pouch[b]!.push(await attempt(pouchFile, { remoteUrl: `${url}/items`, batchSize: b, expect: N }));
      console.error(
        `round ${round + 1}: SDK ${Math.round(sdk[round]!)} ms, RxDB floor ${Math.round(floor[round]!)} ms, PouchDB ${BATCHES.map((b) => `${b}: ${Math.round(pouch[b]![round]!)} ms`).join(', ')}`,
      );
    }
    await service.dropFamily(family);
  } finally {
    await pouchServer.call('close').catch(() => undefined);
    await pouchServer.close();
    await pagesServer.call('close').catch(() => undefined);
    await pagesServer.close();
    await service.close();
  }
  const best = sdk.map((_, i) => Math.min(...BATCHES.map((b) => pouch[b]![i]!)));
  const s = (ms: number[]) => fmtSpread(spread(ms.map((x) => x / 1000)));
  const over = (ms: number[]) => spread(best.map((b, i) => b / ms[i]!));
  const floorRatio = over(floor);
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${N.toLocaleString('en-US')} items, ${backendName()} behind the SDK, ${machine()}; ${ROUNDS} rounds (each attempt in a fresh worker thread, after one warm-up of each), seconds, median (min–max). The SDK's clock starts at \`start()\` on a client whose database and collections exist; the floor's at the same point, when its nine replications are started.`,
    '',
    '| system | seconds | PouchDB best / this |',
    '|---|---:|---:|',
    `| SDK, fresh RxDB memory database, all nine collections | ${s(sdk)} | ${fmtSpread(over(sdk), 1)}× |`,
    `| RxDB floor (pages from a bare HTTP server, no SDK, no service) | ${s(floor)} | ${fmtSpread(floorRatio, 1)}× |`,
    ...BATCHES.map(
      (b) =>
        `| PouchDB 9 ↔ express-pouchdb, batch_size ${b}${b === 100 ? ' (default)' : ''} | ${s(pouch[b]!)} | ${fmtSpread(over(pouch[b]!), 2)} |`,
    ),
    '',
    `RxDB floor against the goal (≥ 3× faster than PouchDB's best): ${fmtSpread(floorRatio, 1)}×, ${
      floorRatio.max < 3
        ? 'below 3× in every round'
        : floorRatio.min >= 3
          ? 'at or above 3× in every round'
          : `at or above 3× in ${best.filter((b, i) => b / floor[i]! >= 3).length} of ${ROUNDS} rounds`
    } (RxDB memory storage and Node's \`fetch\` alone, the service's ${floorPages.count} pages, ${num(floorPages.bytes / 1e6, 1)} MB, answered from memory).`,
  ].join('\n');
  writeResult(`initial-sync.${backend()}`, md, { n: N, sdk, pouch, floor });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
