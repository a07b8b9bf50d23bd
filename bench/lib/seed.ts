// Realistic family data for the benchmarks, written through the service's own API: item docs
// and their replication push (500 rows a request), shared by the seeding of read-path and
// web-app and by the push of sync-throughput.
import crypto from 'node:crypto';
import { PUSH_MAX_ROWS, SCHEMA_VERSION, type ItemDoc } from '@family-shopping/client/protocol';
import type { BenchFamily, Service } from './service.js';

/** Rows per push request (the protocol's largest). */
export const PUSH_BATCH = PUSH_MAX_ROWS;

/** The `i`th item doc of a list: quantities, approximate flags and notes vary with `i`. */
export function itemDoc(
  listId: string,
  i: number,
  place: { sectionId?: string | null; checked?: boolean } = {},
): ItemDoc {
  const t = new Date().toISOString();
  return {
    id: crypto.randomUUID(),
    listId,
    name: `Item ${i}`,
    quantity: (i % 7) + 0.5,
    unitOfMeasureId: null,
    familyUnitOfMeasureId: null,
    isApproximate: i % 3 === 0,
    quantityNote: i % 5 === 0 ? 'ripe ones' : null,
    productId: null,
    familyProductId: null,
    sectionId: place.sectionId ?? null,
    checked: place.checked ?? false,
    checkedAt: null,
    removedAt: null,
    removedByUserId: null,
    createdAt: t,
    updatedAt: t,
    _deleted: false,
  };
}

/** The push request bodies of `docs`, PUSH_BATCH rows each. */
export function pushBodies(docs: ItemDoc[]): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < docs.length; i += PUSH_BATCH) {
    bodies.push(JSON.stringify(docs.slice(i, i + PUSH_BATCH).map((d) => ({ newDocumentState: d }))));
  }
  return bodies;
}

/** Sends one push request body of items as `token`; throws unless every row was applied. */
export async function pushItems(baseUrl: string, token: string, body: string): Promise<void> {
  const r = await fetch(`${baseUrl}/api/sync/items/push?schema=${SCHEMA_VERSION}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const json = (await r.json()) as { rejected: unknown[]; conflicts: unknown[] };
  if (r.status !== 200 || json.rejected.length || json.conflicts.length)
    throw new Error(`push: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
}

/** A list of `n` items on a store, placed over its sections, written through push. */
export async function seedList(
  service: Service,
  f: BenchFamily,
  n: number,
): Promise<{ listId: string; storeId: string }> {
  const store = await service.rest(f, 'POST', '/api/stores', { name: `Store ${n}` });
  const list = await service.rest(f, 'POST', '/api/lists', { name: `Detail ${n}`, storeId: store.id });
  const sections = (store.sections as Array<{ id: string }>).map((s) => s.id);
  const docs = Array.from({ length: n }, (_, i) =>
    itemDoc(list.id, i, { sectionId: i % 6 === 5 ? null : sections[i % sections.length]!, checked: i % 4 === 0 }),
  );
  for (const body of pushBodies(docs)) await pushItems(service.url, f.token, body);
  return { listId: list.id, storeId: store.id };
}
