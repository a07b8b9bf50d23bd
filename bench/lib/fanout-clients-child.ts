// The client sockets of one side of the live fan-out (bench/live-fanout.ts), in a process of
// their own: each side's sockets have their own file descriptors (10,000 a side would not fit
// one process's limit twice), so the service and the bare server can both be up and their
// rounds alternate. Every `ListProgress` and `Changed` frame is parsed (a real client parses
// every frame) and its receipt time (absolute clock, comparable across processes) kept by the
// event's itemCount.
import WebSocket from 'ws';
import { serve } from './rpc.js';
import { now, sleep } from './common.js';

/** Receipt times of each event (by its itemCount) over all sockets: of its `ListProgress`,
 *  and of the `Changed` that ends its commit on that socket (the first after it). */
class Receipts {
  private readonly byK = new Map<number, number[]>();
  private readonly doneByK = new Map<number, number[]>();
  private waiter: (() => void) | undefined;
  /** The handler of one socket. */
  socket(): (text: string, t: number) => void {
    let last: number | undefined;
    return (text, t) => {
      if (text.includes('"ListProgress"')) {
        last = (JSON.parse(text) as { itemCount: number }).itemCount;
        push(this.byK, last, t);
      } else if (last !== undefined && text.includes('"Changed"')) {
        JSON.parse(text);
        push(this.doneByK, last, t);
        last = undefined;
      } else return;
      this.waiter?.();
    };
  }
  async wait(k: number, n: number): Promise<{ event: number[]; commit: number[] }> {
    const deadline = Date.now() + 30_000;
    while (((this.byK.get(k)?.length ?? 0) < n || (this.doneByK.get(k)?.length ?? 0) < n) && Date.now() < deadline) {
      await new Promise<void>((r) => {
        this.waiter = r;
        setTimeout(r, 50);
      });
    }
    this.waiter = undefined;
    const out = { event: this.byK.get(k) ?? [], commit: this.doneByK.get(k) ?? [] };
    this.byK.delete(k);
    this.doneByK.delete(k);
    return out;
  }
  clear() {
    this.byK.clear();
    this.doneByK.clear();
  }
}

function push(m: Map<number, number[]>, k: number, t: number) {
  const list = m.get(k);
  if (list) list.push(t);
  else m.set(k, [t]);
}

const receipts = new Receipts();
const groups = new Map<string, WebSocket[]>();

/** `n` sockets on `url`, 200 at a time; with a token each authenticates first. */
async function openSockets(n: number, url: string, token: string | null): Promise<WebSocket[]> {
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
      const on = receipts.socket();
      ws.on('message', (data) => on(String(data), now()));
      return ws;
    });
  for (let i = 0; i < n; i += 200) out.push(...(await Promise.all(Array.from({ length: Math.min(200, n - i) }, open))));
  return out;
}

serve(
  { send: (m) => process.send!(m), on: (e, fn) => process.on(e, fn) },
  {
    async open(args: { url: string; token: string | null; n: number; group: string }) {
      const sockets = await openSockets(args.n, args.url, args.token);
      groups.set(args.group, [...(groups.get(args.group) ?? []), ...sockets]);
      return sockets.length;
    },
    /** The receipt times of event `k` and of its commit's end once `n` sockets have both (or
     *  after 30 s). */
    wait(args: { k: number; n: number }) {
      return receipts.wait(args.k, args.n);
    },
    async close(args: { group: string }) {
      for (const ws of groups.get(args.group) ?? []) ws.terminate();
      groups.delete(args.group);
      receipts.clear();
      await sleep(500);
      return null;
    },
  },
);
process.send!({ ready: true });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
