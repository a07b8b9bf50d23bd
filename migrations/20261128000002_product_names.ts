// Global product names per language (api-contract §12): a family's locale names its view of the
// global catalog. `products.name` is the English name; this table holds the others, one row per
// product and language. The effective name of a global product in a family is the family's
// override, else the name in the family's locale, else the English name
// (server/catalog/queries.ts, `globalProductsInFamilyLocale`).
//
// A name is part of the global catalog that devices replicate, so it is written only in a catalog
// write that also moves its product's `catalog_version` to that write's version (devices pull
// the product again): a row written in any other transaction, or for a product this write did
// not stamp, is refused with FS001 (trigger `product_names_stamped_product`, as the
// `*_write_version` triggers of 20261123200001_require_write_version.ts refuse an unversioned
// catalog row). The startup seeder
// (server/startup/jobs.ts, `seedProductNames`) stamps the products first, then writes the names.
//
// Stands alone: no imports of live server code (the tags below are the protocol's LOCALES as of
// this migration, English excepted: its name is `products.name`).
import type { Knex } from 'knex';

const TAGS = ['de', 'fr', 'es', 'pt-BR'];
const TAGS_SQL = TAGS.map((tag) => `'${tag}'`).join(', ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE product_names (
      product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
      locale text NOT NULL CONSTRAINT product_names_locale_tag CHECK (locale IN (${TAGS_SQL})),
      name text NOT NULL CONSTRAINT product_names_name_length CHECK (length(btrim(name)) BETWEEN 1 AND 200),
      CONSTRAINT product_names_product_locale UNIQUE (product_id, locale)
    )`);
  await knex.raw(`
    CREATE FUNCTION fs_require_product_stamped() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (
        SELECT 1 FROM products p
         WHERE p.id = NEW.product_id
           AND p.catalog_version::text = current_setting('fs.catalog_write', true)
      ) THEN
        RAISE EXCEPTION 'a product name was written without its product carrying this catalog write''s version'
          USING ERRCODE = 'FS001',
                HINT = 'write product names in catalogWrite and stamp the product''s catalog_version first';
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER product_names_stamped_product BEFORE INSERT OR UPDATE ON product_names
    FOR EACH ROW EXECUTE FUNCTION fs_require_product_stamped()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE product_names');
  await knex.raw('DROP FUNCTION fs_require_product_stamped()');
}
