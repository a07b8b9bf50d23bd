/**
 * The app's language and number rules with no browser or bundler in them (unit-tested in
 * node): which of the five locales (contract §12) a browser's languages stand for, and how a
 * quantity typed in a locale's format is read.
 */
import { DEFAULT_LOCALE, LOCALES, bestLocale, isLocale, type Locale } from '@family-shopping/client/protocol';

export { DEFAULT_LOCALE, LOCALES, isLocale, type Locale };

/** Each language by its own name, as the Account page offers them (the same in every language). */
export const LANGUAGE_NAMES: Record<Locale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
};

/** The best of LOCALES for a browser's preferred languages, in their order: an exact tag first
 * (`pt-BR`), else the same language (`de-AT` → `de`, `pt`/`pt-PT` → `pt-BR`); else English. */
export function matchLocale(languages: readonly string[]): Locale {
  return bestLocale(languages) ?? DEFAULT_LOCALE;
}

/** The number format of quantities: no grouping ("1000 g" as before), up to 3 decimals. */
export const QUANTITY_FORMAT: Intl.NumberFormatOptions = { useGrouping: false, maximumFractionDigits: 3 };

/** One formatter per locale: making one costs far more than using it (a long list formats a
 *  quantity per item). */
const quantityFormats = new Map<Locale, Intl.NumberFormat>();

export function formatQuantity(value: number, locale: Locale): string {
  let f = quantityFormats.get(locale);
  if (!f) quantityFormats.set(locale, (f = new Intl.NumberFormat(locale, QUANTITY_FORMAT)));
  return f.format(value);
}

/**
 * A quantity as typed, in any of the locales' formats: "1,5" and "1.5" are both 1.5 (one
 * separator once is the decimal point, as English users have always been able to type a
 * comma), "1.234,5" and "1,234.5" are 1234.5 (the last separator is the decimal one), "1 234"
 * and "1 234" are 1234. '' (or spaces) is null; anything else NaN.
 */
export function parseQuantity(text: string): number | null {
  const s = text.replace(/[\s\u00a0\u202f']/g, '');
  if (s === '') return null;
  if (!/^\+?[0-9.,]*[0-9][0-9.,]*$/.test(s)) return NaN;
  const digits = s.replace(/^\+/, '');
  const commas = digits.split(',').length - 1;
  const dots = digits.split('.').length - 1;
  let normal: string;
  if (commas > 0 && dots > 0) {
    const decimal = digits.lastIndexOf(',') > digits.lastIndexOf('.') ? ',' : '.';
    const group = decimal === ',' ? '.' : ',';
    const [whole, fraction, extra] = digits.split(decimal);
    if (extra !== undefined || fraction!.includes(group)) return NaN;
    if (!groupedWell(whole!, group)) return NaN;
    normal = `${whole!.split(group).join('')}.${fraction}`;
  } else if (commas + dots === 1) {
    normal = digits.replace(',', '.');
  } else if (commas + dots > 1) {
    const group = commas > 0 ? ',' : '.';
    if (!groupedWell(digits, group)) return NaN;
    normal = digits.split(group).join('');
  } else normal = digits;
  if (normal.startsWith('.')) normal = `0${normal}`;
  if (normal.endsWith('.')) normal = normal.slice(0, -1);
  const n = Number(normal);
  return Number.isFinite(n) ? n : NaN;
}

/** "1.234.567": groups of three after the first (of one to three digits). */
function groupedWell(whole: string, group: string): boolean {
  if (!whole.includes(group)) return /^[0-9]*$/.test(whole);
  const parts = whole.split(group);
  return /^[0-9]{1,3}$/.test(parts[0]!) && parts.slice(1).every((p) => /^[0-9]{3}$/.test(p));
}
