/**
 * The local replica: one RxDatabase with the contract's nine collections (RxDB schemas and the
 * protocol's conflict handler), plus one local document that records whose family the data is.
 */
import {
  addRxPlugin,
  createRxDatabase,
  type RxCollection,
  type RxConflictHandler,
  type RxDatabase,
  type RxStorage,
} from 'rxdb';
import { RxDBLocalDocumentsPlugin } from 'rxdb/plugins/local-documents';
import { COLLECTIONS, conflictHandlerFor, rxSchemas, type CollectionName, type DocData, type RefusedRows } from './protocol/index.js';

export type FamilyCollections = { [C in CollectionName]: RxCollection<DocData<C>> };
export type FamilyDatabase = RxDatabase<FamilyCollections>;

const OWNER_DOC = 'family-shopping-owner';

export interface DatabaseOwner {
  familyId: string;
  userId: string;
  baseUrl: string;
}

/** `refused` is shared with the replication: conflicts of rows the server refused revert. */
export async function openFamilyDatabase(
  name: string,
  storage: RxStorage<any, any>,
  refused: RefusedRows,
): Promise<FamilyDatabase> {
  addRxPlugin(RxDBLocalDocumentsPlugin);
  const db = await createRxDatabase<FamilyCollections>({
    name,
    storage,
    // One client per database: replication runs without leader election (a browser app with
    // several tabs should run the client in one of them, e.g. a SharedWorker).
    multiInstance: false,
    localDocuments: true,
  });
  try {
    await db.addCollections(
      Object.fromEntries(
        COLLECTIONS.map((c) => [
          c,
          {
            schema: rxSchemas[c] as never,
            conflictHandler: conflictHandlerFor(c, refused) as unknown as RxConflictHandler<any>,
          },
        ]),
      ) as never,
    );
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

export async function readOwner(db: FamilyDatabase): Promise<DatabaseOwner | null> {
  const doc = await db.getLocal<DatabaseOwner>(OWNER_DOC);
  return doc ? (doc.toJSON().data as DatabaseOwner) : null;
}

export async function writeOwner(db: FamilyDatabase, owner: DatabaseOwner): Promise<void> {
  await db.upsertLocal<DatabaseOwner>(OWNER_DOC, owner);
}
