// Stores and their sections (walking order). Inner functions take a FamilyWrite `w` and the
// actor and enforce every rule, so REST handlers and the replication push share them; they only
// touch the database through `w`.
import type { Actor, Deps } from '../context.js';
import type { FamilyWrite } from '../db/family-write.js';
import { newId } from '../db/ids.js';
import { conflict, forbidden, notFound, validationFailed } from '../errors.js';
import { existingForCreate, lower, type Created, type Row } from '../shared/common.js';
import { existingRowId } from './queries.js';
import {
  clearItemSections,
  forgetSections,
  maxSectionPosition,
  sectionRow,
  sectionRows,
  shiftSectionsFrom,
  storeByName,
  storeRow,
  storeRows,
} from './queries.js';
import { toSection, toStoreWithSections, type SectionRecord, type StoreWithSections } from './records.js';
import {
  DEFAULT_SECTION_CATEGORIES,
  DEFAULT_SECTIONS,
  defaultSectionId,
  defaultSectionNames,
  type Category,
} from '@family-shopping/client/protocol';
import { familyLocale } from '../catalog/public.js';

/** Created with every new store, in this walking order (positions 0..10), with ids derived from
 *  the store's (the SDK creates the same ones offline) and the categories of
 *  `DEFAULT_SECTION_CATEGORIES`, by position; named in the family's locale
 *  (`defaultSectionNames`; these are the English names). */
export { DEFAULT_SECTIONS };

type ReadDeps = Pick<Deps, 'db'>;

export interface StoreInput {
  id?: string;
  name: string;
}

export interface SectionInput {
  id?: string;
  name: string;
  position?: number;
  /** Absent: null (a section a user adds has no category unless given one). */
  category?: Category | null;
}

export interface SectionPatch {
  name?: string;
  position?: number;
  category?: Category | null;
}

/** Sections are an admin's to change ("Admins can rename, reorder, add and delete sections"),
 *  through REST and replication alike: one refusal, one message. */
export function requireSectionAdmin(actor: Actor): void {
  if (actor.role !== 'admin') throw forbidden('Only a family admin can change store sections');
}

async function liveStore(w: FamilyWrite, storeId: string): Promise<Row> {
  const row = await storeRow(w.trx, w.familyId, storeId);
  if (!row) throw notFound('Store not found');
  return row;
}

async function storeWithSections(
  db: FamilyWrite['trx'] | Deps['db'],
  familyId: string,
  row: Row,
): Promise<StoreWithSections> {
  return toStoreWithSections(row, await sectionRows(db, familyId, [String(row.id)]));
}

async function assertNameFree(w: FamilyWrite, name: string, exceptId?: string): Promise<void> {
  if (await storeByName(w.trx, w.familyId, name, exceptId)) {
    throw conflict('duplicate_name', 'A store with that name already exists');
  }
}

// --- reads ---------------------------------------------------------------------------------

export async function listStores(deps: ReadDeps, actor: Actor): Promise<StoreWithSections[]> {
  const stores = await storeRows(deps.db, actor.familyId);
  const sections = await sectionRows(
    deps.db,
    actor.familyId,
    stores.map((s) => String(s.id)),
  );
  return stores.map((s) =>
    toStoreWithSections(
      s,
      sections.filter((x) => x.store_id === s.id),
    ),
  );
}

export async function getStore(deps: ReadDeps, actor: Actor, storeId: string): Promise<StoreWithSections> {
  const row = await storeRow(deps.db, actor.familyId, storeId);
  if (!row) throw notFound('Store not found');
  return storeWithSections(deps.db, actor.familyId, row);
}

export async function listSections(deps: ReadDeps, actor: Actor, storeId: string): Promise<SectionRecord[]> {
  if (!(await storeRow(deps.db, actor.familyId, storeId))) throw notFound('Store not found');
  return (await sectionRows(deps.db, actor.familyId, [storeId])).map(toSection);
}

// --- stores --------------------------------------------------------------------------------

/** Any member. Creates the store with the default sections (over REST and replication alike). */
export async function createStore(
  w: FamilyWrite,
  _actor: Actor,
  input: StoreInput,
): Promise<Created<StoreWithSections>> {
  const existing = await existingForCreate(w, 'stores', lower(input.id));
  if (existing) return { record: await storeWithSections(w.trx, w.familyId, existing), created: false };
  await assertNameFree(w, input.name);
  const store = await w.insert('stores', { id: lower(input.id) ?? newId(), name: input.name });
  // Named in the family's language (api-contract §12); the categories go by position.
  const names = defaultSectionNames(await familyLocale(w.trx, w.familyId));
  for (const [position, name] of names.entries()) {
    // Derived ids: the sections a device created offline with the store are these very rows. An
    // id already taken (another family's crafted row) falls back to a random one.
    const derived = defaultSectionId(String(store.id), position);
    const id = (await existingRowId(w, 'store_sections', derived)) ? newId() : derived;
    const category = DEFAULT_SECTION_CATEGORIES[position] ?? null;
    await w.insert('store_sections', { id, store_id: store.id, name, position, category });
  }
  return { record: await storeWithSections(w.trx, w.familyId, store), created: true };
}

