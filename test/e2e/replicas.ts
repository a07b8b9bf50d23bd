// RxDB replicas of one family against the running server: memory storage, the protocol's RxDB
// schemas, RxDB's own replication plugin speaking our pull/push endpoints, and the SDK's conflict
// handler (`conflictHandlerFor`: docsEqual as isEqual, mergeDoc as resolve, refused rows reverted).
import crypto from 'node:crypto';
import { addRxPlugin, createRxDatabase, type RxCollection, type RxDatabase, type RxConflictHandler } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import {
  conflictHandlerFor,
  docsEqual,
  RefusedRows,
  rxSchemas,
  type Checkpoint,
  type CollectionName,
} from '@family-shopping/client/protocol';
import { pull, push, pullAll, type AnyDoc } from '../integration/sync/helpers.js';

export type ReplicaCollections = CollectionName;
/** What most tests replicate. RxDB's open-source build allows 13 open collections per process,
 *  so two replicas of all nine collections cannot share one process. */
const DEFAULT_COLLECTIONS: ReplicaCollections[] = ['lists', 'items'];

export interface Replica {
  name: string;
  /** The collections this replica replicates. */
  replicated: ReplicaCollections[];
  db: RxDatabase;
  collections: Record<ReplicaCollections, RxCollection>;
  replications: Record<ReplicaCollections, RxReplicationState<any, Checkpoint>>;
  /** Stops talking to the server (local writes queue up). */
  goOffline(): Promise<void>;
  /** Talks to the server again and waits until pushed and pulled. */
  goOnline(): Promise<void>;
  /** Pulls what changed on the server and pushes what is pending, until in sync. */
  sync(): Promise<void>;
  docs(collection: ReplicaCollections): Promise<Map<string, AnyDoc>>;
  errors: unknown[];
  /** Every push this replica made (collection and pushed ids), in order. */
  pushes: Array<{ collection: ReplicaCollections; ids: string[] }>;
  remove(): Promise<void>;
}

export async function openReplica(
  app: { url: string },
  token: string,
  name: string,
  COLLECTIONS: ReplicaCollections[] = DEFAULT_COLLECTIONS,
): Promise<Replica> {
  const refused = new RefusedRows();
  // The schemas are past version 0: RxDB asks for its migration plugin (the SDK adds it too,
  // so the file passed only when an SDK test had run before it).
  addRxPlugin(RxDBMigrationSchemaPlugin);
  const db = await createRxDatabase({
    name: `${name}-${crypto.randomUUID().slice(0, 8)}`,
    storage: getRxStorageMemory(),
    multiInstance: false,
  });
  const added = await db.addCollections(
    Object.fromEntries(
      COLLECTIONS.map((c) => [
        c,
        {
          schema: rxSchemas[c] as never,
          conflictHandler: conflictHandlerFor(c, refused) as unknown as RxConflictHandler<any>,
        },
      ]),
    ),
  );
  const errors: unknown[] = [];
  const pushes: Replica['pushes'] = [];
  const replications = {} as Replica['replications'];
  for (const c of COLLECTIONS) {
    const state = replicateRxCollection<any, Checkpoint>({
      collection: added[c]!,
      replicationIdentifier: `family-shopping-${c}-${app.url}`,
      live: true,
      retryTime: 100,
      waitForLeadership: false,
      autoStart: true,
      pull: {
        batchSize: 20,
        handler: async (checkpoint, batchSize) => {
          const r = await pull(app, token, c as CollectionName, checkpoint ?? null, batchSize);
          if (r.status !== 200) throw new Error(`pull ${c}: ${r.status} ${r.text}`);
          return { documents: r.body.documents as never[], checkpoint: r.body.checkpoint ?? undefined };
        },
      },
      push: {
        batchSize: 20,
        handler: async (rows) => {
          const r = await push(
            app,
            token,
            c,
            rows.map((row) => ({
              assumedMasterState: (row.assumedMasterState ?? null) as AnyDoc | null,
              newDocumentState: row.newDocumentState as AnyDoc,
            })),
          );
          if (r.status !== 200) throw new Error(`push ${c}: ${r.status} ${r.text}`);
          // A row naming a record whose own push has not arrived yet (e.g. an item of a list
          // created offline) is neither applied nor reverted: fail the batch so RxDB retries
          // it after retryTime (the rows that were applied are no-ops when re-sent).
          if ((r.body.rejected as { code: string }[]).some((x) => x.code === 'parent_missing')) {
            throw new Error(`push ${c}: waiting for referenced records to be pushed`);
          }
          // As the SDK does: a refused row's returned server state replaces the local change.
          const returned = new Set((r.body.conflicts as AnyDoc[]).map((d) => d.id));
          const refusedIds = (r.body.rejected as { id: string }[]).map((x) => x.id).filter((id) => returned.has(id));
          refused.note(c, refusedIds);
          pushes.push({ collection: c, ids: rows.map((row) => (row.newDocumentState as AnyDoc).id as string) });
          return r.body.conflicts as never[];
        },
      },
    });
    state.error$.subscribe((e) => errors.push(e));
    replications[c] = state;
  }
  const sync = async () => {
    for (const c of COLLECTIONS) {
      replications[c].reSync();
      await replications[c].awaitInSync();
    }
  };
  const replica: Replica = {
    name,
    replicated: COLLECTIONS,
    db,
    collections: added as unknown as Record<ReplicaCollections, RxCollection>,
    replications,
    errors,
    pushes,
    async goOffline() {
      for (const c of COLLECTIONS) await replications[c].pause();
    },
    async goOnline() {
      for (const c of COLLECTIONS) await replications[c].start();
      await sync();
    },
    sync,
    async docs(c) {
      const all = await added[c]!.find().exec();
      return new Map(all.map((d) => [d.primary, { ...(d.toJSON() as object), _deleted: false } as AnyDoc]));
    },
    async remove() {
      for (const c of COLLECTIONS) await replications[c].cancel();
      await db.remove();
    },
  };
  for (const c of COLLECTIONS) await replications[c].awaitInitialReplication();
  return replica;
}

/** The server's live docs of a collection (tombstones left out, as RxDB hides them). */
export async function serverDocs(
  app: { url: string },
  token: string,
  c: ReplicaCollections,
): Promise<Map<string, AnyDoc>> {
  const { docs } = await pullAll(app, token, c, null, 1000);
  return new Map([...docs].filter(([, d]) => !d._deleted));
}

/** Syncs the replicas (twice round, so each sees the other's pushes) until each holds exactly
 *  the server's docs, or fails with the difference. */
export async function converge(
  app: { url: string },
  token: string,
  replicas: Replica[],
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    for (const r of replicas) await r.sync();
    let same = true;
    for (const c of new Set(replicas.flatMap((r) => r.replicated))) {
      const server = await serverDocs(app, token, c);
      for (const r of replicas.filter((x) => x.replicated.includes(c))) {
        const local = await r.docs(c);
        // Client-controlled fields decide equality (RxDB's isEqual is docsEqual): server-stamped
        // fields such as updatedAt do not overwrite a replica whose own write they stamped.
        const differs =
          server.size !== local.size ||
          [...server].some(([id, d]) => !local.has(id) || !docsEqual(c, local.get(id) as never, d as never));
        if (differs) {
          same = false;
          last = `${r.name} ${c}:\nserver ${JSON.stringify([...server.values()])}\nlocal  ${JSON.stringify([...local.values()])}`;
        }
      }
    }
    if (same) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`replicas did not converge to the server's state: ${last}`);
}
