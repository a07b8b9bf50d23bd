/**
 * Views derived from documents, as pure functions shared by the server's REST presenters and
 * the SDK's domain layer, so `GET /api/lists`, `GET /api/lists/{id}`, `GET /api/products` and
 * `GET /api/units` and the SDK's `lists.summaries$`, `lists.detail$`, `products.search$` and
 * `units.all$` cannot drift apart: same shapes, same order.
 *
 * Also the constants both sides apply when they write: the default sections of a new store and
 * the id of a section-memory row.
 */
import * as z from 'zod/mini';
import { recordSchemas, type DocData } from './docs.js';
import { UNIT_CATEGORIES } from './rules.js';

type ListRecord = DocData<'lists'>;
type ItemRecord = DocData<'items'>;
type SectionRecord = DocData<'sections'>;
type ProductRecord = DocData<'products'>;
type UnitRecord = DocData<'units'>;

/** Created with every new store, in this walking order (positions 0..10). */
export const DEFAULT_SECTIONS = [
  'Produce',
  'Bakery',
  'Meat & Seafood',
  'Deli',
  'Dairy & Eggs',
  'Frozen',
  'Pantry',
  'Snacks',
  'Beverages',
  'Household',
  'Personal Care',
] as const;

/** Name of the last group of a list detail: items without a section. */
export const UNCATEGORIZED = 'Uncategorized';

// --- shapes ------------------------------------------------------------------------------------

const count = () => z.int().check(z.minimum(0));

/** `GET /api/lists` entry: the list with counts of its active (not removed) items. */
export const listSummarySchema = z.object({
  ...recordSchemas.lists.shape,
  itemCount: count(),
  checkedCount: count(),
});
export type ListSummary = z.output<typeof listSummarySchema>;

export const itemGroupSchema = z.object({
  sectionId: z.nullable(z.string()),
  name: z.string(),
  position: z.nullable(z.int()),
  items: z.array(recordSchemas.items),
});
export type ItemGroup = z.output<typeof itemGroupSchema>;

/** `GET /api/lists/{id}`. */
export const listDetailSchema = z.object({
  ...recordSchemas.lists.shape,
  groups: z.array(itemGroupSchema),
});
export type ListDetail = z.output<typeof listDetailSchema>;

// --- orders ------------------------------------------------------------------------------------

const instant = (iso: string) => Date.parse(iso);
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Lists: newest first (createdAt, then id, descending). */
export function compareLists(a: Pick<ListRecord, 'createdAt' | 'id'>, b: Pick<ListRecord, 'createdAt' | 'id'>): number {
  return instant(b.createdAt) - instant(a.createdAt) || byString(b.id, a.id);
}

/** Items within a group: unchecked before checked, then by createdAt, then id. */
export function compareItems(a: ItemRecord, b: ItemRecord): number {
  return Number(a.checked) - Number(b.checked) || instant(a.createdAt) - instant(b.createdAt) || byString(a.id, b.id);
}

/** Sections in walking order: position, then createdAt, then id. */
export function compareSections(a: SectionRecord, b: SectionRecord): number {
  return a.position - b.position || instant(a.createdAt) - instant(b.createdAt) || byString(a.id, b.id);
}

/** An item that is on the list (not removed). */
export const isActiveItem = (item: Pick<ItemRecord, 'removedAt'>) => item.removedAt == null;

// --- lists -------------------------------------------------------------------------------------

/** The summary of one list from its items (any items may be passed; only its active ones count). */
export function listSummary(list: ListRecord, items: readonly ItemRecord[]): ListSummary {
  let itemCount = 0;
  let checkedCount = 0;
  for (const item of items) {
    if (item.listId !== list.id || !isActiveItem(item)) continue;
    itemCount++;
    if (item.checked) checkedCount++;
  }
  return {
    id: list.id,
    name: list.name,
    storeId: list.storeId,
    archivedAt: list.archivedAt,
    itemCount,
    checkedCount,
    createdAt: list.createdAt,
    updatedAt: list.updatedAt,
  };
}

/** `GET /api/lists?archived=`: the archived lists, or the others, newest first. */
export function listSummaries(
  lists: readonly ListRecord[],
  items: readonly ItemRecord[],
  options: { archived?: boolean } = {},
): ListSummary[] {
  const archived = options.archived ?? false;
  const byList = new Map<string, ItemRecord[]>();
  for (const item of items) {
    let bucket = byList.get(item.listId);
    if (!bucket) byList.set(item.listId, (bucket = []));
    bucket.push(item);
  }
  return lists
    .filter((l) => (l.archivedAt != null) === archived)
    .sort(compareLists)
    .map((l) => listSummary(l, byList.get(l.id) ?? []));
}

/**
 * `GET /api/lists/{id}`: the active items grouped by the sections of the list's store in
 * walking order, one group per section holding at least one active item; items without a
 * section (or whose section is not one of the given ones, and every item of a list without a
 * store) in a last group "Uncategorized". Within a group: unchecked before checked, then by
 * createdAt. `sections` are the sections of the list's store (any order); `items` the list's
 * items (removed ones are left out here).
 */
