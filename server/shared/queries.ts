// SQL shared by the features: the one statement that looks at any replicated table by id.
import type { Db, Trx } from '../db/knex.js';

/** A database row as knex answers it; the records files map it to the wire shape. */
export type Row = Record<string, unknown>;

/** The row with this id in any family, tombstones included (a create's id check). */
export async function anyRowById(q: Db | Trx, table: string, id: string): Promise<Row | undefined> {
  return (await q(table).where({ id }).first()) as Row | undefined;
}
