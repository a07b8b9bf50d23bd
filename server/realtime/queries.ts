// SQL of the live channel. Both run on `deps.db` directly, never inside a family write's
// transaction (PGlite has one connection; a query on db inside a trx would deadlock).
import type { Db, Trx } from '../db/knex.js';

/** True when the list exists, is not deleted, and belongs to the family. */
export async function listBelongsToFamily(db: Db, familyId: string, listId: string): Promise<boolean> {
  const row = await db('shopping_lists').where({ id: listId, family_id: familyId, deleted: false }).first('id');
  return !!row;
}

export async function isFamilyMember(db: Db, familyId: string, userId: string): Promise<boolean> {
  const row = await db('family_memberships').where({ family_id: familyId, user_id: userId }).first('user_id');
  return !!row;
}

/** Which of these users are still members of their families (`${familyId}/${userId}`). One
 *  query per 1,000 users. */
export async function stillMembers(db: Db, pairs: Array<{ familyId: string; userId: string }>): Promise<Set<string>> {
  const out = new Set<string>();
  const userIds = [...new Set(pairs.map((p) => p.userId))];
  for (let i = 0; i < userIds.length; i += 1000) {
    const rows = (await db('family_memberships')
      .whereIn('user_id', userIds.slice(i, i + 1000))
      .select('family_id', 'user_id')) as { family_id: string; user_id: string }[];
    for (const r of rows) out.add(`${r.family_id}/${r.user_id}`);
  }
  return out;
}

/** The rows of a family table stamped with this version (one commit's writes), by id. */
export async function rowsAtVersion(
  trx: Trx,
  table: string,
  familyId: string,
  version: string,
  limit: number,
): Promise<Record<string, unknown>[]> {
  return (await trx(table).where({ family_id: familyId, version }).orderBy('id').limit(limit)) as Record<
    string,
    unknown
  >[];
}
