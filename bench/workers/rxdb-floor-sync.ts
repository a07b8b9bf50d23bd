// The RxDB floor of the initial-sync benchmark, in a worker thread of its own: what RxDB
// (memory storage) and Node's `fetch` alone cost for the SDK's initial sync, with no SDK code.
// One RxDB database holding the SDK's nine collections with the SDK's own RxDB schemas (from the
// protocol package), each replicated with `replicateRxCollection` configured as the SDK does
// (live, pull pages of 1,000, a push handler so RxDB keeps its pull meta; nothing is pushed).
// The pull handler asks a bare HTTP server (lib/pages-child.ts) for the URL the SDK would ask the
// service for and hands RxDB the parsed page as is: no validation, no retry, no prefetch, no
// tracking. The server answers the service's own pages, captured beforehand.
import { parentPort } from 'node:worker_threads';
import { PULL_LIMIT_MAX, pullUrl, type Checkpoint } from '@family-shopping/client/protocol';
import { openFloorDatabase, replicateFloor } from '../lib/rxdb-floor.js';
import { serve } from '../lib/rpc.js';

const port = parentPort!;

serve(
  { send: (m) => port.postMessage(m), on: (e, fn) => port.on(e, fn) },
  {
    /** A fresh database: ms from starting the replications until the items collection holds
     *  `expect` docs and every replication is in sync. */
    async initialSync(args: { baseUrl: string; expect: number }) {
      const db = await openFloorDatabase();
      const t0 = performance.now();
      const states = replicateFloor(db, (c) => ({
        handler: async (checkpoint) => {
          const res = await fetch(args.baseUrl + pullUrl(c, checkpoint as Checkpoint | null, PULL_LIMIT_MAX), {
            headers: { accept: 'application/json, application/problem+json' },
          });
          if (!res.ok)
            throw new Error(`${c}: ${res.status} for ${pullUrl(c, checkpoint as Checkpoint | null, PULL_LIMIT_MAX)}`);
          const body = JSON.parse(await res.text()) as { documents: any[]; checkpoint: unknown };
          return { documents: body.documents, checkpoint: body.checkpoint ?? checkpoint ?? undefined };
        },
      }));
      // An error (a URL the server does not know) ends the attempt: RxDB would retry forever.
      const failed = new Promise<never>((_, reject) => {
        for (const s of states) s.error$.subscribe((e) => reject(new Error(`replication error: ${String(e)}`)));
      });
      try {
        await Promise.race([Promise.all(states.map((s) => s.awaitInSync())), failed]);
        const items = db.collections.items!;
        let count = await items.count().exec();
        while (count < args.expect) {
          await Promise.race([new Promise((r) => setTimeout(r, 5)), failed]);
          count = await items.count().exec();
        }
        return { ms: performance.now() - t0, count };
      } finally {
        failed.catch(() => undefined);
        await Promise.all(states.map((s) => s.cancel()));
        await db.remove();
      }
    },
  },
);
port.postMessage({ ready: true });
