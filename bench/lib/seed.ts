// Realistic family data for the benchmarks, written through the service's own API.
import crypto from 'node:crypto';
import { SCHEMA_VERSION } from '@family-shopping/client/protocol';
import type { BenchFamily, Service } from './service.js';

function itemDoc(listId: string, sectionId: string | null, i: number) {
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
    sectionId,
    checked: i % 4 === 0,
    checkedAt: null,
    removedAt: null,
    removedByUserId: null,
    createdAt: t,
    updatedAt: t,
    _deleted: false,
  };
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
    itemDoc(list.id, i % 6 === 5 ? null : sections[i % sections.length]!, i),
  );
  for (let i = 0; i < n; i += 500) {
    const r = await fetch(`${service.url}/api/sync/items/push?schema=${SCHEMA_VERSION}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(docs.slice(i, i + 500).map((d) => ({ newDocumentState: d }))),
    });
    const body = (await r.json()) as { rejected: unknown[]; conflicts: unknown[] };
    if (r.status !== 200 || body.rejected.length || body.conflicts.length)
      throw new Error(`push: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  return { listId: list.id, storeId: store.id };
}