export async function renameStore(
  w: FamilyWrite,
  _actor: Actor,
  storeId: string,
  patch: { name: string },
): Promise<StoreWithSections> {
  const row = await liveStore(w, storeId);
  if (row.name === patch.name) return storeWithSections(w.trx, w.familyId, row);
  await assertNameFree(w, patch.name, storeId);
  const [updated] = await w.update('stores', { id: storeId, deleted: false }, { name: patch.name });
  return storeWithSections(w.trx, w.familyId, updated!);
}

/** Tombstones the store and its sections and memory; items in its sections lose their section
 *  (ItemSectionChanged). Its lists lose their store in the lists feature, which builds on stores:
 *  call `deleteStoreAndDetachLists` (lists/service.ts), not this alone. */
export async function deleteStore(w: FamilyWrite, _actor: Actor, storeId: string): Promise<void> {
  await liveStore(w, storeId);
  const sections = await sectionRows(w.trx, w.familyId, [storeId]);
  const sectionIds = sections.map((s) => String(s.id));
  await emitSectionCleared(w, await clearItemSections(w, sectionIds));
  await w.tombstone('product_store_sections', { store_id: storeId });
  await w.tombstone('store_sections', { store_id: storeId });
  await w.tombstone('stores', { id: storeId });
}

async function emitSectionCleared(w: FamilyWrite, items: Row[]): Promise<void> {
  for (const i of items) {
    w.emit({
      type: 'ItemSectionChanged',
      listId: String(i.list_id),
      itemId: String(i.id),
      sectionId: null,
      previousSectionId: String(i.section_id),
    });
  }
}

// --- sections (admin only) -----------------------------------------------------------------

/** Appends the section, or inserts it at `position` (later sections move down one). */
export async function createSection(
  w: FamilyWrite,
  actor: Actor,
  storeId: string,
  input: SectionInput,
): Promise<Created<SectionRecord>> {
  requireSectionAdmin(actor);
  await liveStore(w, storeId);
  const existing = await existingForCreate(w, 'store_sections', lower(input.id));
  if (existing) return { record: toSection(existing), created: false };
  const max = await maxSectionPosition(w.trx, w.familyId, storeId);
  const end = max == null ? 0 : max + 1;
  let position = end;
  if (input.position !== undefined && input.position < end) {
    position = input.position;
    await shiftSectionsFrom(w, storeId, position);
  }
  const row = await w.insert('store_sections', {
    id: lower(input.id) ?? newId(),
    store_id: storeId,
    name: input.name,
    position,
    category: input.category ?? null,
  });
  return { record: toSection(row), created: true };
}

/** Sets name, category and/or the raw position (no renumbering: replication pushes each
 *  section's position; REST reorders through `reorderSections`). */
export async function updateSection(
  w: FamilyWrite,
  actor: Actor,
  storeId: string,
  sectionId: string,
  patch: SectionPatch,
): Promise<SectionRecord> {
  requireSectionAdmin(actor);
  await liveStore(w, storeId);
  const row = await sectionRow(w.trx, w.familyId, storeId, sectionId);
  if (!row) throw notFound('Section not found');
  const change: Row = {};
  if (patch.name !== undefined && patch.name !== row.name) change.name = patch.name;
  if (patch.position !== undefined && patch.position !== Number(row.position)) change.position = patch.position;
  if (patch.category !== undefined && patch.category !== (row.category ?? null)) change.category = patch.category;
  if (Object.keys(change).length === 0) return toSection(row);
  const [updated] = await w.update('store_sections', { id: sectionId, deleted: false }, change);
  return toSection(updated!);
}

/** `sectionIds` must be exactly the store's sections; they get positions 0..n-1 in that order. */
export async function reorderSections(
  w: FamilyWrite,
  actor: Actor,
  storeId: string,
  sectionIds: string[],
): Promise<SectionRecord[]> {
  requireSectionAdmin(actor);
  await liveStore(w, storeId);
  const sections = await sectionRows(w.trx, w.familyId, [storeId]);
  const wanted = sectionIds.map((id) => id.toLowerCase());
  const current = new Set(sections.map((s) => String(s.id)));
  const same =
    wanted.length === current.size && new Set(wanted).size === wanted.length && wanted.every((id) => current.has(id));
  if (!same) {
    throw validationFailed([
      { path: 'body.sectionIds', message: "must list exactly the store's section ids, each once" },
    ]);
  }
  const byId = new Map(sections.map((s) => [String(s.id), s]));
  for (const [position, id] of wanted.entries()) {
    if (Number(byId.get(id)!.position) !== position) {
      await w.update('store_sections', { id, deleted: false }, { position });
    }
  }
  return (await sectionRows(w.trx, w.familyId, [storeId])).map(toSection);
}

/** Tombstones the section; its items (removed ones too) survive with sectionId null, and the
 *  memory rows pointing at it are forgotten. */
export async function deleteSection(w: FamilyWrite, actor: Actor, storeId: string, sectionId: string): Promise<void> {
  requireSectionAdmin(actor);
  await liveStore(w, storeId);
  const row = await sectionRow(w.trx, w.familyId, storeId, sectionId);
  if (!row) throw notFound('Section not found');
  await emitSectionCleared(w, await clearItemSections(w, [sectionId]));
  await forgetSections(w, [sectionId]);
  await w.tombstone('store_sections', { id: sectionId });
}
