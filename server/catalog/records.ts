// Row → REST record mapping for the product and unit catalogs, from the protocol's field table
// (server/shared/record-fields.ts). The replication `products` and `units` docs are these records
// plus `_deleted`, so the mappers are shared with sync.
import { CATALOG_KINDS, recordSchemas, type CatalogKind, type DocData } from '@family-shopping/client/protocol';
import { bitsToFlags } from './flags.js';
import { recordMapper } from '../shared/record-fields.js';
import { strOrNull } from '../shared/common.js';
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
  /** The English name of a global product the family did not rename (absent: null). */
  english_name?: string | null;
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

/** A global row's value; `global` is the only kind that has it (`overridden`, `code`). */
const globalOnly =
  <T>(read: (v: unknown) => T, none: T) =>
  (v: unknown, row: { kind?: unknown }): T =>
    row.kind === 'global' ? read(v) : none;

/** Hooks: the flags are stored as bits; `englishName`, `overridden` and `code` are a global
 *  row's alone. */
export const toProduct: (row: EffectiveProductRow) => ProductRecord = recordMapper('products', {
  englishName: globalOnly(strOrNull, null),
  unitCategoryFlags: (v) => bitsToFlags(Number(v)),
  overridden: globalOnly((v) => !!v, false),
});

export const toUnit: (row: EffectiveUnitRow) => UnitRecord = recordMapper('units', {
  code: globalOnly((v) => (v == null ? null : String(v)), null),
});

// Response schemas (OpenAPI documentation of the records above): the protocol's.
export const ProductRecordSchema = named(recordSchemas.products, 'Product');
export const UnitRecordSchema = named(recordSchemas.units, 'Unit');
