// Live fan-out as sockets grow: 1, 100, 1,000 and 10,000 idle authenticated sockets of one
// family on /api/realtime, the service in a process of its own and every client socket in this
// one. Per size:
//   - memory: the service process's RSS and heap (heapUsed + external) after garbage
//     collection, before the sockets connect and once they are authenticated and idle; the
//     difference over N is the memory per idle authenticated socket (goal ≤ 50 KB);
//   - latency, commit → receipt: one real family write emitting ListProgress per event, the
//     clock started in its after-commit hook (absolute clocks, one machine) and stopped when a
//     socket's message handler has the frame; the next event once every socket has it.
// Baseline in the same run: a bare `ws` server in a process of its own broadcasting the same
// two frames to N plain sockets (its memory per socket measured the same way). Each size gets a
// fresh service process and a fresh bare server.
//
//   npx tsx bench/live-fanout.ts          (BENCH_SOCKETS=1,100 picks sizes)
//
// BENCH_CPU_PROF=<dir>: the service and bare processes run with `--cpu-prof` and leave their
// CPU profiles in <dir>/service-<N> and <dir>/bare-<N> (one file per thread, the largest is the
// main thread's; open it in Chrome's DevTools or summarize it with
// `npx tsx bench/lib/cpu-profile.ts <file> deliver`).
import path from 'node:path';
import WebSocket from 'ws';
import { BENCH_DIR, backend, backendName, machine, now, pick, sleep, today, SMOKE } from './lib/common.js';
import { ascending, fmtSpread, quantile, ratioSpread, spread } from './lib/stats.js';
import { Service } from './lib/service.js';
import { forkRemote, type Remote } from './lib/rpc.js';
import { writeResult } from './lib/report.js';

