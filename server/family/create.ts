import type { Trx, Db } from '../db/knex.js';
import { newId, randomInviteCode } from '../db/ids.js';
import { insertFamily } from './queries.js';

/** Creates a family with its version counter row. */
export async function createFamilyRow(
  trx: Trx | Db,
  input: { name: string; inviteCode?: string; id?: string },
): Promise<{ id: string; name: string; inviteCode: string }> {
  const id = input.id ?? newId();
  const inviteCode = input.inviteCode ?? randomInviteCode();
  await insertFamily(trx, { id, name: input.name, invite_code: inviteCode });
  return { id, name: input.name, inviteCode };
}
