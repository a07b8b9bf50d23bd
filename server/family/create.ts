import { DEFAULT_LOCALE, type Locale } from '@family-shopping/client/protocol';
import type { Trx, Db } from '../db/knex.js';
import { newId, randomInviteCode } from '../db/ids.js';
import { insertFamily } from './queries.js';

/** Creates a family with its version counter row; its language English unless given. */
export async function createFamilyRow(
  trx: Trx | Db,
  input: { name: string; inviteCode?: string; id?: string; locale?: Locale },
): Promise<{ id: string; name: string; inviteCode: string; locale: Locale }> {
  const id = input.id ?? newId();
  const inviteCode = input.inviteCode ?? randomInviteCode();
  const locale = input.locale ?? DEFAULT_LOCALE;
  await insertFamily(trx, { id, name: input.name, invite_code: inviteCode, locale });
  return { id, name: input.name, inviteCode, locale };
}
