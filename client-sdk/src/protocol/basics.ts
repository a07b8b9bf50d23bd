/**
 * The rules that need no validation library: the languages (api-contract §12) and the text
 * fields' maximum lengths. Re-exported by rules.ts; a module of their own so that code which
 * needs only these (a sign-in page: `@family-shopping/client/auth` users) bundles no zod.
 */

/** The languages of the app, the emails and the catalog (api-contract §12), as BCP 47 tags.
 *  `user.locale` and `family.locale` hold one of these; English is the fallback of every text. */
export const LOCALES = ['en', 'de', 'fr', 'es', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';
export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/** The best of LOCALES for languages in order of preference (a browser's `navigator.languages`,
 *  a request's `Accept-Language` as negotiated): an exact tag first (`pt-BR`), else the same
 *  language (`de-AT` → `de`, `pt`/`pt-PT` → `pt-BR`); null when none is ours. */
export function bestLocale(languages: readonly string[]): Locale | null {
  const primary = (tag: string) => tag.split(/[-_]/)[0];
  for (const wanted of languages) {
    const tag = wanted.trim().toLowerCase();
    if (!tag) continue;
    const exact = LOCALES.find((l) => l.toLowerCase() === tag);
    if (exact) return exact;
    const same = LOCALES.find((l) => primary(l.toLowerCase()) === primary(tag));
    if (same) return same;
  }
  return null;
}

/** Maximum lengths (code points) of the text fields. */
export const LIMITS = {
  listName: 200,
  itemName: 500,
  storeName: 200,
  sectionName: 200,
  recipeName: 200,
  /** Copied verbatim to list items, so never longer than an item name. */
  ingredientName: 500,
  productName: 200,
  unitName: 100,
  abbreviation: 20,
  unitCode: 50,
  quantityNote: 500,
  instructions: 20_000,
  /** Account fields, checked by the server's auth schemas (server/auth/schemas.ts). */
  userName: 100,
  familyName: 100,
} as const;
