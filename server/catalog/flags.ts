// UnitCategoryFlags: stored as bit flags, exchanged as an array of category names.
import { UNIT_CATEGORIES, type UnitCategory } from '@family-shopping/client/protocol';

export { UNIT_CATEGORIES };
export type UnitCategoryName = UnitCategory;

const BITS: Record<UnitCategoryName, number> = { Count: 1, Weight: 2, Volume: 4 };

export function flagsToBits(flags: readonly UnitCategoryName[]): number {
  return flags.reduce((acc, f) => acc | BITS[f], 0);
}

export function bitsToFlags(bits: number | null | undefined): UnitCategoryName[] {
  const b = Number(bits ?? 0);
  return UNIT_CATEGORIES.filter((c) => (b & BITS[c]) !== 0);
}
