/**
 * The app's messages (contract §12): one ICU catalog per locale in `src/locales/<tag>.json`
 * (flat keys), formatted with intl-messageformat. English is bundled; every other catalog is a
 * chunk of its own, loaded when chosen, so an English user downloads no other language.
 *
 * The language: the user's choice (stored with the user, `user.locale` in the session; or made
 * on this device while offline, until it is saved), else the browser's best match, else English.
 * `t` reads the current catalog; the shell re-renders the whole app when the language changes
 * (`useLocale`), so pages call `t` plainly.
 */
import { IntlMessageFormat, type Formatters } from 'intl-messageformat';
import { BehaviorSubject } from 'rxjs';
import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import en from '../locales/en.json';
import { DEFAULT_LOCALE, formatQuantity, isLocale, matchLocale, parseQuantity, type Locale } from './locale.ts';

export type MessageKey = keyof typeof en;
export type Messages = Record<MessageKey, string>;
export type MessageValues = Record<string, string | number | Date>;

/** Every catalog but English, each its own chunk (a file added here is a language added). */
const LOADERS = import.meta.glob<{ default: Partial<Messages> }>(['../locales/*.json', '!../locales/en.json']);

function loaderOf(locale: Locale) {
  return LOADERS[`../locales/${locale}.json`];
}

const catalogs = new Map<Locale, Partial<Messages>>([[DEFAULT_LOCALE, en]]);

/** What formats one message: an IntlMessageFormat, or the text itself (no ICU syntax in it). */
type Format = Pick<IntlMessageFormat, 'format'>;
const formats = new Map<string, Format>();

// The first screen formats dozens of messages; by default each IntlMessageFormat asks ICU again
// which locale it speaks (`Intl.NumberFormat.supportedLocalesOf`) and makes formatters of its
// own. Ours are always one of LOCALES: each is resolved once, and the formatters are shared.
const resolveLocale = IntlMessageFormat.resolveLocale;
const resolved = new Map<string, Intl.Locale | undefined>();
IntlMessageFormat.resolveLocale = (locales) => {
  const key = String(locales);
  if (!resolved.has(key)) resolved.set(key, resolveLocale(locales));
  return resolved.get(key);
};

function memo<A extends unknown[], T>(make: (...args: A) => T): (...args: A) => T {
  const made = new Map<string, T>();
  return (...args) => {
    const key = JSON.stringify(args);
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(...args)));
    return value;
  };
}

const formatters: Formatters = {
  getNumberFormat: memo((locales, options) => new Intl.NumberFormat(locales, options)),
  getDateTimeFormat: memo((locales, options) => new Intl.DateTimeFormat(locales, options)),
  getPluralRules: memo((locales, options) => new Intl.PluralRules(locales, options)),
};

/** No argument, tag, plural or quote: the message is its text (no ICU parse needed). */
const PLAIN = /^[^{}<>']*$/;

/** The language the app speaks now (its catalog is loaded). */
export const locale$ = new BehaviorSubject<Locale>(DEFAULT_LOCALE);

export function locale(): Locale {
  return locale$.value;
}

/** The message `key` in the current language (English where a catalog lacks it). */
export function t(key: MessageKey, values?: MessageValues): string {
  return String(formatOf(key).format(values));
}

/** A message with tags (`<link>Sign in</link>`) rendered by the caller's functions. */
export function tRich(
  key: MessageKey,
  values: Record<string, string | number | ((chunks: ComponentChildren[]) => VNode)>,
): ComponentChildren {
  return formatOf(key).format<VNode>(values as never) as ComponentChildren;
}

function formatOf(key: MessageKey): Format {
  const current = locale$.value;
  const own = catalogs.get(current)?.[key];
  const lang = own !== undefined ? current : DEFAULT_LOCALE;
  const id = `${lang}\u0000${current}\u0000${key}`;
  let format = formats.get(id);
  if (!format) {
    const message = own ?? en[key] ?? key;
    format = PLAIN.test(message)
      ? { format: () => message }
      : new IntlMessageFormat(message, current, undefined, { formatters });
    formats.set(id, format);
  }
  return format;
}

/** The browser's language among ours. */
export function browserLocale(): Locale {
  if (typeof navigator === 'undefined') return DEFAULT_LOCALE;
  return matchLocale(navigator.languages?.length ? navigator.languages : [navigator.language]);
}

let latest = 0;

/** Loads `wanted`'s catalog (English if it has none or cannot load) and speaks it, unless a
 * later call asked for another language meanwhile (the latest wins). */
export async function speak(wanted: Locale): Promise<Locale> {
  const call = ++latest;
  let next = wanted;
  if (!catalogs.has(next)) {
    const load = loaderOf(next);
    try {
      if (!load) throw new Error(`no catalog for ${next}`);
      catalogs.set(next, (await load()).default);
    } catch {
      next = DEFAULT_LOCALE; // e.g. offline with no cached chunk: English rather than nothing
    }
  }
  if (call !== latest) return locale$.value;
  if (typeof document !== 'undefined') document.documentElement.lang = next;
  if (locale$.value !== next) locale$.next(next);
  return next;
}

/** The language for a stored choice (`null`: the browser's). */
export function effectiveLocale(choice: Locale | null | undefined): Locale {
  return choice && isLocale(choice) ? choice : browserLocale();
}

/** The current language, re-rendering the caller when it changes. */
export function useLocale(): Locale {
  const [value, setValue] = useState(locale$.value);
  useEffect(() => {
    const sub = locale$.subscribe(setValue);
    return () => sub.unsubscribe();
  }, []);
  return value;
}

/** A quantity in the current language's number format ("1,5" in German). */
export function formatNumber(value: number): string {
  return formatQuantity(value, locale$.value);
}

export { parseQuantity };

/** A date (no time) in the current language's short form ("11/27/2026", "27.11.2026"). */
export function formatDate(value: string | number | Date): string {
  return new Intl.DateTimeFormat(locale$.value).format(new Date(value));
}
