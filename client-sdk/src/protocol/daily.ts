/**
 * The daily loop's rules (api-contract §10) as pure functions, called by the server's REST
 * routes and replication push and by the SDK's offline domain layer alike, so that an item
 * placed, a suggestion listed, a recipe scaled or merged offline is what the server makes of the
 * same request:
 *
 * - `placeItem`: where a new item with a product goes (explicit → remembered → by category →
 *   none), and whether that placement is remembered;
 * - `buildSuggestions`: a list's suggestions from the family's recent items;
 * - `scaleQuantity`, `addQuantities`: recipe copy for other servings, and a merge into an item;
 * - `findMergeTarget`: the item of the list an ingredient merges into. Only items that were on
 *   the list before the copy are targets (two ingredients of one product and unit both merge into
 *   the same earlier item; a copy never merges into an item it has just added).
 *
 * Depends on zod-free protocol parts only; every caller supplies the rows it read.
 */
import type { DocData } from './docs.js';
import { CATEGORIES, type Category } from './rules.js';

type ItemRecord = DocData<'items'>;

/** The category each default section carries, by position (views.ts `DEFAULT_SECTIONS`). */
export const DEFAULT_SECTION_CATEGORIES: readonly Category[] = CATEGORIES;

const instant = (iso: string) => Date.parse(iso);
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// --- placement ---------------------------------------------------------------------------------

/** A section of the list's store as placement needs it. */
export interface PlacementSection {
  id: string;
  position: number;
  category: Category | null;
  createdAt: string;
}

export interface PlacementInput {
  /** The `sectionId` the caller gave (already checked to be a section of the list's store). */
  sectionId?: string | null | undefined;
  /** The section the list's store remembers for the item's product (section memory), if any. */
  remembered: string | null;
  /** The effective category of the item's product; null without a product or category. */
  productCategory: Category | null;
  /** The sections of the list's store (any order; none when the list has no store). */
  sections: readonly PlacementSection[];
}

export type PlacedBy = 'explicit' | 'memory' | 'category' | 'none';

export interface Placement {
  sectionId: string | null;
  by: PlacedBy;
}

/** Sections in walking order: position, then createdAt, then id (as views.ts `compareSections`). */
function walkingOrder(a: PlacementSection, b: PlacementSection): number {
  return a.position - b.position || instant(a.createdAt) - instant(b.createdAt) || byString(a.id, b.id);
}

/**
 * Placement of a new item (§10): an explicit `sectionId` → else the remembered section → else
 * the first section in walking order of the list's store whose category equals the product's
 * effective category → else none (Uncategorized).
 */
export function placeItem(input: PlacementInput): Placement {
  if (input.sectionId) return { sectionId: input.sectionId, by: 'explicit' };
  if (input.remembered) return { sectionId: input.remembered, by: 'memory' };
  if (input.productCategory != null) {
    const first = [...input.sections].sort(walkingOrder).find((s) => s.category === input.productCategory);
    if (first) return { sectionId: first.id, by: 'category' };
  }
  return { sectionId: null, by: 'none' };
}

/** Whether a placement writes section memory: only an explicit one, of an item with a product on
 *  a list with a store. Placement by category never does (nor, trivially, by memory). */
export function remembersPlacement(
  placement: Placement,
  storeId: string | null,
  product: { productId: string | null; familyProductId: string | null },
): boolean {
  return (
    placement.by === 'explicit' && storeId != null && (product.productId != null || product.familyProductId != null)
  );
}

// --- suggestions -------------------------------------------------------------------------------

export const SUGGESTIONS_LIMIT_DEFAULT = 20;
export const SUGGESTIONS_LIMIT_MAX = 50;
/** Items created within this many days feed the suggestions. */
export const SUGGESTIONS_WINDOW_DAYS = 180;

export interface Suggestion {
  name: string;
  productId: string | null;
  familyProductId: string | null;
  quantity: number | null;
  unitOfMeasureId: string | null;
  familyUnitOfMeasureId: string | null;
  isApproximate: boolean;
  quantityNote: string | null;
  count: number;
  lastAddedAt: string;
}

/** The fields of an item the suggestions read. */
export type SuggestionSource = Pick<
  ItemRecord,
  | 'id'
  | 'listId'
  | 'name'
  | 'productId'
  | 'familyProductId'
  | 'quantity'
  | 'unitOfMeasureId'
  | 'familyUnitOfMeasureId'
  | 'isApproximate'
  | 'quantityNote'
  | 'removedAt'
  | 'createdAt'
>;

/** The group an item belongs to: its product (either id), else its trimmed name, case-insensitively. */
export function suggestionKey(item: Pick<ItemRecord, 'productId' | 'familyProductId' | 'name'>): string {
  if (item.productId != null) return `p:${item.productId}`;
  if (item.familyProductId != null) return `f:${item.familyProductId}`;
  return `n:${item.name.trim().toLowerCase()}`;
}

/** The oldest `createdAt` an item may have to feed the suggestions at `now`. */
export function suggestionsSince(now: Date | string): Date {
  const t = typeof now === 'string' ? Date.parse(now) : now.getTime();
  return new Date(t - SUGGESTIONS_WINDOW_DAYS * 24 * 60 * 60 * 1000);
}

