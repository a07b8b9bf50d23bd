// The RxDB floor's database and replications (workers/rxdb-floor-device.ts and
// workers/rxdb-floor-sync.ts): what RxDB alone costs a device that holds the SDK's data, with no
// SDK code. One RxDB database (memory storage) as the SDK opens it (client-sdk/src/database.ts:
// local documents, one instance, the nine collections with their RxDB schemas from the protocol
// package, RxDB's default conflict handler), each collection replicated with
// `replicateRxCollection` as the SDK sets it up (client-sdk/src/replication.ts: live, pages of
// PULL_LIMIT_MAX, a push handler so RxDB keeps its pull meta; nothing is pushed).
import type { Observable } from 'rxjs';
import {
  addRxPlugin,
  createRxDatabase,
  type RxCollection,
  type RxDatabase,
  type RxReplicationPullStreamItem,
} from 'rxdb';
import { RxDBLocalDocumentsPlugin } from 'rxdb/plugins/local-documents';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { COLLECTIONS, PULL_LIMIT_MAX, rxSchemas, type CollectionName } from '@family-shopping/client/protocol';

addRxPlugin(RxDBLocalDocumentsPlugin);
addRxPlugin(RxDBMigrationSchemaPlugin);

/** RxDB requires a strategy for every schema version above 0; a fresh floor database has no
 *  older docs to migrate, so each keeps the doc as it is. */
const noMigrations = (version: number) =>
  Object.fromEntries(Array.from({ length: version }, (_, i) => [i + 1, (doc: unknown) => doc]));

export interface FloorPull {
  handler: (checkpoint: unknown) => Promise<{ documents: any[]; checkpoint: unknown }>;
  stream$?: Observable<RxReplicationPullStreamItem<any, unknown>>;
}

/** A fresh floor database with the nine collections (not replicated yet). */
export async function openFloorDatabase(): Promise<RxDatabase> {
  const db = await createRxDatabase({
    name: `floor-${globalThis.crypto.randomUUID().slice(0, 12)}`,
    storage: getRxStorageMemory(),
    multiInstance: false,
    localDocuments: true,
  });
  await db.addCollections(
    Object.fromEntries(
      COLLECTIONS.map((c) => [
        c,
        { schema: rxSchemas[c] as never, migrationStrategies: noMigrations(rxSchemas[c].version) },
      ]),
    ),
  );
  return db;
}

/** Starts the nine replications, each pulling through `pull(c)`. */
export function replicateFloor(
  db: RxDatabase,
  pull: (c: CollectionName) => FloorPull,
): RxReplicationState<any, unknown>[] {
  return COLLECTIONS.map((c) =>
    replicateRxCollection<any, unknown>({
      collection: db.collections[c] as RxCollection<any>,
      replicationIdentifier: `floor/${c}`,
      live: true,
      retryTime: 5_000,
      waitForLeadership: false,
      toggleOnDocumentVisible: false,
      autoStart: true,
      pull: { batchSize: PULL_LIMIT_MAX, ...pull(c) },
      push: { batchSize: 100, handler: () => Promise.resolve([]) },
    }),
  );
}
