// Row → REST record mapping for the product and unit catalogs. The replication `products` and
// `units` docs are these records plus `_deleted`, so the mappers are shared with sync.
import { z } from 'zod';
import { bitsToFlags, UNIT_CATEGORIES, type UnitCategoryName } from './flags.js';

export const CATALOG_KINDS = ['global', 'family'] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

/** A product as the effective catalog shows it (override applied to global products). */
export interface ProductRecord {
  id: string;
  kind: CatalogKind;
  name: string;
  unitCategoryFlags: UnitCategoryName[];
  overridden: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface UnitRecord {
  id: string;
  kind: CatalogKind;
  code: string | null;
  name: string;
  abbreviation: string;
  category: UnitCategoryName;
  createdAt: string;
  updatedAt: string;
}

/**
 * One row of the effective product catalog, as the queries in `queries.ts` select it: a global
 * product with the family's live override folded in (`name`/`unit_category_flags` already
 * effective, `overridden` true when an override row exists), or a family product.
 */
export interface EffectiveProductRow {
  id: string;
  kind: CatalogKind;
  name: string;
  unit_category_flags: number | string;
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

// Response schemas (OpenAPI documentation of the records above).
export const UnitCategoryFlagsSchema = z
  .array(z.enum(UNIT_CATEGORIES))
  .max(UNIT_CATEGORIES.length)
  .refine((a) => new Set(a).size === a.length, { message: 'must not repeat a category' })
  .meta({ description: 'Unit categories the product is typically packaged in; [] means no filter (a hint only).' });

export const ProductRecordSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(CATALOG_KINDS),
    name: z.string(),
    unitCategoryFlags: UnitCategoryFlagsSchema,
    overridden: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Product' });

export const UnitRecordSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(CATALOG_KINDS),
    code: z.string().nullable(),
    name: z.string(),
    abbreviation: z.string(),
    category: z.enum(UNIT_CATEGORIES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Unit' });
