// Row → REST record mapping for the product and unit catalogs. The replication `products` and
// `units` docs are these records plus `_deleted`, so the mappers are shared with sync.
import {
  CATALOG_KINDS,
  recordSchemas,
  type CatalogKind,
  type Category,
  type DocData,
} from '@family-shopping/client/protocol';
import { bitsToFlags, type UnitCategoryName } from './flags.js';
import { named } from '../openapi/responses.js';

export { CATALOG_KINDS, type CatalogKind };

/** A product as the effective catalog shows it (override applied to global products), and a
 *  unit: the protocol's record shapes. */
export type ProductRecord = DocData<'products'>;
export type UnitRecord = DocData<'units'>;

/**
 * One row of the effective product catalog, as the queries in `queries.ts` select it: a global
 * product with the family's live override folded in (`name`/`unit_category_flags`/`category` already
 * effective, `overridden` true when an override row exists), or a family product.
 */
export interface EffectiveProductRow {
  id: string;
  kind: CatalogKind;
  name: string;
  unit_category_flags: number | string;
  /** The effective shop category (the override's when it sets one), or null (absent: null). */
  category?: string | null;
  overridden: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

/** One row of the effective unit catalog (global `units_of_measure` or `family_units_of_measure`). */
export interface EffectiveUnitRow {
  id: string;
  kind: CatalogKind;
  code: string | null;
  name: string;
  abbreviation: string;
  category: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const iso = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();

export function toProduct(row: EffectiveProductRow): ProductRecord {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    unitCategoryFlags: bitsToFlags(Number(row.unit_category_flags)),
    category: (row.category ?? null) as Category | null,
    overridden: row.kind === 'global' && !!row.overridden,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toUnit(row: EffectiveUnitRow): UnitRecord {
  return {
    id: row.id,
    kind: row.kind,
    code: row.kind === 'global' ? row.code : null,
    name: row.name,
    abbreviation: row.abbreviation,
    category: row.category as UnitCategoryName,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

// Response schemas (OpenAPI documentation of the records above): the protocol's.
export const ProductRecordSchema = named(recordSchemas.products, 'Product');
export const UnitRecordSchema = named(recordSchemas.units, 'Unit');
