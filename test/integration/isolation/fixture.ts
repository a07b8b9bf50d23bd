// One of everything a family can own, written straight through the family-write function (so
// the fixture does not depend on which feature routes exist yet), plus snapshots of a family's
// rows for "changes nothing" assertions.
import crypto from 'node:crypto';
import type { RunningServer } from '../../../server/server.js';
import { familyWrite } from '../../../server/db/family-write.js';
import { newId, randomToken, sha256 } from '../../../server/db/ids.js';
import { makeFamily, makeMember, type TestFamily, type TestUser } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';

export const tag = () => crypto.randomBytes(4).toString('hex');

/** Tables that hold a family's data (everything but users, which are reached through memberships). */
export const FAMILY_TABLES = [
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
  'family_memberships',
  'invites',
  'refresh_tokens',
] as const;

/** A global product (reference data, shared by every family). */
export async function insertGlobalProduct(app: RunningServer, name: string, unitCategoryFlags = 0): Promise<string> {
  return insertGlobalProductRow(app, { name, unit_category_flags: unitCategoryFlags });
}

export interface Fixture {
  family: TestFamily;
  admin: TestUser;
  member: TestUser;
  /** A second admin, so member administration never hits `last_admin`. */
  otherAdmin: TestUser;
  storeId: string;
  sectionId: string;
  otherSectionId: string;
  listId: string;
  itemId: string;
  removedItemId: string;
  recipeId: string;
  ingredientId: string;
  familyProductId: string;
  familyProductName: string;
  globalProductId: string;
  overrideId: string;
  familyUnitId: string;
  /** A family unit nothing uses (deletable). */
  spareUnitId: string;
  sectionMemoryId: string;
  inviteId: string;
  /** Every id above (for "never contains" checks). */
  ids: string[];
  /** The random tag in every name the fixture wrote (for "never contains" checks). */
  tag: string;
}

export async function makeFixture(app: RunningServer): Promise<Fixture> {
  const family = await makeFamily(app);
  const member = await makeMember(app, family, 'member');
  const otherAdmin = await makeMember(app, family, 'admin');
  const t = tag();
  // Global products are shared by every family: its name must not carry the family's tag.
  const globalProductId = await insertGlobalProduct(app, `Fixture global ${tag()}`, 4);
  const ids = {
    storeId: newId(),
    sectionId: newId(),
    otherSectionId: newId(),
    listId: newId(),
    itemId: newId(),
    removedItemId: newId(),
    recipeId: newId(),
    ingredientId: newId(),
    familyProductId: newId(),
    overrideId: newId(),
    familyUnitId: newId(),
    spareUnitId: newId(),
    sectionMemoryId: newId(),
    inviteId: newId(),
  };
  const familyProductName = `Fixture product ${t}`;
  await familyWrite(app.deps, family.familyId, async (w) => {
    await w.insert('stores', { id: ids.storeId, name: `Store ${t}` });
    await w.insert('store_sections', { id: ids.sectionId, store_id: ids.storeId, name: 'Produce', position: 0 });
    await w.insert('store_sections', { id: ids.otherSectionId, store_id: ids.storeId, name: 'Dairy', position: 1 });
    await w.insert('family_units_of_measure', {
      id: ids.familyUnitId,
      name: `Unit ${t}`,
      abbreviation: `u${t}`,
      category: 'Count',
    });
    await w.insert('family_units_of_measure', {
      id: ids.spareUnitId,
      name: `Spare ${t}`,
      abbreviation: `s${t}`,
      category: 'Volume',
    });
    await w.insert('family_products', { id: ids.familyProductId, name: familyProductName, unit_category_flags: 1 });
    await w.insert('family_product_overrides', {
      id: ids.overrideId,
      product_id: globalProductId,
      name: `Fixture override ${t}`,
    });
    await w.insert('shopping_lists', { id: ids.listId, name: `List ${t}`, store_id: ids.storeId });
    await w.insert('shopping_list_items', {
      id: ids.itemId,
      list_id: ids.listId,
      name: 'Fixture item',
      quantity: '2.5',
      family_unit_of_measure_id: ids.familyUnitId,
      family_product_id: ids.familyProductId,
      section_id: ids.sectionId,
    });
    await w.insert('shopping_list_items', {
      id: ids.removedItemId,
      list_id: ids.listId,
      name: 'Fixture removed item',
      removed_at: w.now,
      removed_by_user_id: family.admin.userId,
    });
    await w.insert('recipes', { id: ids.recipeId, name: `Recipe ${t}`, servings: 2 });
    await w.insert('recipe_ingredients', {
      id: ids.ingredientId,
      recipe_id: ids.recipeId,
      name: 'Fixture ingredient',
      quantity: '1',
      family_unit_of_measure_id: ids.familyUnitId,
      family_product_id: ids.familyProductId,
      position: 0,
    });
    await w.insert('product_store_sections', {
      id: ids.sectionMemoryId,
      store_id: ids.storeId,
      family_product_id: ids.familyProductId,
      section_id: ids.sectionId,
    });
  });
  await app.deps.db('invites').insert({
    id: ids.inviteId,
    family_id: family.familyId,
    email: `invitee-${t}@example.test`,
    token_hash: sha256(randomToken()),
    invited_by_user_id: family.admin.userId,
    expires_at: new Date(Date.now() + 7 * 24 * 3600 * 1000),
  });
  return {
    family,
    admin: family.admin,
    member,
    otherAdmin,
    globalProductId,
    familyProductName,
    tag: t,
    ...ids,
    ids: [...Object.values(ids), member.userId, otherAdmin.userId, family.admin.userId, family.familyId],
  };
}

export async function familyVersion(app: RunningServer, familyId: string): Promise<number> {
  const row = (await app.deps.db('family_counters').where({ family_id: familyId }).first('version')) as {
    version: string;
  };
  return Number(row.version);
}

/** Every row the family owns (plus its users and counter), for before/after comparison. */
export async function snapshot(app: RunningServer, familyId: string): Promise<string> {
  const db = app.deps.db;
  const out: Record<string, unknown> = {};
  out.families = await db('families').where({ id: familyId });
  out.family_counters = await db('family_counters').where({ family_id: familyId });
  for (const table of FAMILY_TABLES) out[table] = await db(table).where({ family_id: familyId }).orderBy('id');
  out.users = await db('users')
    .whereIn('id', db('family_memberships').where({ family_id: familyId }).select('user_id'))
    .orderBy('id');
  return JSON.stringify(out);
}
