/**
 * The default local storage: IndexedDB (RxDB's Dexie storage) where the runtime has it (a
 * browser, a worker), RxDB's memory storage elsewhere (Node). Both are loaded on demand, so a
 * Node app never loads Dexie and a browser bundle can split the one it does not use.
 */
import type { RxStorage } from 'rxdb';

/** True where IndexedDB exists (browsers, workers). */
export function hasIndexedDb(): boolean {
  return typeof (globalThis as { indexedDB?: unknown }).indexedDB !== 'undefined';
}

export async function defaultStorage(): Promise<RxStorage<any, any>> {
  if (hasIndexedDb()) {
    const { getRxStorageDexie } = await import('rxdb/plugins/storage-dexie');
    return getRxStorageDexie();
  }
  const { getRxStorageMemory } = await import('rxdb/plugins/storage-memory');
  return getRxStorageMemory();
}
