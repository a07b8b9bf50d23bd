// Live-event latency, commit → receipt, at 1, 100 and 1,000 connected sockets of one family,
// against a bare `ws` broadcast server measured in the same run.
//
//   npx tsx bench/realtime-latency.ts            (embedded PGlite, in-process bus)
//   REDIS_URL=redis://… DATABASE_URL=postgres://… npx tsx bench/realtime-latency.ts
//
// Service: every iteration is one real family write (familyWrite) that emits a ListProgress; the
// clock starts in the write's after-commit hook and stops when each socket's 'message' handler
// sees the frame. So the figure covers bus → hub → schema check → encode → send → TCP loopback
// → client parse, not the SQL of the write. Baseline: a bare ws server that JSON-encodes the
// same two frames (the event, then `Changed`) once and sends them to every client. Clients run in this process for both, so their
// cost is the same on both sides and the ratio isolates the service's overhead.
// Results are printed as a Markdown table (copy into docs/benchmarks.md).
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { WebSocket, WebSocketServer } from 'ws';
import { startServer } from '../server/server.js';
import { familyWrite } from '../server/db/family-write.js';
import { createFamilyRow } from '../server/family/create.js';
import { newId } from '../server/db/ids.js';
import { signAccessToken } from '../server/auth/tokens.js';

const SIZES = (process.env.BENCH_SIZES ?? '1,100,1000').split(',').map(Number);
const iterationsFor = (n: number) => (n <= 1 ? 500 : n <= 100 ? 200 : 60);
const WARMUP = 20;

interface Receiver {
  ws: WebSocket;
  /** Called with the receipt time of each measured frame. */
  onFrame?: (t: number) => void;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

function attach(ws: WebSocket, r: Receiver, marker: string) {
  ws.on('message', (data) => {
    const t = performance.now();
    const text = data.toString();
    if (text.includes(marker)) {
      JSON.parse(text); // a real client parses every frame
      r.onFrame?.(t);
    }
  });
}

/** Runs `iterations` rounds of `fire` (which returns the start time) and waits each time until
 *  every receiver got the frame; returns per-receipt latencies in ms. */
async function measure(receivers: Receiver[], iterations: number, fire: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < WARMUP + iterations; i++) {
    let pending = receivers.length;
    const times: number[] = [];
    const all = new Promise<void>((resolve) => {
      for (const r of receivers) {
        r.onFrame = (t) => {
          times.push(t);
          r.onFrame = undefined;
          if (--pending === 0) resolve();
        };
      }
    });
    const t0 = await fire();
    await all;
    if (i >= WARMUP) for (const t of times) out.push(t - t0);
  }
  return out.sort((a, b) => a - b);
}

async function openMany<T>(n: number, open: () => Promise<T>, batch = 50): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += batch)
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, open))));
  return out;
}

/** `remote`: the sockets connect to a second instance (sharing PostgreSQL and Redis), so each
 *  event also crosses Redis: PUBLISH on the writing instance → subscriber → that instance's hub. */
async function benchService(n: number, remote = false): Promise<number[]> {
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: process.env.DATABASE_URL || 'pglite://memory',
    // All N sockets are one user's: lift the per-user bound (20 by default) above N.
    MAX_SOCKETS_PER_USER: String(n + 20),
  };
  const app = await startServer({ env });
  const other = remote ? await startServer({ env }) : undefined;
  try {
    const family = await createFamilyRow(app.deps.db, { name: `Bench ${newId()}` });
    const userId = newId();
    await app.deps.db.transaction(async (trx) => {
      await trx('users').insert({
        id: userId,
        email: `${userId}@bench.test`,
        user_name: `bench-${userId}`,
        password_hash: 'x',
      });
      await trx('family_memberships').insert({ id: newId(), family_id: family.id, user_id: userId, role: 'admin' });
    });
    const token = signAccessToken(app.deps.jwtSecret, { userId, familyId: family.id, role: 'admin' }, 3600);
    const listId = newId();
    await familyWrite(app.deps, family.id, (w) => w.insert('shopping_lists', { id: listId, name: 'Bench' }));

    const wsUrl = (other ?? app).url.replace(/^http/, 'ws') + '/api/realtime';
    const receivers = await openMany(n, async () => {
      const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
      const r: Receiver = { ws };
      await new Promise<void>((resolve, reject) => {
        ws.once('error', reject);
        ws.once('open', () => ws.send(JSON.stringify({ type: 'Authenticate', token })));
        ws.once('message', () => resolve()); // Authenticated
      });
      attach(ws, r, '"ListProgress"');
      return r;
    });

    let k = 0;
    const latencies = await measure(receivers, iterationsFor(n), async () => {
      let t0 = 0;
      k++;
      await familyWrite(app.deps, family.id, async (w) => {
        w.emit({ type: 'ListProgress', listId, itemCount: k, checkedCount: k % 3 });
        w.afterCommit(() => {
          t0 = performance.now();
        });
      });
      return t0;
    });
    for (const r of receivers) r.ws.terminate();
    return latencies;
  } finally {
    await other?.close();
    await app.close();
  }
}

async function benchBare(n: number): Promise<number[]> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const { port } = wss.address() as { port: number };
  const receivers = await openMany(n, async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('open', () => resolve());
    });
    const r: Receiver = { ws };
    attach(ws, r, '"ListProgress"');
    return r;
  });
  while (wss.clients.size < n) await new Promise((r) => setTimeout(r, 5));
  const listId = newId();
  let k = 0;
  const latencies = await measure(receivers, iterationsFor(n), async () => {
    k++;
    const t0 = performance.now();
    // The same frames the service sends for one write: the event, then Changed.
    const text = JSON.stringify({ type: 'ListProgress', listId, itemCount: k, checkedCount: k % 3 });
    const changed = JSON.stringify({ type: 'Changed', version: k });
    for (const c of wss.clients) c.send(text);
    for (const c of wss.clients) c.send(changed);
    return t0;
  });
  for (const r of receivers) r.ws.terminate();
  await new Promise<void>((r) => wss.close(() => r()));
  return latencies;
}

const fmt = (ms: number) => ms.toFixed(3);

async function main() {
  const backend = `${process.env.DATABASE_URL?.startsWith('postgres') ? 'PostgreSQL' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis bus' : 'in-process bus'}`;
  console.log(`# realtime latency (commit → receipt), ${backend}`);
  console.log(
    `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()} ${os.release()}\n`,
  );
  console.log(
    '| sockets | receipts | service p50 ms | service p99 ms | bare ws p50 ms | bare ws p99 ms | ratio p50 | ratio p99 |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  const table = async (remote: boolean) => {
    for (const n of SIZES) {
      const service = await benchService(n, remote);
      const bare = await benchBare(n);
      const [s50, s99, b50, b99] = [
        quantile(service, 0.5),
        quantile(service, 0.99),
        quantile(bare, 0.5),
        quantile(bare, 0.99),
      ];
      console.log(
        `| ${n} | ${service.length} | ${fmt(s50)} | ${fmt(s99)} | ${fmt(b50)} | ${fmt(b99)} | ${(s50 / b50).toFixed(2)} | ${(s99 / b99).toFixed(2)} |`,
      );
    }
  };
  await table(false);
  // Two instances need a shared PostgreSQL (PGlite is one process's) and Redis between them.
  if (process.env.REDIS_URL && process.env.DATABASE_URL?.startsWith('postgres')) {
    console.log('\nsockets on a second instance (the event crosses Redis):\n');
    console.log(
      '| sockets | receipts | service p50 ms | service p99 ms | bare ws p50 ms | bare ws p99 ms | ratio p50 | ratio p99 |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    await table(true);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
