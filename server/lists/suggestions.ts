// Suggestions of a list (api-contract §10): what the family bought recently and is not on the
// list now. The rule is the protocol's `buildSuggestions` (the SDK computes the same answer
// offline); this module only reads the rows it needs, family-scoped.
import { z } from 'zod';
import {
  SUGGESTIONS_LIMIT_DEFAULT,
  SUGGESTIONS_LIMIT_MAX,
  buildSuggestions,
  recordSchemas,
  suggestionsSince,
  type Suggestion,
  type SuggestionSource,
} from '@family-shopping/client/protocol';
import type { Actor, Deps } from '../context.js';
import { notFound } from '../errors.js';
import { iso, isoOrNull, quantityOut, str, strOrNull, type Row } from '../shared/common.js';
import { listRow, suggestionSourceRows } from './queries.js';

type ReadDeps = Pick<Deps, 'db' | 'clock'>;

export { SUGGESTIONS_LIMIT_DEFAULT, SUGGESTIONS_LIMIT_MAX };

export const SuggestionsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(SUGGESTIONS_LIMIT_MAX)
    .default(SUGGESTIONS_LIMIT_DEFAULT)
    .meta({ description: `How many suggestions at most (default ${SUGGESTIONS_LIMIT_DEFAULT})` }),
});

const item = recordSchemas.items.shape;

/** A suggestion: the fields of the group's newest item, its number of items and newest time. */
export const SuggestionSchema = z
  .object({
    name: item.name,
    productId: item.productId,
    familyProductId: item.familyProductId,
    quantity: item.quantity,
    unitOfMeasureId: item.unitOfMeasureId,
    familyUnitOfMeasureId: item.familyUnitOfMeasureId,
    isApproximate: item.isApproximate,
    quantityNote: item.quantityNote,
    count: z.int().min(1).meta({ description: 'Items of the group created in the last 180 days' }),
    lastAddedAt: item.createdAt, // the `createdAt` of the group's newest item
  })
  .meta({
    description:
      'Something the family added recently (grouped by product, else by trimmed case-insensitive name) that is not on the list',
  });

// The schema documents exactly the protocol's shape.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const shapeMatches: Same<z.output<typeof SuggestionSchema>, Suggestion> = true;
void shapeMatches;

const COLUMNS = [
  'id',
  'list_id',
  'name',
  'product_id',
  'family_product_id',
  'quantity',
  'unit_of_measure_id',
  'family_unit_of_measure_id',
  'is_approximate',
  'quantity_note',
  'removed_at',
  'created_at',
] as const;

function toSource(row: Row): SuggestionSource {
  return {
    id: str(row.id),
    listId: str(row.list_id),
    name: str(row.name),
    productId: strOrNull(row.product_id),
    familyProductId: strOrNull(row.family_product_id),
    quantity: quantityOut(row.quantity),
    unitOfMeasureId: strOrNull(row.unit_of_measure_id),
    familyUnitOfMeasureId: strOrNull(row.family_unit_of_measure_id),
    isApproximate: !!row.is_approximate,
    quantityNote: strOrNull(row.quantity_note),
    removedAt: isoOrNull(row.removed_at),
    createdAt: iso(row.created_at),
  };
}

/**
 * `GET /api/lists/{listId}/suggestions`: the family's items (not tombstoned) created since
 * `suggestionsSince(now)` on any list, removed ones included, plus the active items of this list
 * (which leave their groups out), handed to `buildSuggestions`. A list that is not a live list of
 * the family: 404.
 */
export async function listSuggestions(
  deps: ReadDeps,
  actor: Actor,
  listId: string,
  limit: number,
): Promise<Suggestion[]> {
  if (!(await listRow(deps.db, actor.familyId, listId))) throw notFound('List not found');
  const now = deps.clock.now();
  const rows = await suggestionSourceRows(deps.db, actor.familyId, listId, suggestionsSince(now), COLUMNS);
  return buildSuggestions(rows.map(toSource), listId, now, limit);
}
