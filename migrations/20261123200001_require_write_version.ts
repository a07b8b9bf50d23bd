// Every insert or update of a replicated table must carry the version its transaction took from
// the family counter (the catalog counter for the global catalog tables). A row written with any
// other version (forgotten, stale, another family's) or by a foreign-key action (ON DELETE SET
// NULL changes the row but not its version) would never reach a device pulling after the
// checkpoint it already holds. The database refuses such a write, so no code path can forget it.
//
// How the trigger knows the version its transaction took: the statement that takes the version
// (server/db/family-write.ts, `takeFamilyVersion` / `takeCatalogVersion`) also sets a
// transaction-local setting, in the same statement (`set_config(…, true)` in its RETURNING):
//   fs.family_write  = '<family id>:<version>'
//   fs.catalog_write = '<catalog version>'
// Nothing else sets them; they vanish at commit or rollback. The trigger's WHEN clause compares
// the written row with them, so the check costs one expression per row and the function (which
// only raises) runs for a violation alone.
//
// The table lists are this migration's own (a migration does not change once applied);
// test/integration/sync/invariants.test.ts checks that they cover every table of
// server/db/replicated-tables.ts.
import type { Knex } from 'knex';

const FAMILY_TABLES = [
  'shopping_lists',
  'shopping_list_items',
  'stores',
  'store_sections',
  'recipes',
  'recipe_ingredients',
  'product_store_sections',
  'family_products',
  'family_product_overrides',
  'family_units_of_measure',
];

const CATALOG_TABLES = ['products', 'units_of_measure'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION fs_reject_unversioned_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'a row of % was written without the version its transaction took', TG_TABLE_NAME
        USING ERRCODE = 'FS001',
              HINT = 'write replicated tables through familyWrite / catalogWrite and stamp every row';
    END $$`);
  for (const table of FAMILY_TABLES) {
    await knex.raw(`
      CREATE TRIGGER ${table}_write_version BEFORE INSERT OR UPDATE ON ${table}
      FOR EACH ROW
      WHEN (current_setting('fs.family_write', true) IS DISTINCT FROM NEW.family_id::text || ':' || NEW.version::text)
      EXECUTE FUNCTION fs_reject_unversioned_write()`);
  }
  for (const table of CATALOG_TABLES) {
    await knex.raw(`
      CREATE TRIGGER ${table}_write_version BEFORE INSERT OR UPDATE ON ${table}
      FOR EACH ROW
      WHEN (current_setting('fs.catalog_write', true) IS DISTINCT FROM NEW.catalog_version::text)
      EXECUTE FUNCTION fs_reject_unversioned_write()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [...FAMILY_TABLES, ...CATALOG_TABLES]) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${table}_write_version ON ${table}`);
  }
  await knex.raw('DROP FUNCTION IF EXISTS fs_reject_unversioned_write()');
}
