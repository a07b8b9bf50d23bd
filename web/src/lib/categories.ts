/** The shop categories (contract §10) as people read them; the keys are the protocol's. */
import { CATEGORIES, type Category } from '@family-shopping/client';

export const CATEGORY_LABELS: Record<Category, string> = {
  produce: 'Produce',
  bakery: 'Bakery',
  meat: 'Meat & seafood',
  deli: 'Deli',
  dairy: 'Dairy & eggs',
  frozen: 'Frozen',
  pantry: 'Pantry',
  snacks: 'Snacks',
  beverages: 'Beverages',
  household: 'Household',
  personal_care: 'Personal care',
};

/** Every category in the order of the default sections, with its label. */
export const CATEGORY_OPTIONS = CATEGORIES.map((key) => ({ key, label: CATEGORY_LABELS[key] }));

export const isCategory = (v: string): v is Category => (CATEGORIES as readonly string[]).includes(v);
