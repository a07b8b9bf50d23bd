// Loaders for the reference data files in this folder.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Category, Locale } from '@family-shopping/client/protocol';

const here = path.dirname(fileURLToPath(import.meta.url));

export type UnitCategory = 'Count' | 'Weight' | 'Volume';

export interface SeedUnit {
  code: string;
  name: string;
  abbreviation: string;
  category: UnitCategory;
}

export interface SeedProduct {
  key: string;
  name: string;
  unitCategoryFlags: UnitCategory[];
  /** Every staple has one. */
  category: Category;
}

const read = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(here, file), 'utf8')) as T;

export const loadUnits = (): SeedUnit[] => read<SeedUnit[]>('units.json');
export const loadStapleProducts = (): SeedProduct[] => read<SeedProduct[]>('staple-products.json');
/** The staples' names in every language but English (whose names are in staple-products.json),
 *  by locale, then by staple key (api-contract §12). */
export type ProductNames = Record<Exclude<Locale, 'en'>, Record<string, string>>;
export const loadProductNames = (): ProductNames => read<ProductNames>('product-names.json');
