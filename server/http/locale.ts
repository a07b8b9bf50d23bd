// The app's language a request asks for (api-contract §12), from its `Accept-Language`: Koa
// (negotiator) orders the languages by quality; the first that is one of the app's languages,
// or shares its primary subtag with one (`de-AT` → `de`, `pt` and `pt-PT` → `pt-BR`), wins.
// Null when none does (no header, `*`, only other languages).
import type { Context } from 'koa';
import { LOCALES, type Locale } from '@family-shopping/client/protocol';

const primary = (tag: string) => tag.toLowerCase().split('-')[0]!;

export function negotiateLocale(accepted: readonly string[]): Locale | null {
  for (const tag of accepted) {
    const exact = LOCALES.find((l) => l.toLowerCase() === tag.toLowerCase());
    if (exact) return exact;
    const sameLanguage = LOCALES.find((l) => primary(l) === primary(tag));
    if (sameLanguage) return sameLanguage;
  }
  return null;
}

export const requestLocale = (ctx: Pick<Context, 'acceptsLanguages'>): Locale | null =>
  negotiateLocale(ctx.acceptsLanguages());
