// The peer's server: express-pouchdb (PouchDB 9, memory adapter) in a process of its own, as
// `pouchdb-server --in-memory` would run it. Driven over IPC: start, seed, memory, close.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from './rpc.js';
import { peerRequire, pouchDB } from './peers.js';

const PouchDB = pouchDB().defaults({ adapter: 'memory' });
let server: http.Server | undefined;

serve(
  { send: (m) => process.send!(m), on: (e, fn) => process.on(e, fn) },
  {
    async start() {
      const express = peerRequire('express');
      const app = express();
      app.use(
        '/',
        peerRequire('express-pouchdb')(PouchDB, {
          mode: 'minimumForPouchDB',
          inMemoryConfig: true,
          logPath: '/dev/null',
        }),
      );
      server = http.createServer(app);
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    },
    /** `n` item docs in database `name` (created if needed), in bulkDocs of 1,000. */
    async seed(args: { name: string; n: number; doc: Record<string, unknown> }) {
      const db = new PouchDB(args.name);
      for (let i = 0; i < args.n; i += 1000) {
        const docs = Array.from({ length: Math.min(1000, args.n - i) }, (_, k) => ({
          ...args.doc,
          _id: globalThis.crypto.randomUUID(),
          name: `Item ${i + k}`,
        }));
        await db.bulkDocs(docs);
      }
      return (await db.info()).doc_count;
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
