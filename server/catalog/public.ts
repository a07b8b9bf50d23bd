// The front door of server/catalog: what other features may use. Import it as
// '../catalog/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { bitsToFlags, flagsToBits, type UnitCategoryName } from './flags.js';
export {
  FAMILY_UNIT_COLUMNS,
  GLOBAL_UNIT_COLUMNS,
  LOCALE_NAME_SQL,
  effectiveGlobalProducts,
  familyLocale,
  globalProductsInFamilyLocale,
} from './queries.js';
export { toProduct, toUnit, type EffectiveProductRow, type EffectiveUnitRow } from './records.js';
export {
  assertProductRef,
  assertUnitRef,
  knownRefs,
  productCategories,
  productCategory,
  productName,
  type KnownRefs,
} from './refs.js';
export {
  clearOverride,
  createFamilyProduct,
  createFamilyUnit,
  deleteFamilyProduct,
  deleteFamilyUnit,
  onFamilyLocaleChanged,
  setOverride,
  updateFamilyProduct,
  updateFamilyUnit,
} from './service.js';
