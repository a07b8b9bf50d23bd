// One PouchDB device in a worker thread of its own (memory adapter), the peer of sdk-device.ts:
// - a listener live-replicates from the server (PouchDB's defaults) and reports when an item
//   lands in its local database (`arrival` events);
// - the writer live-replicates its local database to the server and puts items into it;
// - `initialSync` times a one-shot replication of the whole server database into a fresh one.
import { parentPort } from 'node:worker_threads';
import { serve } from '../lib/rpc.js';
import { pouchDB } from '../lib/peers.js';

const port = parentPort!;
const now = () => performance.timeOrigin + performance.now();
const PouchDB = pouchDB();
let local: any;
let replication: any;

const fresh = () => new PouchDB(`dev-${globalThis.crypto.randomUUID().slice(0, 12)}`, { adapter: 'memory' });

serve(
  { send: (m) => port.postMessage(m), on: (e, fn) => port.on(e, fn) },
  {
    async open(args: { remoteUrl: string; receiver: boolean }) {
      local = fresh();
      const remote = new PouchDB(args.remoteUrl);
      replication = args.receiver
        ? PouchDB.replicate(remote, local, { live: true, retry: true })
        : PouchDB.replicate(local, remote, { live: true, retry: true });
      // In sync with the server before anything is measured.
      await new Promise<void>((resolve, reject) => {
        replication.once('paused', () => resolve());
        replication.once('error', reject);
      });
      if (args.receiver) {
        local.changes({ live: true, since: 'now' }).on('change', (c: { id: string; deleted?: boolean }) => {
          if (!c.deleted) port.postMessage({ arrival: c.id, t: now() });
        });
      }
      return null;
    },
    mode() {
      return null;
    },
    async write(args: { listId: string; name: string; doc: Record<string, unknown> }) {
      const id = globalThis.crypto.randomUUID();
      const t0 = now();
      await local.put({ _id: id, ...args.doc, id: undefined, listId: args.listId, name: args.name });
      return { id, t0 };
    },
    async initialSync(args: { remoteUrl: string; batchSize: number; expect: number }) {
      const db = fresh();
      const t0 = performance.now();
      await PouchDB.replicate(new PouchDB(args.remoteUrl), db, { batch_size: args.batchSize });
      const ms = performance.now() - t0;
      const count = (await db.info()).doc_count as number;
      await db.destroy();
      return { ms, count };
    },
    async close() {
      replication?.cancel();
      await local?.destroy();
      return null;
    },
  },
);
port.postMessage({ ready: true });
