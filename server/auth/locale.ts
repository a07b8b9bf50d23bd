// Which language a mail to a user speaks (api-contract §12): the user's own choice, else their
// family's language, else English (a user without a family has only their own).
import type { Locale } from '@family-shopping/client/protocol';
import type { Db, Trx } from '../db/knex.js';
import { mailLocale } from '../mail/public.js';
import { membershipOf, type UserRow } from './queries.js';

export async function recipientLocale(q: Db | Trx, user: Pick<UserRow, 'id' | 'locale'>): Promise<Locale> {
  if (user.locale) return mailLocale(user.locale);
  return mailLocale((await membershipOf(q, user.id))?.family_locale);
}