export function listDetail(
  list: ListRecord,
  sections: readonly SectionRecord[],
  items: readonly ItemRecord[],
): ListDetail {
  const ordered = list.storeId == null ? [] : sections.filter((s) => s.storeId === list.storeId).sort(compareSections);
  const bySection = new Map<string, ItemGroup>();
  const groups: ItemGroup[] = ordered.map((s) => {
    const g: ItemGroup = { sectionId: s.id, name: s.name, position: s.position, items: [] };
    bySection.set(s.id, g);
    return g;
  });
  const uncategorized: ItemGroup = { sectionId: null, name: UNCATEGORIZED, position: null, items: [] };
  for (const item of items) {
    if (item.listId !== list.id || !isActiveItem(item)) continue;
    (bySection.get(item.sectionId ?? '') ?? uncategorized).items.push(item);
  }
  const result = groups.filter((g) => g.items.length > 0);
  if (uncategorized.items.length > 0) result.push(uncategorized);
  for (const g of result) g.items.sort(compareItems);
  return {
    id: list.id,
    name: list.name,
    storeId: list.storeId,
    archivedAt: list.archivedAt,
    createdAt: list.createdAt,
    updatedAt: list.updatedAt,
    groups: result,
  };
}

// --- catalog -----------------------------------------------------------------------------------

export const SEARCH_LIMIT_DEFAULT = 50;
export const SEARCH_LIMIT_MAX = 200;

const lower = (s: string) => s.toLowerCase();

/** The names a product is found by: its (effective) name, and its `englishName` (api-contract
 *  §12: the English name of a global product the family did not rename, so a German family
 *  finds "Milch" by "milk" too), lowercased. */
const searchNames = (p: Pick<ProductRecord, 'name' | 'englishName'>) =>
  p.englishName == null || p.englishName === p.name ? [lower(p.name)] : [lower(p.name), lower(p.englishName)];

/**
 * `GET /api/products?q=&limit=`: case-insensitive substring match on the (effective) name or
 * the English name (`englishName`), prefix matches first, then by lowercased name, name and
 * id; an empty or blank `q` lists the whole catalog by name. At most `limit` (default 50).
 * The order is by the name alone, whichever name matched. The server and the SDK's offline
 * `products.search$` apply it to the same records.
 */
export function searchProducts(
  products: readonly ProductRecord[],
  q = '',
  limit = SEARCH_LIMIT_DEFAULT,
): ProductRecord[] {
  const needle = lower(q.trim());
  const matches = needle ? products.filter((p) => searchNames(p).some((n) => n.includes(needle))) : [...products];
  const prefixed = new Set(needle ? matches.filter((p) => searchNames(p).some((n) => n.startsWith(needle))) : []);
  const prefix = (p: ProductRecord) => (prefixed.has(p) ? 0 : 1);
  return matches
    .sort(
      (a, b) =>
        prefix(a) - prefix(b) ||
        byString(lower(a.name), lower(b.name)) ||
        byString(a.name, b.name) ||
        byString(a.id, b.id),
    )
    .slice(0, limit);
}

const categoryRank = (c: string) => {
  const i = (UNIT_CATEGORIES as readonly string[]).indexOf(c);
  return i < 0 ? UNIT_CATEGORIES.length : i;
};

/** `GET /api/units`: global units, then the family's; each part by category (Count, Weight,
 *  Volume), then lowercased name, then id. */
export function sortUnits(units: readonly UnitRecord[]): UnitRecord[] {
  const kindRank = (u: UnitRecord) => (u.kind === 'global' ? 0 : 1);
  return [...units].sort(
    (a, b) =>
      kindRank(a) - kindRank(b) ||
      categoryRank(a.category) - categoryRank(b.category) ||
      byString(lower(a.name), lower(b.name)) ||
      byString(a.id, b.id),
  );
}

// --- derived ids -------------------------------------------------------------------------------

/**
 * A UUID derived from a text: four 32-bit FNV-1a hashes with different seeds (128 bits) laid
 * out as a version-8 UUID. Not a secret and not collision-proof against a crafted input: the
 * server writes a derived id only where the row would be the family's own, and falls back to
 * a random id when another family's row holds it.
 */
export function derivedId(text: string): string {
  const words: string[] = [];
  for (let seed = 0; seed < 4; seed++) {
    let h = (0x811c9dc5 ^ Math.imul(seed + 1, 0x9e3779b1)) >>> 0;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    // A final avalanche so nearby seeds give unrelated words.
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
    words.push((h >>> 0).toString(16).padStart(8, '0'));
  }
  const hex = words.join('');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id of the default section at `position` of a new store: a device that creates a store
 * offline shows its default sections at once, and the server creates the same sections (same
 * ids, names and positions) when the store arrives, so nothing is doubled.
 */
export function defaultSectionId(storeId: string, position: number): string {
  return derivedId(`default-section:${storeId.toLowerCase()}:${position}`);
}

/**
 * The id of the section-memory row of (store, product) when it is first written: a device that
 * remembers a placement offline and the server that applies the same placement later write the
 * same document. (Rows written before this rule keep their ids; a reader takes the most
 * recently updated row of a pair.)
 */
export function sectionMemoryId(
  storeId: string,
  product: { productId?: string | null; familyProductId?: string | null },
): string {
  const key = product.productId ? `p:${product.productId}` : `f:${product.familyProductId ?? ''}`;
  return derivedId(`section-memory:${storeId.toLowerCase()}:${key.toLowerCase()}`);
}
