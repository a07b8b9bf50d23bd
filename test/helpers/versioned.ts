// Direct writes of replicated rows for tests that put a state in place no endpoint makes (an aged
// tombstone, a global product, a row checked by a database constraint). The database refuses a
// replicated row that does not carry the version its transaction took from the family (or
// catalog) counter, so these go through the family write / catalog write like every change.
import { catalogWrite, familyWrite } from '../../server/db/family-write.js';
import type { RunningServer } from '../../server/server.js';
import { newId } from '../../server/db/ids.js';

type App = Pick<RunningServer, 'deps'>;
type Row = Record<string, unknown>;

/** Inserts rows into a family table in one family write (one version), stamped with it. */
export function insertVersioned(app: App, familyId: string, table: string, rows: Row | Row[]): Promise<Row[]> {
  return familyWrite(app.deps, familyId, async (w) => {
    const list = (Array.isArray(rows) ? rows : [rows]).map((r) => ({ ...r, ...w.stamp(table) }));
    return (await w.trx(table).insert(list).returning('*')) as Row[];
  });
}

/** Updates a family's rows in one family write; `patch` may set `updated_at` (e.g. to age a
 *  tombstone), which otherwise gets the write's time. */
export function updateVersioned(app: App, familyId: string, table: string, where: Row, patch: Row): Promise<Row[]> {
  return familyWrite(app.deps, familyId, async (w) => {
    return (await w
      .trx(table)
      .where({ ...where, family_id: familyId })
      .update({ ...w.stamp(table), ...patch })
      .returning('*')) as Row[];
  });
}

/** A global product (reference data, shared by every family), added as a catalog write. */
export async function insertGlobalProductRow(
  app: App,
  row: { name: string; unit_category_flags?: number; id?: string },
): Promise<string> {
  const id = row.id ?? newId();
  await catalogWrite(app.deps, (trx, version) =>
    trx('products').insert({ key: `test-${id}`, unit_category_flags: 0, ...row, id, catalog_version: version }),
  );
  return id;
}