/**
 * The suggestions of list `listId` (§10). `items`: the family's items (not hard-deleted) — at
 * least every item created since `suggestionsSince(now)` and every active item of `listId`;
 * others are ignored. Groups with an active item (checked or not) on `listId` are left out.
 * Order: `count` descending, then `lastAddedAt` descending, then `name`.
 */
export function buildSuggestions(
  items: Iterable<SuggestionSource>,
  listId: string,
  now: Date | string,
  limit: number = SUGGESTIONS_LIMIT_DEFAULT,
): Suggestion[] {
  const since = suggestionsSince(now).getTime();
  const onList = new Set<string>();
  const groups = new Map<string, { newest: SuggestionSource; count: number }>();
  for (const item of items) {
    const key = suggestionKey(item);
    if (item.listId === listId && item.removedAt == null) onList.add(key);
    if (instant(item.createdAt) < since) continue;
    const g = groups.get(key);
    if (!g) groups.set(key, { newest: item, count: 1 });
    else {
      g.count += 1;
      const d = instant(item.createdAt) - instant(g.newest.createdAt);
      if (d > 0 || (d === 0 && item.id > g.newest.id)) g.newest = item;
    }
  }
  const out: Suggestion[] = [];
  for (const [key, { newest: n, count }] of groups) {
    if (onList.has(key)) continue;
    out.push({
      name: n.name,
      productId: n.productId,
      familyProductId: n.familyProductId,
      quantity: n.quantity,
      unitOfMeasureId: n.unitOfMeasureId,
      familyUnitOfMeasureId: n.familyUnitOfMeasureId,
      isApproximate: n.isApproximate,
      quantityNote: n.quantityNote,
      count,
      lastAddedAt: new Date(instant(n.createdAt)).toISOString(),
    });
  }
  out.sort((a, b) => b.count - a.count || instant(b.lastAddedAt) - instant(a.lastAddedAt) || byString(a.name, b.name));
  return out.slice(0, Math.max(0, limit));
}

// --- recipe copy: scale and merge ---------------------------------------------------------------

/** Thousandths of a quantity (quantities have at most 3 decimals). */
const milli = (q: number) => Math.round(q * 1000);

/**
 * A quantity for `servings` from a recipe written for `recipeServings` (§10): multiplied by
 * `servings / recipeServings`, rounded half-up to 3 decimals, in exact integer arithmetic.
 * Equal servings: the quantity verbatim; null stays null.
 */
export function scaleQuantity(quantity: number | null, recipeServings: number, servings: number): number | null {
  if (quantity == null || servings === recipeServings) return quantity;
  const num = milli(quantity) * servings;
  // round half-up of num / recipeServings (num ≥ 0)
  const rounded = Math.floor((2 * num + recipeServings) / (2 * recipeServings));
  return rounded / 1000;
}

/** The sum of two quantities of at most 3 decimals, exact to the thousandth. */
export function addQuantities(a: number, b: number): number {
  return (milli(a) + milli(b)) / 1000;
}

type Pairs = Pick<ItemRecord, 'productId' | 'familyProductId' | 'unitOfMeasureId' | 'familyUnitOfMeasureId'>;

/**
 * The item an ingredient merges into on a copy with `merge: true` (§10): an active unchecked
 * item of the list with the same product ids and unit ids (null = null), the ingredient having a
 * product, both quantities non-null. Several: the oldest (createdAt, then id). None: null.
 * `ingredientQuantity` is the quantity being added (already scaled).
 */
export function findMergeTarget<
  T extends Pairs & Pick<ItemRecord, 'id' | 'quantity' | 'checked' | 'removedAt' | 'createdAt'>,
>(ingredient: Pairs, ingredientQuantity: number | null, listItems: readonly T[]): T | null {
  if (ingredientQuantity == null) return null;
  if (ingredient.productId == null && ingredient.familyProductId == null) return null;
  let best: T | null = null;
  for (const it of listItems) {
    if (it.removedAt != null || it.checked || it.quantity == null) continue;
    if (
      it.productId !== ingredient.productId ||
      it.familyProductId !== ingredient.familyProductId ||
      it.unitOfMeasureId !== ingredient.unitOfMeasureId ||
      it.familyUnitOfMeasureId !== ingredient.familyUnitOfMeasureId
    )
      continue;
    if (!best) best = it;
    else {
      const d = instant(it.createdAt) - instant(best.createdAt);
      if (d < 0 || (d === 0 && it.id < best.id)) best = it;
    }
  }
  return best;
}

/** The fields a merge changes on the target item: the summed quantity and `isApproximate`. */
export function mergedFields(
  item: Pick<ItemRecord, 'quantity' | 'isApproximate'>,
  ingredient: { quantity: number; isApproximate: boolean },
): { quantity: number; isApproximate: boolean } {
  return {
    quantity: addQuantities(item.quantity ?? 0, ingredient.quantity),
    isApproximate: item.isApproximate || ingredient.isApproximate,
  };
}
