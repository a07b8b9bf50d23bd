// In-page part of bench/browser-initial-sync.ts (bundled by esbuild into one script, injected
// into a page): the two systems the SDK is measured against, each writing 10,000 items into
// IndexedDB in Chromium.
// - floor: RxDB with its Dexie storage (the SDK's storage in a browser), one collection with the
//   SDK's items schema from the protocol package, the docs handed in bulk-inserted at once;
// - replication: the same database and docs, but through RxDB's replication (what the SDK's
//   pulls go through), its pull handler answering pages of PULL_LIMIT_MAX from memory;
// - pouch: PouchDB 9 (`pouchdb-browser`: the IndexedDB adapter, HTTP, replication) replicating a
//   database of the peer server into a fresh local one with a given batch_size. PouchDB comes
//   from bench/peers in a script of its own (`window.PouchDB`, see browser-initial-sync.ts).
import { createRxDatabase, type RxCollection } from 'rxdb';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { PULL_LIMIT_MAX, rxSchemas } from '@family-shopping/client/protocol';

export interface Timed {
  /** Milliseconds from the clock's start until the docs were written. */
  ms: number;
  /** Docs in the local database at the end. */
  count: number;
}

const pouchDB = (): any => (globalThis as unknown as { PouchDB: unknown }).PouchDB;
const fresh = (prefix: string) => `${prefix}-${globalThis.crypto.randomUUID().slice(0, 12)}`;

const page = {
  /** Clock: from `bulkInsert` called (database and collection open) until it resolved. */
  async floor(docs: Record<string, unknown>[]): Promise<Timed> {
    const db = await createRxDatabase({ name: fresh('floor'), storage: getRxStorageDexie(), multiInstance: false });
    await db.addCollections({ items: { schema: rxSchemas.items as never } });
    const t0 = performance.now();
    const r = await db.items!.bulkInsert(docs);
    const ms = performance.now() - t0;
    if (r.error.length > 0) throw new Error(`floor: ${r.error.length} docs refused (${JSON.stringify(r.error[0])})`);
    const count = await db.items!.count().exec();
    await db.close();
    return { ms, count };
  },
  /** Clock: from `replicateRxCollection` (database and collection open) until in sync. */
  async replication(docs: Record<string, unknown>[]): Promise<Timed> {
    const db = await createRxDatabase({ name: fresh('floor'), storage: getRxStorageDexie(), multiInstance: false });
    await db.addCollections({ items: { schema: rxSchemas.items as never } });
    const t0 = performance.now();
    const state = replicateRxCollection<any, { at: number }>({
      collection: db.items as RxCollection<any>,
      replicationIdentifier: 'floor/items',
      live: true,
      waitForLeadership: false,
      toggleOnDocumentVisible: false,
      pull: {
        batchSize: PULL_LIMIT_MAX,
        handler: (checkpoint) => {
          // An object: RxDB merges a batch's checkpoint into the one before.
          const at = checkpoint?.at ?? 0;
          const documents = docs.slice(at, at + PULL_LIMIT_MAX).map((d) => ({ ...d, _deleted: false }));
          return Promise.resolve({ documents, checkpoint: { at: at + documents.length } });
        },
      },
      push: { batchSize: 100, handler: () => Promise.resolve([]) },
    });
    await state.awaitInSync();
    const ms = performance.now() - t0;
    await state.cancel();
    const count = await db.items!.count().exec();
    await db.close();
    return { ms, count };
  },
  /** Clock: from `replicate()` called (local database created) until the one-shot replication
   *  completed. */
  async pouch(remote: string, batchSize: number): Promise<Timed> {
    const PouchDB = pouchDB();
    const db = new PouchDB(fresh('items'));
    await db.info();
    const t0 = performance.now();
    const r = await PouchDB.replicate(remote, db, { batch_size: batchSize });
    const ms = performance.now() - t0;
    if (!r.ok) throw new Error(`pouch: replication failed (${JSON.stringify(r.errors)})`);
    const count = (await db.info()).doc_count;
    await db.close();
    return { ms, count };
  },
};

export type BrowserSyncPage = typeof page;
(globalThis as unknown as { bench: BrowserSyncPage }).bench = page;
