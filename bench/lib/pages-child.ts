// The RxDB floor's server (initial-sync.ts): a bare node:http server in a process of its own
// that answers each request URL with a body it was given, as is, from memory: no auth, no
// database, no JSON encoding. The bodies are the service's own pull pages, captured once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from './rpc.js';

let server: http.Server | undefined;
const pages = new Map<string, Buffer>();
let served = 0;
let missed: string[] = [];

serve(
  { send: (m) => process.send!(m), on: (e, fn) => process.on(e, fn) },
  {
    async start() {
      server = http.createServer((req, res) => {
        const body = pages.get(req.url ?? '');
        if (!body) {
          missed.push(req.url ?? '');
          res.writeHead(404, { 'content-type': 'application/problem+json' });
          res.end('{"type":"about:blank","title":"Not Found","status":404}');
          return;
        }
        served++;
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
        res.end(body);
      });
      server.keepAliveTimeout = 5_000;
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    },
    /** The body answered for the request URL `url` (path and query, as the request line has it). */
    page(args: { url: string; body: string }) {
      pages.set(args.url, Buffer.from(args.body, 'utf8'));
      return null;
    },
    /** Requests answered and URLs not known since the last call. */
    stats() {
      const out = { served, missed };
      served = 0;
      missed = [];
      return out;
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
