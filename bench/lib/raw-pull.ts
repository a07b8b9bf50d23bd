// The pull baseline of sync-throughput and pull-growth: the raw (version, id) page query of a
// family's items, page after page, plus JSON.stringify of each page, in the service's process.
// It reads the table's own columns: not the item's stored record JSON, a generated column the
// endpoint reads instead of building the docs (migrations/20261124000001_item_record_json.ts).
import { performance } from 'node:perf_hooks';
import type { Db } from '../../server/db/knex.js';

/** The columns a row is written with (generated ones left out). */
async function storedColumns(db: Db, table: string): Promise<string[]> {
  const { rows } = (await db.raw(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [table],
  )) as { rows: Array<{ column_name: string }> };
  return rows.map((r) => r.column_name);
}

/** Reads every item of the family as the baseline does; its time and the rows read. */
export async function rawItemPull(db: Db, familyId: string, page: number): Promise<{ ms: number; rows: number }> {
  const columns = await storedColumns(db, 'shopping_list_items');
  const t0 = performance.now();
  let after: { version: string; id: string } | null = null;
  let rows = 0;
  for (;;) {
    const q = db('shopping_list_items')
      .select(columns)
      .where({ family_id: familyId })
      .orderBy([{ column: 'version' }, { column: 'id' }])
      .limit(page);
    if (after) q.whereRaw('(version, id) > (?::bigint, ?::uuid)', [after.version, after.id]);
    const got = (await q) as Array<{ version: string; id: string }>;
    JSON.stringify(got);
    rows += got.length;
    if (got.length < page) break;
    after = got[got.length - 1]!;
  }
  return { ms: performance.now() - t0, rows };
}
