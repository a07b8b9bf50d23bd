// The baselines of the read path, in a process of their own like the service: a bare Koa app
// that answers fixed paths with given JSON bodies (Koa encodes them on every request, as the
// service encodes its answers), nothing else: no auth, no database.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { serve } from './rpc.js';

let server: http.Server | undefined;
const bodies = new Map<string, unknown>();

serve(
  { send: (m) => process.send!(m), on: (e, fn) => process.on(e, fn) },
  {
    async start() {
      const app = new Koa();
      app.use(async (ctx) => {
        if (!bodies.has(ctx.path)) {
          ctx.status = 404;
          return;
        }
        ctx.body = bodies.get(ctx.path);
      });
      server = http.createServer(app.callback());
      server.keepAliveTimeout = 5_000;
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    },
    body(args: { path: string; body: unknown }) {
      bodies.set(args.path, args.body);
      return null;
    },
    async close() {
      server?.closeAllConnections();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      return null;
    },
  },
);
process.send!({ ready: true });
process.on('disconnect', () => process.exit(0));
