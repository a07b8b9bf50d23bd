// Done shopping (api-contract §10): remove every checked item of a list at once, and undo that
// by restoring many items at once. Each is one family write made of the single removals or
// restores (`removeItem`, `restoreItem`), so the rows and the live events are theirs exactly;
// ListProgress goes out once per list per write, as for every write.
import { restoreItemsInput } from '@family-shopping/client/protocol';
import type { Actor } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import { validationFailed } from '../errors.js';
import { fieldPath, type PathOptions } from '../shared/common.js';
import { removeItem, restoreItem } from './items.js';
import { checkedItemIds, itemIdsOfList } from './queries.js';
import { liveList } from './service.js';
import type { ItemRecord } from './records.js';

export const RestoreItemsBody = restoreItemsInput;

/** Removes every active checked item of the list (oldest first), as single removals do:
 *  removedAt and removedByUserId set, ItemRemoved each, ListProgress. None: `[]`. */
export async function clearChecked(w: FamilyWrite, actor: Actor, listId: string): Promise<ItemRecord[]> {
  await liveList(w, listId);
  const ids = await checkedItemIds(w.trx, w.familyId, listId);
  const items: ItemRecord[] = [];
  for (const id of ids) items.push(await removeItem(w, actor, listId, id));
  return items;
}

/**
 * Restores the items (ids of this list, removed or not) in the order given, each once, as single
 * restores do: removedAt and removedByUserId cleared, ItemRestored each, ListProgress; an item
 * already active is answered unchanged. An id that is not a live item of this list (unknown,
 * another list's, another family's): `400 validation_failed` naming it, and nothing is restored.
 */
export async function restoreItems(
  w: FamilyWrite,
  actor: Actor,
  listId: string,
  itemIds: readonly string[],
  o: PathOptions = {},
): Promise<ItemRecord[]> {
  await liveList(w, listId);
  const ids = itemIds.map((id) => id.toLowerCase());
  const unique = [...new Set(ids)];
  const found = await itemIdsOfList(w.trx, w.familyId, listId, unique);
  const errors = ids.flatMap((id, i) =>
    found.has(id) ? [] : [{ path: fieldPath(o, `itemIds.${i}`), message: 'not an item of this list' }],
  );
  if (errors.length) throw validationFailed(errors, 'Every id must be an item of this list');
  const items: ItemRecord[] = [];
  for (const id of unique) items.push(await restoreItem(w, actor, listId, id));
  return items;
}
