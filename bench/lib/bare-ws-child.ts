// The baseline of the live fan-out, in a process of its own like the service: a bare `ws`
// server that, on `broadcast`, JSON-encodes the frames the service sends for one write (the
// event, then `Changed`) once and sends them to every connected client. No auth, no groups.
// `broadcastText` sends one frame encoded by the caller to every client (the live-propagation
// floor: a pull-shaped page for the devices' `pull.stream$`).
import { WebSocketServer } from 'ws';
import { serve } from './rpc.js';
import { now } from './common.js';

let wss: WebSocketServer | undefined;

serve(
  { send: (m) => process.send!(m), on: (e, fn) => process.on(e, fn) },
  {
    async start() {
      wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
      await new Promise<void>((r) => wss!.once('listening', () => r()));
      return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}` };
    },
    clients() {
      return wss?.clients.size ?? 0;
    },
    broadcast(args: { listId: string; k: number }) {
      const t0 = now();
      const text = JSON.stringify({
        type: 'ListProgress',
        listId: args.listId,
        itemCount: args.k,
        checkedCount: args.k % 3,
      });
      const changed = JSON.stringify({ type: 'Changed', version: args.k, previous: args.k - 1, collections: [] });
      for (const c of wss!.clients) c.send(text);
      for (const c of wss!.clients) c.send(changed);
      return t0;
    },
    broadcastText(args: { text: string }) {
      for (const c of wss!.clients) c.send(args.text);
      return null;
    },
    /** The process's CPU time so far (user + system), µs. */
    cpu() {
      const c = process.cpuUsage();
      return c.user + c.system;
    },
    async memory() {
      const gc = (globalThis as { gc?: () => void }).gc;
      for (let i = 0; i < 3; i++) {
        gc?.();
        await new Promise((r) => setImmediate(r));
      }
      const m = process.memoryUsage();
      return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
    },
    async close() {
      for (const c of wss?.clients ?? []) c.terminate();
      await new Promise<void>((r) => (wss ? wss.close(() => r()) : r()));
      return null;
    },
  },
);
process.send!({ ready: true });
process.on('disconnect', () => process.exit(0));
// A normal exit on SIGTERM (how the benchmark stops it), so `--cpu-prof` writes its profile.
process.on('SIGTERM', () => process.exit(0));
