// Live fan-out as sockets grow: 1, 100, 1,000 and 10,000 idle authenticated sockets of one
// family on /api/realtime, the service in a process of its own and its client sockets in
// another (bench/lib/fanout-clients-child.ts). Per size:
//   - memory: the service process's RSS and heap (heapUsed + external) after garbage
//     collection, before the sockets connect and once they are authenticated and idle; the
//     difference over N is the memory per idle authenticated socket (goal ≤ 50 KB);
//   - latency, commit → receipt: one real family write emitting ListProgress per event, the
//     clock started in its after-commit hook (absolute clocks, one machine) and stopped when a
//     socket's message handler has the frame; the next event once every socket has it.
// Baseline in the same run: a bare `ws` server in a process of its own broadcasting the same
// two frames to N plain sockets (their clients in a process of their own too; its memory per
// socket measured the same way). Each size gets a fresh service process and a fresh bare
// server; both are up with their N sockets at once and their rounds alternate (service first in
// odd rounds, bare first in even ones), so a change in the machine's load reaches both sides.
//
//   npx tsx bench/live-fanout.ts          (BENCH_SOCKETS=1,100 picks sizes)
//
// BENCH_CPU_PROF=<dir>: the service and bare processes run with `--cpu-prof` and leave their
// CPU profiles in <dir>/service-<N> and <dir>/bare-<N> (one file per thread, the largest is the
// main thread's; open it in Chrome's DevTools or summarize it with
// `npx tsx bench/lib/cpu-profile.ts <file> deliver`).
import path from 'node:path';
import { BENCH_DIR, backend, backendName, machine, pick, sleep, today, SMOKE } from './lib/common.js';
import { ascending, fmtSpread, quantile, ratioSpread, spread } from './lib/stats.js';
import { Service } from './lib/service.js';
import { forkRemote, type Remote } from './lib/rpc.js';
import { writeResult } from './lib/report.js';

