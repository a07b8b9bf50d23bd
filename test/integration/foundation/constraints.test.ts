// Every constraint the specification names rejects a violating row, on whichever backend the
// suite runs (PGlite by default, PostgreSQL in CI's second leg).
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { newId, sha256, randomToken } from '../../../server/db/ids.js';
import type { Db } from '../../../server/db/knex.js';
import { catalogWrite, familyWrite } from '../../../server/db/family-write.js';
import { insertGlobalProductRow, insertVersioned } from '../../helpers/versioned.js';

type App = Awaited<ReturnType<typeof testApp>>;

async function rejects(p: Promise<unknown>, code: string, constraint?: string) {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    expect(e.code, `expected SQLSTATE ${code}`).to.equal(code);
    if (constraint) expect(e.constraint).to.equal(constraint);
    return;
  }
  expect.fail(`expected the row to be rejected (${code} ${constraint ?? ''})`);
}

// Rows of replicated tables are written as a family write does (the database refuses a row
// without its transaction's version): `insertVersioned` takes the family's next version.
async function fixture(app: App) {
  const fam = await makeFamily(app);
  const db = app.deps.db;
  const storeId = newId();
  const sectionId = newId();
  const listId = newId();
  const recipeId = newId();
  const ins = (table: string, row: Record<string, unknown>) => insertVersioned(app, fam.familyId, table, row);
  await ins('stores', { id: storeId, name: 'Market' });
  await ins('store_sections', { id: sectionId, store_id: storeId, name: 'Dairy', position: 0 });
  await ins('shopping_lists', { id: listId, name: 'Weekly', store_id: storeId });
  await ins('recipes', { id: recipeId, name: 'Pancakes' });
  const each = await db('units_of_measure').where({ code: 'each' }).first();
  const familyUnitId = newId();
  await ins('family_units_of_measure', { id: familyUnitId, name: 'Crate', abbreviation: 'crt', category: 'Count' });
  const productId = await insertGlobalProductRow(app, { name: `Product ${newId()}` });
  const familyProductId = newId();
  await ins('family_products', { id: familyProductId, name: `FP ${familyProductId}` });
  return {
    fam,
    db,
    ins,
    storeId,
    sectionId,
    listId,
    recipeId,
    eachId: each.id as string,
    familyUnitId,
    productId,
    familyProductId,
  };
}

const item = (f: Awaited<ReturnType<typeof fixture>>, extra: Record<string, unknown> = {}) => ({
  id: newId(),
  list_id: f.listId,
  name: 'Milk',
  ...extra,
});

const ingredient = (f: Awaited<ReturnType<typeof fixture>>, extra: Record<string, unknown> = {}) => ({
  id: newId(),
  recipe_id: f.recipeId,
  name: 'Flour',
  ...extra,
});