const SIZES = (process.env.BENCH_SOCKETS ?? pick('1,100,1000,10000', '1,100')).split(',').map(Number);
const ROUNDS = pick(3, 2);
const eventsPerRound = (n: number) => pick(n <= 1 ? 100 : n <= 100 ? 40 : n <= 1000 ? 15 : 5, 5);
const WARMUP = 3;
const CPU_PROF = process.env.BENCH_CPU_PROF;
const cpuProf = (name: string) => (CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(CPU_PROF, name)}`] : []);

type Memory = { rss: number; heapUsed: number; external: number; arrayBuffers: number };
interface Side {
  p50: number[];
  p99: number[];
  receipts: number;
  missing: number;
  rssPerSocket: number;
  heapPerSocket: number;
}

/** Receipt times of each event (by its itemCount) over all sockets. */
class Receipts {
  private readonly byK = new Map<number, number[]>();
  private waiter: (() => void) | undefined;
  on(text: string, t: number) {
    if (!text.includes('"ListProgress"')) return;
    const k = (JSON.parse(text) as { itemCount: number }).itemCount; // a real client parses every frame
    let list = this.byK.get(k);
    if (!list) this.byK.set(k, (list = []));
    list.push(t);
    this.waiter?.();
  }
  async wait(k: number, n: number): Promise<number[]> {
    const deadline = Date.now() + 30_000;
    while ((this.byK.get(k)?.length ?? 0) < n && Date.now() < deadline) {
      await new Promise<void>((r) => {
        this.waiter = r;
        setTimeout(r, 50);
      });
    }
    this.waiter = undefined;
    const out = this.byK.get(k) ?? [];
    this.byK.delete(k);
    return out;
  }
}

async function openSockets(n: number, url: string, token: string | null, receipts: Receipts): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  const open = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      ws.once('error', reject);
      ws.once('open', () => {
        if (!token) return resolve(ws);
        ws.send(JSON.stringify({ type: 'Authenticate', token }));
        ws.once('message', (data) => {
          const frame = JSON.parse(String(data)) as { type: string };
          if (frame.type !== 'Authenticated') reject(new Error(`not authenticated: ${String(data)}`));
          else resolve(ws);
        });
      });
    }).then((ws) => {
      ws.on('message', (data) => receipts.on(String(data), now()));
      return ws;
    });
  for (let i = 0; i < n; i += 200) out.push(...(await Promise.all(Array.from({ length: Math.min(200, n - i) }, open))));
  return out;
}

async function closeSockets(sockets: WebSocket[]) {
  for (const ws of sockets) ws.terminate();
  await sleep(500);
}

async function measure(
  n: number,
  fire: (k: number) => Promise<number>,
  receipts: Receipts,
  memory: () => Promise<Memory>,
  before: Memory,
): Promise<Side> {
  await sleep(1000);
  const after = await memory();
  const side: Side = {
    p50: [],
    p99: [],
    receipts: 0,
    missing: 0,
    rssPerSocket: (after.rss - before.rss) / n,
    heapPerSocket: (after.heapUsed + after.external - before.heapUsed - before.external) / n,
  };
  let k = 1_000_000 * n;
  for (let i = 0; i < WARMUP; i++) await receipts.wait(await fire(++k).then(() => k), n);
  for (let round = 0; round < ROUNDS; round++) {
    const lat: number[] = [];
    for (let e = 0; e < eventsPerRound(n); e++) {
      const kk = ++k;
      const t0 = await fire(kk);
      const got = await receipts.wait(kk, n);
      side.missing += n - got.length;
      for (const t of got) lat.push(t - t0);
    }
    const s = ascending(lat);
    side.p50.push(quantile(s, 0.5));
    side.p99.push(quantile(s, 0.99));
    side.receipts += s.length;
  }
  return side;
}

/** One size against a fresh service process (so its memory readings start from the same place). */
async function serviceSide(n: number): Promise<Side> {
  // All N sockets are one user's: lift the per-user bound (20 by default) above N.
  const service = await Service.start({ MAX_SOCKETS_PER_USER: String(n + 20) }, cpuProf(`service-${n}`));
  try {
    const family = await service.family();
    const list = await service.rest(family, 'POST', '/api/lists', { name: 'Fan-out' });
    const wsUrl = service.url.replace(/^http/, 'ws') + '/api/realtime';
    // Every code path once, so the memory readings are not the code's.
    const warm = await openSockets(10, wsUrl, family.token, new Receipts());
    await service.emit(family, list.id, 1);
    await closeSockets(warm);
    const receipts = new Receipts();
    const before = await service.memory();
    const sockets = await openSockets(n, wsUrl, family.token, receipts);
    const side = await measure(
      n,
      (k) => service.emit(family, list.id, k),
      receipts,
      () => service.memory(),
      before,
    );
    await closeSockets(sockets);
    return side;
  } finally {
    await service.close();
  }
}

async function bareSide(n: number): Promise<Side> {
  const bare: Remote = await forkRemote(
    'bare-ws',
    path.join(BENCH_DIR, 'lib', 'bare-ws-child.ts'),
    process.env,
    cpuProf(`bare-${n}`),
  );
  try {
    const { url } = await bare.call<{ url: string }>('start');
    const warm = await openSockets(10, url, null, new Receipts());
    await bare.call('broadcast', { listId: 'warm', k: 1 });
    await closeSockets(warm);
    const receipts = new Receipts();
    const before = await bare.call<Memory>('memory');
    const sockets = await openSockets(n, url, null, receipts);
    while ((await bare.call<number>('clients')) < n) await sleep(10);
    const side = await measure(
      n,
      (k) => bare.call<number>('broadcast', { listId: 'bench', k }),
      receipts,
      () => bare.call<Memory>('memory'),
      before,
    );
    await closeSockets(sockets);
    return side;
  } finally {
    await bare.call('close').catch(() => undefined);
    await bare.close();
  }
}

async function main() {
  const rows: Array<{ n: number; service: Side; bare: Side }> = [];
  for (const n of SIZES) {
    const t = Date.now();
    const s = await serviceSide(n);
    const b = await bareSide(n);
    rows.push({ n, service: s, bare: b });
    console.error(
      `${n} sockets: service p50 ${spread(s.p50).median.toFixed(2)} ms, ${(s.rssPerSocket / 1024).toFixed(1)} KB RSS, ${(s.heapPerSocket / 1024).toFixed(1)} KB heap per socket (${((Date.now() - t) / 1000).toFixed(0)} s)`,
    );
  }
  const kb = (b: number, n: number, min: number) => (n < min ? '—' : `${(b / 1024).toFixed(1)}`);
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${backendName()}, in-process bus, ${machine()}; ${ROUNDS} rounds per size (events per round: ${SIZES.map((n) => `${eventsPerRound(n)} at ${n.toLocaleString('en-US')}`).join(', ')}), p50/p99 per round, median (min–max). Memory per socket: one reading per size (RSS from 1,000 sockets, heap from 100; below that it is noise).`,
    '',
    '| sockets | receipts | service p50 ms | service p99 ms | bare ws p50 ms | bare ws p99 ms | ratio p50 | ratio p99 | service KB/socket RSS (heap) | bare ws KB/socket RSS (heap) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ n, service: s, bare: b }) =>
        `| ${n.toLocaleString('en-US')} | ${s.receipts.toLocaleString('en-US')}${s.missing ? ` (${s.missing} missing)` : ''} | ${fmtSpread(spread(s.p50))} | ${fmtSpread(spread(s.p99))} | ${fmtSpread(spread(b.p50))} | ${fmtSpread(spread(b.p99))} | ${fmtSpread(ratioSpread(s.p50, b.p50))} | ${fmtSpread(ratioSpread(s.p99, b.p99))} | ${kb(s.rssPerSocket, n, 1000)} (${kb(s.heapPerSocket, n, 100)}) | ${kb(b.rssPerSocket, n, 1000)} (${kb(b.heapPerSocket, n, 100)}) |`,
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