const SIZES = (process.env.BENCH_SOCKETS ?? pick('1,100,1000,10000', '1,100')).split(',').map(Number);
const ROUNDS = pick(5, 2);
const eventsPerRound = (n: number) => pick(n <= 1 ? 100 : n <= 100 ? 40 : n <= 1000 ? 15 : 5, 5);
const WARMUP = 3;
const CPU_PROF = process.env.BENCH_CPU_PROF;
const cpuProf = (name: string) => (CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(CPU_PROF, name)}`] : []);

type Memory = { rss: number; heapUsed: number; external: number; arrayBuffers: number };
interface Side {
  p50: number[];
  p99: number[];
  /** p99 of the receipt of each commit's last frame (`Changed`), per round. */
  commitP99: number[];
  /** The server process's CPU time per event (user + system, ms), per round. */
  cpu: number[];
  receipts: number;
  missing: number;
  rssPerSocket: number;
  heapPerSocket: number;
}

/** One side of a size, up with its N sockets: a server process and its clients' process. */
interface Running {
  /** One event (ListProgress with itemCount k); answers its start time. */
  fire: (k: number) => Promise<number>;
  /** The server process's CPU time so far, µs. */
  cpu: () => Promise<number>;
  clients: Remote;
  side: Side;
  close: () => Promise<void>;
}

const clientsChild = () =>
  forkRemote('fan-out clients', path.join(BENCH_DIR, 'lib', 'fanout-clients-child.ts'), process.env);

/** Memory per socket from readings before and after the N sockets (after a second of quiet). */
async function memoryPerSocket(n: number, before: Memory, memory: () => Promise<Memory>): Promise<Side> {
  await sleep(1000);
  const after = await memory();
  return {
    p50: [],
    p99: [],
    commitP99: [],
    cpu: [],
    receipts: 0,
    missing: 0,
    rssPerSocket: (after.rss - before.rss) / n,
    heapPerSocket: (after.heapUsed + after.external - before.heapUsed - before.external) / n,
  };
}

/** The service with N authenticated sockets of one family (a fresh process, so its memory
 *  readings start from the same place). */
async function startService(n: number): Promise<Running> {
  // All N sockets are one user's: lift the per-user bound (20 by default) above N.
  const service = await Service.start({ MAX_SOCKETS_PER_USER: String(n + 20) }, cpuProf(`service-${n}`));
  const clients = await clientsChild();
  const family = await service.family();
  const list = await service.rest(family, 'POST', '/api/lists', { name: 'Fan-out' });
  const url = service.url.replace(/^http/, 'ws') + '/api/realtime';
  // Every code path once, so the memory readings are not the code's.
  await clients.call('open', { url, token: family.token, n: 10, group: 'warm' });
  await service.emit(family, list.id, 1);
  await clients.call('close', { group: 'warm' });
  const before = await service.memory();
  await clients.call('open', { url, token: family.token, n, group: 'main' });
  return {
    fire: (k) => service.emit(family, list.id, k),
    cpu: () => service.cpu(),
    clients,
    side: await memoryPerSocket(n, before, () => service.memory()),
    close: async () => {
      await clients.call('close', { group: 'main' }).catch(() => undefined);
      await clients.close();
      await service.close();
    },
  };
}

async function startBare(n: number): Promise<Running> {
  const bare: Remote = await forkRemote(
    'bare-ws',
    path.join(BENCH_DIR, 'lib', 'bare-ws-child.ts'),
    process.env,
    cpuProf(`bare-${n}`),
  );
  const clients = await clientsChild();
  const { url } = await bare.call<{ url: string }>('start');
  await clients.call('open', { url, token: null, n: 10, group: 'warm' });
  await bare.call('broadcast', { listId: 'warm', k: 1 });
  await clients.call('close', { group: 'warm' });
  const before = await bare.call<Memory>('memory');
  await clients.call('open', { url, token: null, n, group: 'main' });
  while ((await bare.call<number>('clients')) < n) await sleep(10);
  return {
    fire: (k) => bare.call<number>('broadcast', { listId: 'bench', k }),
    cpu: () => bare.call<number>('cpu'),
    clients,
    side: await memoryPerSocket(n, before, () => bare.call<Memory>('memory')),
    close: async () => {
      await clients.call('close', { group: 'main' }).catch(() => undefined);
      await clients.close();
      await bare.call('close').catch(() => undefined);
      await bare.close();
    },
  };
}

/** Events on one side; their latencies (receipt − start) over all sockets: of the event, and
 *  of its commit's last frame. */
async function events(r: Running, n: number, ks: number[]): Promise<{ event: number[]; commit: number[] }> {
  const event: number[] = [];
  const commit: number[] = [];
  for (const k of ks) {
    const t0 = await r.fire(k);
    const got = await r.clients.call<{ event: number[]; commit: number[] }>('wait', { k, n });
    r.side.missing += n - got.event.length;
    for (const t of got.event) event.push(t - t0);
    for (const t of got.commit) commit.push(t - t0);
  }
  return { event, commit };
}

/** One size: both sides up at once, warm-up events on each, then alternating rounds. */
async function measureSize(n: number): Promise<{ service: Side; bare: Side }> {
  const service = await startService(n);
  let bare: Running | undefined;
  try {
    bare = await startBare(n);
    let k = 1_000_000 * n;
    const next = (count: number) => Array.from({ length: count }, () => ++k);
    await events(service, n, next(WARMUP));
    await events(bare, n, next(WARMUP));
    service.side.missing = bare.side.missing = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of round % 2 === 0 ? [service, bare] : [bare, service]) {
        const ks = next(eventsPerRound(n));
        const cpu0 = await r.cpu();
        const lat = await events(r, n, ks);
        r.side.cpu.push(((await r.cpu()) - cpu0) / 1000 / ks.length);
        const s = ascending(lat.event);
        r.side.commitP99.push(quantile(ascending(lat.commit), 0.99));
        r.side.p50.push(quantile(s, 0.5));
        r.side.p99.push(quantile(s, 0.99));
        r.side.receipts += s.length;
      }
    }
    return { service: service.side, bare: bare.side };
  } finally {
    await bare?.close();
    await service.close();
  }
}

async function main() {
  const rows: Array<{ n: number; service: Side; bare: Side }> = [];
  for (const n of SIZES) {
    const t = Date.now();
    const { service: s, bare: b } = await measureSize(n);
    rows.push({ n, service: s, bare: b });
    console.error(
      `${n} sockets: service p50 ${spread(s.p50).median.toFixed(2)} ms, ${(s.rssPerSocket / 1024).toFixed(1)} KB RSS, ${(s.heapPerSocket / 1024).toFixed(1)} KB heap per socket (${((Date.now() - t) / 1000).toFixed(0)} s)`,
    );
  }
  const kb = (b: number, n: number, min: number) => (n < min ? '—' : `${(b / 1024).toFixed(1)}`);
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${backendName()}, in-process bus, ${machine()}; ${ROUNDS} rounds per size, service and bare alternating (events per round: ${SIZES.map((n) => `${eventsPerRound(n)} at ${n.toLocaleString('en-US')}`).join(', ')}), p50/p99 of the event's receipt, p99 of the receipt of its commit's last frame (\`Changed\`) and the server process's CPU time per event (user + system) per round, median (min–max). Memory per socket: one reading per size (RSS from 1,000 sockets, heap from 100; below that it is noise).`,
    '',
    '| sockets | receipts | service p50 ms | service p99 ms | bare ws p50 ms | bare ws p99 ms | ratio p50 | ratio p99 | ratio p99, whole commit | service CPU ms/event | bare ws CPU ms/event | ratio CPU | service KB/socket RSS (heap) | bare ws KB/socket RSS (heap) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ n, service: s, bare: b }) =>
        `| ${n.toLocaleString('en-US')} | ${s.receipts.toLocaleString('en-US')}${s.missing ? ` (${s.missing} missing)` : ''} | ${fmtSpread(spread(s.p50))} | ${fmtSpread(spread(s.p99))} | ${fmtSpread(spread(b.p50))} | ${fmtSpread(spread(b.p99))} | ${fmtSpread(ratioSpread(s.p50, b.p50))} | ${fmtSpread(ratioSpread(s.p99, b.p99))} | ${fmtSpread(ratioSpread(s.commitP99, b.commitP99))} | ${fmtSpread(spread(s.cpu))} | ${fmtSpread(spread(b.cpu))} | ${fmtSpread(ratioSpread(s.cpu, b.cpu))} | ${kb(s.rssPerSocket, n, 1000)} (${kb(s.heapPerSocket, n, 100)}) | ${kb(b.rssPerSocket, n, 1000)} (${kb(b.heapPerSocket, n, 100)}) |`,
    ),
  ].join('\n');
  writeResult(`live-fanout.${backend()}`, md, { rows });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
