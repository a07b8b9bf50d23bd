// SQL of the live channel. Both run on `deps.db` directly, never inside a family write's
// transaction (PGlite has one connection; a query on db inside a trx would deadlock).
import type { Db } from '../db/knex.js';

/** True when the list exists, is not deleted, and belongs to the family. */
export async function listBelongsToFamily(db: Db, familyId: string, listId: string): Promise<boolean> {
  const row = await db('shopping_lists').where({ id: listId, family_id: familyId, deleted: false }).first('id');
  return !!row;
}

export async function isFamilyMember(db: Db, familyId: string, userId: string): Promise<boolean> {
  const row = await db('family_memberships').where({ family_id: familyId, user_id: userId }).first('user_id');
  return !!row;
}
