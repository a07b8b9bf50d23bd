// The floor of live propagation through RxDB, in a worker thread of its own: what any device
// built on RxDB's replication pays to take a live doc into its local database, with nothing
// else. No SDK code: a bare RxDB database (memory storage) with the SDK's nine collections and
// their schemas from the protocol package, each replicated with `replicateRxCollection` set up
// as the SDK sets it up (live; a push handler, so RxDB keeps the assumed server states; a pull
// handler, here answering an empty page at once; `pull.stream$` for live docs), and a bare `ws`
// socket to a bare broadcast server. No validation, no server logic: each frame the server
// sends is `{ documents, checkpoint }` in the pull shape; the device parses it and hands it to
// the items collection's `pull.stream$`, then reports when that collection emits the insert
// (the `arrival` event of sdk-device.ts, with the time the frame arrived).
import { parentPort } from 'node:worker_threads';
import WebSocket from 'ws';
import { Subject } from 'rxjs';
import type { RxDatabase, RxReplicationPullStreamItem } from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import { openFloorDatabase, replicateFloor } from '../lib/rxdb-floor.js';
import { serve } from '../lib/rpc.js';

const port = parentPort!;
const now = () => performance.timeOrigin + performance.now();
let db: RxDatabase | undefined;
let socket: WebSocket | undefined;
let replications: RxReplicationState<any, unknown>[] = [];
/** Frame arrival times since the last arrival report (sent with it, as sdk-device.ts does). */
let frameTimes: number[] = [];

serve(
  { send: (m) => port.postMessage(m), on: (e, fn) => port.on(e, fn) },
  {
    /** Opens the database, starts the nine replications, waits for their first (empty) pull,
     *  then connects to the broadcast server at `url`. */
    async open(args: { url: string }) {
      db = await openFloorDatabase();
      const stream = new Subject<RxReplicationPullStreamItem<any, unknown>>();
      replications = replicateFloor(db, (c) => ({
        stream$: c === 'items' ? stream.asObservable() : new Subject<never>().asObservable(),
        handler: (checkpoint) => Promise.resolve({ documents: [], checkpoint: checkpoint ?? undefined }),
      }));
      await Promise.all(replications.map((r) => r.awaitInitialReplication()));
      db.collections.items!.$.subscribe((ev: { operation: string; documentId: string }) => {
        if (ev.operation !== 'INSERT') return;
        port.postMessage({ arrival: ev.documentId, t: now(), frames: frameTimes });
        frameTimes = [];
      });
      const ws = new WebSocket(args.url, { perMessageDeflate: false });
      ws.on('message', (data: Buffer) => {
        frameTimes.push(now());
        stream.next(JSON.parse(data.toString()) as RxReplicationPullStreamItem<any, unknown>);
      });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      socket = ws;
      return null;
    },
    async close() {
      socket?.close();
      await Promise.all(replications.map((r) => r.cancel()));
      await db?.close();
      return null;
    },
  },
);
port.postMessage({ ready: true });
