import type { Trx, Db } from '../db/knex.js';
import { newId, randomInviteCode } from '../db/ids.js';

/** Creates a family with its version counter row. */
export async function createFamilyRow(
  trx: Trx | Db,
  input: { name: string; inviteCode?: string; id?: string },
): Promise<{ id: string; name: string; inviteCode: string }> {
  const id = input.id ?? newId();
  const inviteCode = input.inviteCode ?? randomInviteCode();
  await trx('families').insert({ id, name: input.name, invite_code: inviteCode });
  await trx('family_counters').insert({ family_id: id, version: 0 });
  return { id, name: input.name, inviteCode };
}
