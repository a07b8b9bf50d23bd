// The whole data model of the specification plus the replication bookkeeping.
//
// Replicated family tables carry: family_id (first column of their composite indexes), version
// (the family counter value of the transaction that last wrote the row), updated_at, and
// deleted (tombstone: a hard delete through the API keeps the row with deleted = true so pulls
// can report it; the purge job removes tombstones after the retention period). Uniqueness that
// the specification names is enforced among live rows (partial unique indexes WHERE NOT deleted).
import type { Knex } from 'knex';

const FAMILY_TABLES = [
  'stores',
  'store_sections',
  'shopping_lists',
  'shopping_list_items',
  'recipes',
  'recipe_ingredients',
  'family_products',
  'family_product_overrides',
  'product_store_sections',
  'family_units_of_measure',
];

function syncColumns(t: Knex.CreateTableBuilder, knex: Knex) {
  t.uuid('family_id').notNullable().references('id').inTable('families').onDelete('CASCADE');
  t.bigInteger('version').notNullable();
  t.boolean('deleted').notNullable().defaultTo(false);
  t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
}

function quantityColumns(t: Knex.CreateTableBuilder) {
  t.decimal('quantity', 12, 3).nullable();
  t.uuid('unit_of_measure_id').nullable().references('id').inTable('units_of_measure');
  t.uuid('family_unit_of_measure_id').nullable().references('id').inTable('family_units_of_measure');
  t.boolean('is_approximate').notNullable().defaultTo(false);
  t.text('quantity_note').nullable();
  t.uuid('product_id').nullable().references('id').inTable('products');
  t.uuid('family_product_id').nullable().references('id').inTable('family_products').onDelete('SET NULL');
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('app_settings', (t) => {
    t.text('key').primary();
    t.text('value').notNullable();
  });

  // Global catalog counter: one row; products and units carry catalog_version.
  await knex.schema.createTable('catalog_counter', (t) => {
    t.integer('id').primary();
    t.bigInteger('version').notNullable().defaultTo(0);
  });
  await knex.raw('ALTER TABLE catalog_counter ADD CONSTRAINT catalog_counter_single CHECK (id = 1)');
  await knex('catalog_counter').insert({ id: 1, version: 0 });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary();
    t.text('email').notNullable().unique();
    t.text('user_name').notNullable();
    t.text('password_hash').notNullable();
    t.timestamp('email_confirmed_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('ALTER TABLE users ADD CONSTRAINT users_email_normalised CHECK (email = lower(email))');
  await knex.raw('CREATE UNIQUE INDEX users_user_name_lower_unique ON users (lower(user_name))');

  await knex.schema.createTable('families', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.text('invite_code').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // The per-family version counter. Every family write locks this row (UPDATE ... RETURNING),
  // so versions are handed out in commit order. tombstone_horizon: the highest version whose
  // tombstones may have been purged; a pull from an older checkpoint must re-sync (410).
  await knex.schema.createTable('family_counters', (t) => {
    t.uuid('family_id').primary().references('id').inTable('families').onDelete('CASCADE');
    t.bigInteger('version').notNullable().defaultTo(0);
    t.bigInteger('tombstone_horizon').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('family_memberships', (t) => {
    t.uuid('id').primary();
    t.uuid('family_id').notNullable().references('id').inTable('families').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['user_id']); // a user belongs to one family
    t.index(['family_id', 'role']);
  });
  await knex.raw(
    "ALTER TABLE family_memberships ADD CONSTRAINT family_memberships_role_check CHECK (role IN ('admin', 'member'))",
  );

  await knex.schema.createTable('invites', (t) => {
    t.uuid('id').primary();
    t.uuid('family_id').notNullable().references('id').inTable('families').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('token_hash').notNullable();
    t.uuid('invited_by_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true }).nullable();
    t.uuid('consumed_by_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['token_hash']);
    t.index(['family_id', 'email']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX invites_active_token_hash_unique ON invites (family_id, token_hash) WHERE consumed_at IS NULL AND revoked_at IS NULL',
  );

  await knex.schema.createTable('password_reset_tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true }).nullable();
    t.timestamp('invalidated_at', { useTz: true }).nullable();
    t.index(['user_id']);
  });

  await knex.schema.createTable('refresh_tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.uuid('family_id').notNullable().references('id').inTable('families').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('rotated_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['user_id']);
  });

  // Global catalogs (reference data; follow the catalog counter).
  await knex.schema.createTable('units_of_measure', (t) => {
    t.uuid('id').primary();
    t.text('code').notNullable().unique();
    t.text('name').notNullable();
    t.text('abbreviation').notNullable();
    t.text('category').notNullable();
    t.bigInteger('catalog_version').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['catalog_version', 'id']);
  });
  await knex.raw('CREATE UNIQUE INDEX units_of_measure_abbreviation_unique ON units_of_measure (lower(abbreviation))');
  await knex.raw(
    "ALTER TABLE units_of_measure ADD CONSTRAINT units_of_measure_category_check CHECK (category IN ('Count', 'Weight', 'Volume'))",
  );

  await knex.schema.createTable('products', (t) => {
    t.uuid('id').primary();
    t.text('key').notNullable().unique(); // stable seeding key (insert-or-ignore)
    t.text('name').notNullable();
    t.integer('unit_category_flags').notNullable().defaultTo(0); // bit flags: Count 1, Weight 2, Volume 4
    t.bigInteger('catalog_version').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['catalog_version', 'id']);
  });
  await knex.raw('CREATE INDEX products_name_lower ON products (lower(name))');

  // Family-scoped tables.
  await knex.schema.createTable('family_units_of_measure', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.text('abbreviation').notNullable();
    t.text('category').notNullable();
    syncColumns(t, knex);
  });
  await knex.raw(
    "ALTER TABLE family_units_of_measure ADD CONSTRAINT family_units_category_check CHECK (category IN ('Count', 'Weight', 'Volume'))",
  );
  await knex.raw(
    'CREATE UNIQUE INDEX family_units_abbreviation_unique ON family_units_of_measure (family_id, lower(abbreviation)) WHERE NOT deleted',
  );

  await knex.schema.createTable('family_products', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.integer('unit_category_flags').notNullable().defaultTo(0);
    syncColumns(t, knex);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX family_products_name_unique ON family_products (family_id, lower(name)) WHERE NOT deleted',
  );

  await knex.schema.createTable('family_product_overrides', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.text('name').nullable();
    t.integer('unit_category_flags').nullable();
    syncColumns(t, knex);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX family_product_overrides_unique ON family_product_overrides (family_id, product_id) WHERE NOT deleted',
  );

  await knex.schema.createTable('stores', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    syncColumns(t, knex);
  });
  await knex.raw('CREATE UNIQUE INDEX stores_name_unique ON stores (family_id, lower(name)) WHERE NOT deleted');

  await knex.schema.createTable('store_sections', (t) => {
    t.uuid('id').primary();
    t.uuid('store_id').notNullable().references('id').inTable('stores').onDelete('CASCADE');
    t.text('name').notNullable();
    t.integer('position').notNullable();
    syncColumns(t, knex);
    t.index(['family_id', 'store_id', 'position']);
  });

  await knex.schema.createTable('shopping_lists', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.uuid('store_id').nullable().references('id').inTable('stores').onDelete('SET NULL');
    t.timestamp('archived_at', { useTz: true }).nullable();
    syncColumns(t, knex);
  });

  await knex.schema.createTable('shopping_list_items', (t) => {
    t.uuid('id').primary();
    t.uuid('list_id').notNullable().references('id').inTable('shopping_lists').onDelete('CASCADE');
    t.text('name').notNullable();
    quantityColumns(t);
    t.uuid('section_id').nullable().references('id').inTable('store_sections').onDelete('SET NULL');
    t.boolean('checked').notNullable().defaultTo(false);
    t.timestamp('checked_at', { useTz: true }).nullable();
    t.timestamp('removed_at', { useTz: true }).nullable();
    t.uuid('removed_by_user_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    syncColumns(t, knex);
    t.index(['family_id', 'list_id']);
  });

  await knex.schema.createTable('recipes', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.integer('servings').nullable();
    t.text('instructions').nullable();
    syncColumns(t, knex);
  });

  await knex.schema.createTable('recipe_ingredients', (t) => {
    t.uuid('id').primary();
    t.uuid('recipe_id').notNullable().references('id').inTable('recipes').onDelete('CASCADE');
    t.text('name').notNullable();
    quantityColumns(t);
    t.integer('position').notNullable().defaultTo(0);
    syncColumns(t, knex);
    t.index(['family_id', 'recipe_id', 'position']);
  });

  await knex.schema.createTable('product_store_sections', (t) => {
    t.uuid('id').primary();
    t.uuid('store_id').notNullable().references('id').inTable('stores').onDelete('CASCADE');
    t.uuid('product_id').nullable().references('id').inTable('products').onDelete('CASCADE');
    t.uuid('family_product_id').nullable().references('id').inTable('family_products').onDelete('CASCADE');
    t.uuid('section_id').notNullable().references('id').inTable('store_sections').onDelete('CASCADE');
    syncColumns(t, knex);
  });
  await knex.raw(
    'ALTER TABLE product_store_sections ADD CONSTRAINT product_store_sections_one_product CHECK (num_nonnulls(product_id, family_product_id) = 1)',
  );
  await knex.raw(
    'CREATE UNIQUE INDEX product_store_sections_product_unique ON product_store_sections (store_id, product_id) WHERE product_id IS NOT NULL AND NOT deleted',
  );
  await knex.raw(
    'CREATE UNIQUE INDEX product_store_sections_family_product_unique ON product_store_sections (store_id, family_product_id) WHERE family_product_id IS NOT NULL AND NOT deleted',
  );

  for (const table of ['shopping_list_items', 'recipe_ingredients']) {
    await knex.raw(
      `ALTER TABLE ${table} ADD CONSTRAINT ${table}_one_unit CHECK (num_nonnulls(unit_of_measure_id, family_unit_of_measure_id) <= 1)`,
    );
    await knex.raw(
      `ALTER TABLE ${table} ADD CONSTRAINT ${table}_one_product CHECK (num_nonnulls(product_id, family_product_id) <= 1)`,
    );
    await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_quantity_check CHECK (quantity >= 0)`);
  }

  // Pull index: rows of a family after a (version, id) checkpoint.
  for (const table of FAMILY_TABLES) {
    await knex.raw(`CREATE INDEX ${table}_family_version_id ON ${table} (family_id, version, id)`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'product_store_sections',
    'recipe_ingredients',
    'recipes',
    'shopping_list_items',
    'shopping_lists',
    'store_sections',
    'stores',
    'family_product_overrides',
    'family_products',
    'family_units_of_measure',
    'products',
    'units_of_measure',
    'refresh_tokens',
    'password_reset_tokens',
    'invites',
    'family_memberships',
    'family_counters',
    'families',
    'users',
    'catalog_counter',
    'app_settings',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
