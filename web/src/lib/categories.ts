/** The shop categories (contract §10) as people read them, in the app's language; the keys
 * are the protocol's. */
import { CATEGORIES, type Category, type UnitCategory } from '@family-shopping/client';
import { t, type MessageKey } from './i18n.ts';

const CATEGORY_KEYS: Record<Category, MessageKey> = {
  produce: 'category.produce',
  bakery: 'category.bakery',
  meat: 'category.meat',
  deli: 'category.deli',
  dairy: 'category.dairy',
  frozen: 'category.frozen',
  pantry: 'category.pantry',
  snacks: 'category.snacks',
  beverages: 'category.beverages',
  household: 'category.household',
  personal_care: 'category.personal_care',
};

/** A category's label ("Personal Care"). */
export const categoryLabel = (key: Category): string => t(CATEGORY_KEYS[key]);

/** Every category in the order of the default sections, with its label. */
export const categoryOptions = () => CATEGORIES.map((key) => ({ key, label: categoryLabel(key) }));

export const isCategory = (v: string): v is Category => (CATEGORIES as readonly string[]).includes(v);

const UNIT_CATEGORY_KEYS: Record<UnitCategory, MessageKey> = {
  Count: 'unitCategory.Count',
  Weight: 'unitCategory.Weight',
  Volume: 'unitCategory.Volume',
};

/** A unit category's label ("Weight"); the protocol's value where it is not one of ours. */
export const unitCategoryLabel = (c: string): string =>
  c in UNIT_CATEGORY_KEYS ? t(UNIT_CATEGORY_KEYS[c as UnitCategory]) : c;
