// One SDK device in a worker thread of its own (RxDB memory storage, the `ws` WebSocket), driven
// by the live-propagation and initial-sync benchmarks over the thread's message port:
// - a receiver reports when an item lands in its local database (`arrival` events);
// - the writer adds items through the SDK and answers the time it called it;
// - `initialSync` times a fresh database from start() to holding every expected item.
// `stripDocs` turns this device's live channel into one whose `Changed` frames carry no `docs`
// (what the server sends above the live-patch bound), so the same devices measure propagation
// with and without live patches.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import {
  createFamilyClient,
  newDoc,
  type FamilyClient,
  type Session,
  type WebSocketConstructor,
} from '@family-shopping/client';
import { serve } from '../lib/rpc.js';

const port = parentPort!;
const now = () => performance.timeOrigin + performance.now();
let stripDocs = false;
/** Changed frames that carried docs (before any stripping). */
let patched = 0;
let client: FamilyClient | undefined;
/** A receiver also reports when each `Changed` frame arrives (the split: push + commit + frame,
 *  then applying it), with its next arrival: one message per arrival, as a PouchDB listener
 *  sends (a message of its own would cost the device and the bench's thread a wake-up more). */
let receiving = false;
let frameTimes: number[] = [];

/** `ws` with an `onmessage` that drops `docs` from Changed frames while `stripDocs` is on. */
class BenchWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    const own = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage')!;
    Object.defineProperty(this, 'onmessage', {
      get: () => own.get!.call(this),
      set: (fn: ((ev: WebSocket.MessageEvent) => void) | null) =>
        own.set!.call(
          this,
          fn &&
            ((ev: WebSocket.MessageEvent) => {
              const text = String(ev.data);
              if (receiving && text.includes('"Changed"')) frameTimes.push(now());
              if (text.includes('"docs"')) patched++;
              fn(stripDocs ? withoutDocs(ev) : ev);
            }),
        ),
    });
  }
}

function withoutDocs(ev: WebSocket.MessageEvent): WebSocket.MessageEvent {
  const text = String(ev.data);
  if (!text.includes('"docs"')) return ev;
  const frame = JSON.parse(text) as { type?: string; docs?: unknown };
  if (frame.type !== 'Changed') return ev;
  delete frame.docs;
  return { ...ev, data: JSON.stringify(frame) } as WebSocket.MessageEvent;
}

async function open(baseUrl: string, session: Session, realtime = true): Promise<FamilyClient> {
  return createFamilyClient({
    baseUrl,
    session,
    storage: getRxStorageMemory(),
    databaseName: `bench-${globalThis.crypto.randomUUID().slice(0, 12)}`,
    WebSocket: BenchWebSocket as unknown as WebSocketConstructor,
    realtime,
  });
}

serve(
  { send: (m) => port.postMessage(m), on: (e, fn) => port.on(e, fn) },
  {
    /** Opens, starts and syncs; a receiver then reports every item inserted into its database. */
    async open(args: { baseUrl: string; session: Session; receiver: boolean }) {
      client = await open(args.baseUrl, args.session);
      await client.start();
      await client.awaitInSync();
      if (args.receiver) {
        receiving = true;
        client.db.items.$.subscribe((ev: { operation: string; documentId: string }) => {
          if (ev.operation !== 'INSERT') return;
          port.postMessage({ arrival: ev.documentId, t: now(), frames: frameTimes });
          frameTimes = [];
        });
      }
      return null;
    },
    stats() {
      return { patched };
    },
    mode(args: { stripDocs: boolean }) {
      stripDocs = args.stripDocs;
      return null;
    },
    /** Adds an item through the SDK (the domain call when the SDK has it, else a local insert). */
    async write(args: { listId: string; name: string }) {
      const c = client!;
      const t0 = now();
      const items = (
        c as unknown as { items?: { add?: (listId: string, input: { name: string }) => Promise<{ id: string }> } }
      ).items;
      const doc = items?.add
        ? await items.add(args.listId, { name: args.name })
        : (await c.db.items.insert(newDoc('items', { listId: args.listId, name: args.name }))).toJSON();
      return { id: doc.id, t0 };
    },
    /** A fresh database: ms from start() until it holds `expect` items and is in sync. */
    async initialSync(args: { baseUrl: string; session: Session; expect: number }) {
      const c = await open(args.baseUrl, args.session, false);
      const t0 = performance.now();
      await c.start();
      await c.awaitInSync();
      let count = await c.db.items.count().exec();
      while (count < args.expect) {
        await new Promise((r) => setTimeout(r, 5));
        count = await c.db.items.count().exec();
      }
      const ms = performance.now() - t0;
      await c.destroy();
      return { ms, count };
    },
    async close() {
      await client?.destroy();
      client = undefined;
      return null;
    },
  },
);
port.postMessage({ ready: true });
void workerData;