describe('database constraints', () => {
  let app: App;
  let db: Db;
  before(async () => {
    app = await testApp();
    db = app.deps.db;
  });

  it('the global unit catalog exists with the canonical count unit "each"', async () => {
    const each = await db('units_of_measure').where({ code: 'each' }).first();
    expect(each).to.include({ code: 'each', category: 'Count' });
    expect(Number((await db('units_of_measure').count('* as n'))[0]!.n)).to.be.greaterThan(10);
  });

  it('user email is unique', async () => {
    const email = `dup-${newId()}@example.test`;
    await db('users').insert({ id: newId(), email, user_name: `a-${newId()}`, password_hash: 'x' });
    await rejects(
      db('users').insert({ id: newId(), email, user_name: `b-${newId()}`, password_hash: 'x' }),
      '23505',
      'users_email_unique',
    );
  });

  it('family invite code is unique', async () => {
    const f = await makeFamily(app);
    await rejects(
      db('families').insert({ id: newId(), name: 'Other', invite_code: f.inviteCode }),
      '23505',
      'families_invite_code_unique',
    );
  });

  it('store name is unique per family, not globally', async () => {
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    await insertVersioned(app, a.familyId, 'stores', { id: newId(), name: 'Aldi' });
    await rejects(
      insertVersioned(app, a.familyId, 'stores', { id: newId(), name: 'Aldi' }),
      '23505',
      'stores_name_unique',
    );
    await insertVersioned(app, b.familyId, 'stores', { id: newId(), name: 'Aldi' }); // another family may
  });

  it('abbreviation is unique within each unit table', async () => {
    await rejects(
      catalogWrite(app.deps, (trx, version) =>
        trx('units_of_measure').insert({
          id: newId(),
          code: `c-${newId()}`,
          name: 'Kilo again',
          abbreviation: 'KG',
          category: 'Weight',
          catalog_version: version,
        }),
      ),
      '23505',
      'units_of_measure_abbreviation_unique',
    );
    const f = await makeFamily(app);
    await insertVersioned(app, f.familyId, 'family_units_of_measure', {
      id: newId(),
      name: 'Tray',
      abbreviation: 'tr',
      category: 'Count',
    });
    await rejects(
      insertVersioned(app, f.familyId, 'family_units_of_measure', {
        id: newId(),
        name: 'Tray 2',
        abbreviation: 'TR',
        category: 'Count',
      }),
      '23505',
      'family_units_abbreviation_unique',
    );
  });

  it('an active invite token hash is unique per family; a consumed one frees it', async () => {
    const f = await makeFamily(app);
    const hash = sha256(randomToken());
    const expires = new Date(Date.now() + 86_400_000);
    const first = newId();
    await db('invites').insert({
      id: first,
      family_id: f.familyId,
      email: 'a@example.test',
      token_hash: hash,
      expires_at: expires,
    });
    await rejects(
      db('invites').insert({
        id: newId(),
        family_id: f.familyId,
        email: 'b@example.test',
        token_hash: hash,
        expires_at: expires,
      }),
      '23505',
      'invites_active_token_hash_unique',
    );
    await db('invites').where({ id: first }).update({ consumed_at: new Date() });
    await db('invites').insert({
      id: newId(),
      family_id: f.familyId,
      email: 'b@example.test',
      token_hash: hash,
      expires_at: expires,
    });
  });

  it('a section an item still names cannot vanish behind the family write (ON DELETE SET NULL would change the item without a version)', async () => {
    // Deleting a section is a tombstone plus the items' sectionId cleared by the family write,
    // each row stamped (stores tests); the foreign key's SET NULL is only a last resort, and the
    // database refuses it even inside a family write, as the item would keep its old version.
    const f = await fixture(app);
    const row = item(f, { section_id: f.sectionId });
    await f.ins('shopping_list_items', row);
    await rejects(db('store_sections').where({ id: f.sectionId }).del(), 'FS001');
    await rejects(
      familyWrite(app.deps, f.fam.familyId, (w) => w.trx('store_sections').where({ id: f.sectionId }).del()),
      'FS001',
    );
    const after = await db('shopping_list_items').where({ id: row.id }).first();
    expect(after.section_id).to.equal(f.sectionId);
    expect(await db('store_sections').where({ id: f.sectionId }).first()).to.not.equal(undefined);
  });

  it('items and ingredients take at most one unit id and at most one product id', async () => {
    const f = await fixture(app);
    await rejects(
      f.ins(
        'shopping_list_items',
        item(f, { unit_of_measure_id: f.eachId, family_unit_of_measure_id: f.familyUnitId }),
      ),
      '23514',
      'shopping_list_items_one_unit',
    );
    await rejects(
      f.ins('shopping_list_items', item(f, { product_id: f.productId, family_product_id: f.familyProductId })),
      '23514',
      'shopping_list_items_one_product',
    );
    await rejects(
      f.ins(
        'recipe_ingredients',
        ingredient(f, { unit_of_measure_id: f.eachId, family_unit_of_measure_id: f.familyUnitId }),
      ),
      '23514',
      'recipe_ingredients_one_unit',
    );
    await rejects(
      f.ins('recipe_ingredients', ingredient(f, { product_id: f.productId, family_product_id: f.familyProductId })),
      '23514',
      'recipe_ingredients_one_product',
    );
    // One of each is fine.
    await f.ins('shopping_list_items', item(f, { unit_of_measure_id: f.eachId, family_product_id: f.familyProductId }));
    await f.ins(
      'recipe_ingredients',
      ingredient(f, { family_unit_of_measure_id: f.familyUnitId, product_id: f.productId }),
    );
  });

  it('quantities are exact decimals, never negative', async () => {
    const f = await fixture(app);
    const row = item(f, { quantity: '0.3' });
    await f.ins('shopping_list_items', row);
    const back = await db('shopping_list_items').where({ id: row.id }).first();
    expect(back.quantity).to.equal('0.300');
    const sum = await db.raw('select (0.1::numeric(12,3) + 0.2::numeric(12,3))::text as s');
    expect(sum.rows[0].s).to.equal('0.300');
    await rejects(
      f.ins('shopping_list_items', item(f, { quantity: '-1' })),
      '23514',
      'shopping_list_items_quantity_check',
    );
  });

  it('items and ingredients require family_id', async () => {
    // A row without a family cannot carry its family write's version: the version check refuses
    // it before NOT NULL would (the column is NOT NULL as well: last test).
    const f = await fixture(app);
    const version = async () =>
      String((await db('family_counters').where({ family_id: f.fam.familyId }).first('version')).version);
    await rejects(db('shopping_list_items').insert({ ...item(f), family_id: null, version: await version() }), 'FS001');
    await rejects(
      db('recipe_ingredients').insert({ ...ingredient(f), family_id: null, version: await version() }),
      'FS001',
    );
    const unstamped = item(f);
    await rejects(
      db('shopping_list_items').insert({ ...unstamped, family_id: f.fam.familyId, version: await version() }),
      'FS001',
    );
    expect(await db('shopping_list_items').where({ id: unstamped.id }).first()).to.equal(undefined);
  });

  it('membership roles are admin or member', async () => {
    const f = await makeFamily(app);
    const userId = newId();
    await db('users').insert({
      id: userId,
      email: `r-${userId}@example.test`,
      user_name: `r-${userId}`,
      password_hash: 'x',
    });
    await rejects(
      db('family_memberships').insert({ id: newId(), family_id: f.familyId, user_id: userId, role: 'owner' }),
      '23514',
    );
  });

  it('every replicated table carries family_id, version, updated_at and a tombstone, with a (family_id, version, id) index', async () => {
    const tables = [
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
    const columns = (await db('information_schema.columns')
      .where({ table_schema: 'public' })
      .whereIn('table_name', tables)
      .select('table_name', 'column_name', 'data_type', 'is_nullable')) as {
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
    }[];
    const indexes = (await db('pg_indexes')
      .where({ schemaname: 'public' })
      .whereIn('tablename', tables)
      .select('tablename', 'indexdef')) as {
      tablename: string;
      indexdef: string;
    }[];
    for (const t of tables) {
      const col = (name: string) => columns.find((c) => c.table_name === t && c.column_name === name);
      expect(col('family_id'), `${t}.family_id`).to.include({ data_type: 'uuid', is_nullable: 'NO' });
      expect(col('version'), `${t}.version`).to.include({ data_type: 'bigint', is_nullable: 'NO' });
      expect(col('updated_at'), `${t}.updated_at`).to.include({
        data_type: 'timestamp with time zone',
        is_nullable: 'NO',
      });
      expect(col('deleted'), `${t}.deleted`).to.include({ data_type: 'boolean', is_nullable: 'NO' });
      expect(
        indexes.some((i) => i.tablename === t && /\(family_id, version, id\)/.test(i.indexdef)),
        `${t} pull index`,
      ).to.equal(true);
    }
    for (const t of ['shopping_list_items', 'recipe_ingredients']) {
      expect(columns.find((c) => c.table_name === t && c.column_name === 'quantity')?.data_type).to.equal('numeric');
    }
    const counter = await db('information_schema.columns')
      .where({ table_name: 'family_counters', column_name: 'version' })
      .first('data_type');
    expect(counter.data_type).to.equal('bigint');
  });
});
