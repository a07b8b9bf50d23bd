// The app's language a request asks for (api-contract §12), from its `Accept-Language`: Koa
// (negotiator) orders the languages by quality; the first that is one of the app's languages,
// or shares its primary subtag with one (`de-AT` → `de`, `pt` and `pt-PT` → `pt-BR`), wins.
// Null when none does (no header, `*`, only other languages).
import type { Context } from 'koa';
import { bestLocale, type Locale } from '@family-shopping/client/protocol';

export const negotiateLocale = (accepted: readonly string[]): Locale | null => bestLocale(accepted);

export const requestLocale = (ctx: Pick<Context, 'acceptsLanguages'>): Locale | null =>
  negotiateLocale(ctx.acceptsLanguages());
