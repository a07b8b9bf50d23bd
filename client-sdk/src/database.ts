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
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { FamilyClientError } from './errors.js';
import { sha256Hex } from './hash.js';
import { dropRxdbAdvert } from './rxdb-notice.js';
import {
  COLLECTIONS,
  conflictHandlerFor,
  rxSchemas,
  type CollectionName,
  type DocData,
  type RefusedRows,
} from './protocol/index.js';

export type FamilyCollections = { [C in CollectionName]: RxCollection<DocData<C>> };
export type FamilyDatabase = RxDatabase<FamilyCollections>;

const OWNER_DOC = 'family-shopping-owner';

type MigrationStrategy = (doc: Record<string, unknown>) => Record<string, unknown>;

/**
 * RxDB migration strategies: `MIGRATIONS[collection][v]` turns a stored doc of local schema
 * version `v - 1` into one of version `v` (a collection's `rxSchemas[c].version` is its highest
 * key). RxDB runs them when the collection opens, on the docs and on the replication's assumed
 * server states alike, and keeps the checkpoints: changes waiting to be pushed stay pending and
 * nothing is pulled again from scratch.
 *
 * Version 1 of sections and products (replication schema 2, api-contract §10): `category`,
 * null until the server says. The server raises the version of every row it gave a category,
 * so the next pull brings the real values.
 *
 * Version 2 of products (replication schema 3, api-contract §12): `englishName`, null until the
 * server says (right for family products; a global product's comes with the next pull). The
 * stored checkpoint was issued at schema 2: its catalog cursor says so, and the server's first
 * pull at schema 3 from it starts the global side over, so every global product comes again
 * with its English name (server/sync/pull.ts; the family side goes on from its cursor).
 */
const addCategory: MigrationStrategy = (doc) => ({ ...doc, category: null });
const addEnglishName: MigrationStrategy = (doc) => ({ ...doc, englishName: null });
export const MIGRATIONS: { readonly [C in CollectionName]?: Readonly<Record<number, MigrationStrategy>> } = {
  sections: { 1: addCategory },
  products: { 1: addCategory, 2: addEnglishName },
};

export interface DatabaseOwner {
  familyId: string;
  userId: string;
  baseUrl: string;
}

/** Database names open in this page (or process): one client per database. */
const OPEN = new Set<string>();

/**
 * Opens the local database. `refused` is shared with the replication: conflicts of rows the
 * server refused revert. `multiInstance`: other tabs of the origin open the same database (RxDB
 * then tells each instance about the others' writes).
 */
export async function openFamilyDatabase(
  name: string,
  storage: RxStorage<any, any>,
  refused: RefusedRows,
  multiInstance: boolean,
): Promise<FamilyDatabase> {
  if (OPEN.has(name)) {
    throw new FamilyClientError(
      'database_in_use',
      `a client of the local database "${name}" is already open in this page: use that client, or close() it first`,
    );
  }
  OPEN.add(name);
  addRxPlugin(RxDBLocalDocumentsPlugin);
  addRxPlugin(RxDBMigrationSchemaPlugin);
  if (storage.name === 'dexie') dropRxdbAdvert();
  let db: FamilyDatabase;
  try {
    // SHA-256 without crypto.subtle: the database opens in any page, secure context or not.
    db = await createRxDatabase<FamilyCollections>({
      name,
      storage,
      multiInstance,
      localDocuments: true,
      hashFunction: sha256Hex,
    });
  } catch (err) {
    OPEN.delete(name);
    throw mapRxError(err, name);
  }
  db.onClose.push(() => OPEN.delete(name));
  try {
    await db.addCollections(
      Object.fromEntries(
        COLLECTIONS.map((c) => [
          c,
          {
            schema: rxSchemas[c] as never,
            migrationStrategies: MIGRATIONS[c] ?? {},
            conflictHandler: pullingServerFields(conflictHandlerFor(c, refused)) as unknown as RxConflictHandler<any>,
          },
        ]),
      ) as never,
    );
  } catch (err) {
    await db.close();
    throw mapRxError(err, name);
  }
  return db;
}

/**
 * The protocol's handler compares client-controlled fields only, which is what a conflict is
 * about. RxDB also asks it whether a pulled doc differs from the local one before writing it
 * (context `downstream-check-if-equal-1`); there every field counts, so what the server stamped
 * (`updatedAt`, `checkedAt`, …) on a doc this device pushed comes back with the pull.
 */
function pullingServerFields<H extends { isEqual(a: any, b: any, context?: string): boolean }>(handler: H): H {
  return {
    ...handler,
    isEqual(a: unknown, b: unknown, context?: string): boolean {
      if (!handler.isEqual(a, b, context)) return false;
      return context !== 'downstream-check-if-equal-1' || sameData(a, b);
    },
  };
}

const RX_META = new Set(['_meta', '_rev', '_attachments']);

/** Deep equality of two documents' data (RxDB's bookkeeping fields aside). */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => sameData(v, bb[i]));
  }
  const ka = Object.keys(a).filter((k) => !RX_META.has(k) && (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => !RX_META.has(k) && (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** RxDB's bare codes of a second client in one page, as errors an app developer can act on. */
function mapRxError(err: unknown, name: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'DB8') {
    return new FamilyClientError('database_in_use', `the local database "${name}" is already open in this page`, {
      cause: err,
    });
  }
  if (code === 'COL23') {
    return new FamilyClientError(
      'too_many_clients',
      'another client is open in this page: RxDB allows 13 collections at a time and a client uses 9; close() the other client first',
      { cause: err },
    );
  }
  return err;
}

export async function readOwner(db: FamilyDatabase): Promise<DatabaseOwner | null> {
  const doc = await db.getLocal<DatabaseOwner>(OWNER_DOC);
  return doc ? (doc.toJSON().data as DatabaseOwner) : null;
}

export async function writeOwner(db: FamilyDatabase, owner: DatabaseOwner): Promise<void> {
  await db.upsertLocal<DatabaseOwner>(OWNER_DOC, owner);
}
