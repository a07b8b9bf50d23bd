// Replication clients for the tests: pull/push over HTTP exactly as the SDK speaks them.
import crypto from 'node:crypto';
import { request, type HttpResult } from '../../helpers/app.js';
import {
  SCHEMA_VERSION,
  encodeCheckpoint,
  type Checkpoint,
  type CollectionName,
} from '@family-shopping/client/protocol';

export type AnyDoc = Record<string, any> & { id: string; _deleted: boolean };
export interface PullBody {
  code?: string;
  documents: AnyDoc[];
  checkpoint: Checkpoint | null;
}
export interface PushBody {
  code?: string;
  conflicts: AnyDoc[];
  rejected: Array<{ id: string; code: string; message: string }>;
}

export const uuid = () => crypto.randomUUID();
export const nowIso = () => new Date().toISOString();

export function pull(
  app: { url: string },
  token: string,
  collection: CollectionName | string,
  checkpoint: Checkpoint | null = null,
  limit?: number,
  schema = SCHEMA_VERSION,
): Promise<HttpResult<PullBody>> {
  let path = `/api/sync/${collection}/pull?schema=${schema}`;
  if (checkpoint) path += `&checkpoint=${encodeCheckpoint(checkpoint)}`;
  if (limit !== undefined) path += `&limit=${limit}`;
  return request<PullBody>(app, 'GET', path, { token });
}

export function push(
  app: { url: string },
  token: string,
  collection: CollectionName | string,
  rows: Array<{ assumedMasterState?: AnyDoc | null; newDocumentState: AnyDoc }>,
  schema = SCHEMA_VERSION,
): Promise<HttpResult<PushBody>> {
  return request<PushBody>(app, 'POST', `/api/sync/${collection}/push?schema=${schema}`, { token, body: rows });
}

/** Pulls pages until the end; returns the latest doc per id and the last checkpoint. */
export async function pullAll(
  app: { url: string },
  token: string,
  collection: CollectionName,
  checkpoint: Checkpoint | null = null,
  limit = 100,
  schema = SCHEMA_VERSION,
): Promise<{ docs: Map<string, AnyDoc>; checkpoint: Checkpoint | null; pages: number }> {
  const docs = new Map<string, AnyDoc>();
  let cp = checkpoint;
  let pages = 0;
  for (;;) {
    const r = await pull(app, token, collection, cp, limit, schema);
    if (r.status !== 200) throw new Error(`pull ${collection}: ${r.status} ${r.text}`);
    pages++;
    for (const d of r.body.documents) docs.set(d.id, d);
    cp = r.body.checkpoint;
    if (r.body.documents.length < limit) break;
  }
  return { docs, checkpoint: cp, pages };
}

export function listDoc(over: Partial<AnyDoc> = {}): AnyDoc {
  const t = nowIso();
  return {
    id: uuid(),
    name: 'Groceries',
    storeId: null,
    archivedAt: null,
    createdAt: t,
    updatedAt: t,
    _deleted: false,
    ...over,
  };
}

export function itemDoc(listId: string, over: Partial<AnyDoc> = {}): AnyDoc {
  const t = nowIso();
  return {
    id: uuid(),
    listId,
    name: 'Milk',
    quantity: null,
    unitOfMeasureId: null,
    familyUnitOfMeasureId: null,
    isApproximate: false,
    quantityNote: null,
    productId: null,
    familyProductId: null,
    sectionId: null,
    checked: false,
    checkedAt: null,
    removedAt: null,
    removedByUserId: null,
    createdAt: t,
    updatedAt: t,
    _deleted: false,
    ...over,
  };
}

export function storeDoc(over: Partial<AnyDoc> = {}): AnyDoc {
  const t = nowIso();
  return { id: uuid(), name: `Store ${uuid().slice(0, 8)}`, createdAt: t, updatedAt: t, _deleted: false, ...over };
}

export function sectionDoc(storeId: string, over: Partial<AnyDoc> = {}): AnyDoc {
  const t = nowIso();
  return {
    id: uuid(),
    storeId,
    name: 'Aisle 9',
    position: 20,
    category: null,
    createdAt: t,
    updatedAt: t,
    _deleted: false,
    ...over,
  };
}

/** The family's version counter (read straight from the database). */
export async function familyVersion(app: { deps: { db: any } }, familyId: string): Promise<number> {
  const row = await app.deps.db('family_counters').where({ family_id: familyId }).first('version');
  return Number(row.version);
}
