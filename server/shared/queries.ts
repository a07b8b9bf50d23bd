// SQL shared by the features: the statement that looks at any replicated table by id, and the
// highest position of ordered rows (ingredients, sections).
import type { Db, Trx } from '../db/knex.js';

/** A database row as knex answers it; the records files map it to the wire shape. */
export type Row = Record<string, unknown>;

/** The highest `position` among the family's live rows of the table that `where` names; null
 *  when there are none. */
export async function maxPosition(
  q: Db | Trx,
  table: 'recipe_ingredients' | 'store_sections',
  familyId: string,
  where: Record<string, string>,
): Promise<number | null> {
  const r = (await q(table)
    .where({ ...where, family_id: familyId, deleted: false })
    .max({ m: 'position' })
    .first()) as { m: number | string | null } | undefined;
  return r?.m == null ? null : Number(r.m);
}

/** The row with this id in any family, tombstones included (a create's id check). */
export async function anyRowById(q: Db | Trx, table: string, id: string): Promise<Row | undefined> {
  return (await q(table).where({ id }).first()) as Row | undefined;
}
