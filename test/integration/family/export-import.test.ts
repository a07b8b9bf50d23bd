// Family export and import (contract §11 "Backup and restore"): a rich family exported on one
// server and imported into a new family on another (its own database) or on the same server
// (ids taken: new ids, references rewritten) shows the same REST views; the import refuses a
// family that has data, a document that is invalid or refers outside itself (nothing written,
// version unchanged), a member and an anonymous caller; another family's member never sees the
// export; a second member's replication pull and live socket see the imported records.
import { expect } from 'chai';
import { request, startTestApp, testApp, type HttpResult } from '../../helpers/app.js';
import { makeFamily, makeMember, type TestFamily, type TestUser } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';
import { usingPostgres } from '../../helpers/env.js';
import type { RunningServer } from '../../../server/server.js';
import { newId } from '../../../server/db/ids.js';
import { familyWrite } from '../../../server/db/family-write.js';
import { familyVersion, snapshot } from '../isolation/fixture.js';
import { TestSocket } from '../realtime/client.js';
import { pullUrl, SCHEMA_VERSION, sectionMemoryId, type CollectionName } from '@family-shopping/client/protocol';

type Json = any;

function as(app: RunningServer, user: TestUser) {
  return async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await request(app, method, `/api${path}`, { token: user.token, body });
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 299);
    return res.body;
  };
}

const unique = () => Math.random().toString(36).slice(2, 8);

/** A global product with this id on the server (reference data: the same id on every server). */
async function globalProduct(app: RunningServer, id: string, name: string): Promise<void> {
  if (!(await app.deps.db('products').where({ id }).first('id'))) await insertGlobalProductRow(app, { id, name });
}

interface Rich {
  family: TestFamily;
  /** In every name the family wrote (products are searched by it). */
  tag: string;
  globalProductId: string;
}

/**
 * A family with one of everything, written over REST: two stores (one with reordered, renamed
 * and added sections), lists (one archived, one without a store) with items checked, removed
 * and moved, recipes with ingredients, family products, an override, a family unit and section
 * memory for a family and a global product.
 */
async function richFamily(app: RunningServer, globalProductId: string): Promise<Rich> {
  const family = await makeFamily(app);
  const api = as(app, family.admin);
  const tag = `zq${unique()}`;
  await globalProduct(app, globalProductId, `Global ${tag}`);

  const units = (await api('GET', '/units')) as Json[];
  const gram = units.find((u) => u.kind === 'global' && u.category === 'Weight')!;
  const pinch = await api('POST', '/units', { name: `Pinch ${tag}`, abbreviation: `p${tag}`, category: 'Count' });
  const oat = await api('POST', '/products', {
    name: `Oat milk ${tag}`,
    unitCategoryFlags: ['Volume'],
    category: 'dairy',
  });
  const salt = await api('POST', '/products', { name: `Sea salt ${tag}`, unitCategoryFlags: ['Weight', 'Count'] });
  await api('PUT', `/products/${globalProductId}/override`, { name: `Our ${tag} bread`, category: 'bakery' });

  const corner = await api('POST', '/stores', { name: `Corner ${tag}` });
  const sections = corner.sections as Json[];
  await api('PUT', `/stores/${corner.id}/sections/order`, {
    sectionIds: [...sections].reverse().map((s: Json) => s.id),
  });
  await api('PATCH', `/stores/${corner.id}/sections/${sections[2].id}`, { name: `Butcher ${tag}` });
  const spices = await api('POST', `/stores/${corner.id}/sections`, {
    name: `Spices ${tag}`,
    position: 3,
    category: 'pantry',
  });
  await api('DELETE', `/stores/${corner.id}/sections/${sections[7].id}`);
  const market = await api('POST', '/stores', { name: `Market ${tag}` });

  const week = await api('POST', '/lists', { name: `Week ${tag}`, storeId: corner.id });
  const milk = await api('POST', `/lists/${week.id}/items`, {
    name: 'Oat milk',
    familyProductId: oat.id,
    quantity: 2,
    sectionId: sections[4].id,
  });
  await api('POST', `/lists/${week.id}/items`, {
    name: 'Bread',
    productId: globalProductId,
    sectionId: sections[1].id,
  });
  const pepper = await api('POST', `/lists/${week.id}/items`, {
    name: 'Pepper',
    quantity: 1.5,
    familyUnitOfMeasureId: pinch.id,
    isApproximate: true,
    quantityNote: 'freshly ground',
    sectionId: spices.id,
  });
  const flour = await api('POST', `/lists/${week.id}/items`, {
    name: 'Flour',
    quantity: 500,
    unitOfMeasureId: gram.id,
  });
  await api('POST', `/lists/${week.id}/items/${milk.id}/toggle`);
  await api('DELETE', `/lists/${week.id}/items/${flour.id}`);
  await api('PATCH', `/lists/${week.id}/items/${pepper.id}`, { checked: true });
  await api('POST', `/lists/${week.id}/items`, { name: 'Salt', familyProductId: salt.id, sectionId: spices.id });

  const old = await api('POST', '/lists', { name: `Old ${tag}`, storeId: market.id });
  await api('POST', `/lists/${old.id}/items`, { name: 'Apples', quantity: 6 });
  await api('POST', `/lists/${old.id}/archive`);
  const loose = await api('POST', '/lists', { name: `Loose ${tag}` });
  await api('POST', `/lists/${loose.id}/items`, { name: 'Stamps', familyProductId: oat.id });

  await api('POST', '/recipes', {
    name: `Pancakes ${tag}`,
    servings: 4,
    instructions: 'Mix, rest, fry.',
    ingredients: [
      { name: 'Flour', quantity: 250, unitOfMeasureId: gram.id },
      { name: 'Oat milk', quantity: 0.5, familyProductId: oat.id },
      { name: 'Salt', quantity: 1, familyUnitOfMeasureId: pinch.id, productId: globalProductId },
    ],
  });
  const soup = await api('POST', '/recipes', { name: `Soup ${tag}` });
  await api('POST', `/recipes/${soup.id}/ingredients`, { name: 'Water', position: 2, isApproximate: true });
  return { family, tag, globalProductId };
}

/** Every REST view of the family's data (the catalogs: the family's own entries and overrides). */
async function views(app: RunningServer, user: TestUser, tag: string): Promise<Json> {
  const api = as(app, user);
  const lists = await api('GET', '/lists');
  const archived = await api('GET', '/lists?archived=true');
  const details = [];
  for (const l of [...lists, ...archived]) details.push(await api('GET', `/lists/${l.id}`));
  const stores = await api('GET', '/stores');
  const sections = [];
  for (const s of stores) sections.push(await api('GET', `/stores/${s.id}/sections`));
  const recipes = await api('GET', '/recipes');
  const recipeDetails = [];
  for (const r of recipes) recipeDetails.push(await api('GET', `/recipes/${r.id}`));
  // A global product's createdAt is its catalog row's, which each server has of its own.
  const products = ((await api('GET', `/products?q=${tag}&limit=200`)) as Json[]).map(({ createdAt, ...p }) =>
    p.kind === 'global' ? p : { ...p, createdAt },
  );
  const units = ((await api('GET', '/units')) as Json[]).filter((u) => u.kind === 'family');
  return { lists, archived, details, stores, sections, recipes, recipeDetails, products, units };
}

/** The ids of `to`'s export paired with `from`'s, by each record's natural key. */
function idPairs(from: Json, to: Json): Map<string, string> {
  const name = (rows: Json[], id: string | null) => rows.find((r) => r.id === id)?.name ?? null;
  const keys: Record<string, (d: Json, r: Json) => string> = {
    stores: (_d, r) => r.name,
    sections: (d, r) => `${name(d.stores, r.storeId)}/${r.name}`,
    lists: (_d, r) => r.name,
    items: (d, r) => `${name(d.lists, r.listId)}/${r.name}`,
    recipes: (_d, r) => r.name,
    ingredients: (d, r) => `${name(d.recipes, r.recipeId)}/${r.name}`,
    products: (_d, r) => `${r.kind}/${r.name}`,
    units: (_d, r) => r.abbreviation,
    sectionMemory: (d, r) => `${name(d.stores, r.storeId)}/${r.productId ?? name(d.products, r.familyProductId)}`,
  };
  const out = new Map<string, string>();
  for (const [c, key] of Object.entries(keys)) {
    const byKey = new Map((from[c] as Json[]).map((r) => [key(from, r), r.id]));
    expect(byKey.size, `${c}: natural keys are unique`).to.equal(from[c].length);
    for (const r of to[c] as Json[]) {
      const id = byKey.get(key(to, r));
      expect(id, `${c} ${key(to, r)} was imported`).to.be.a('string');
      out.set(r.id, id!);
    }
  }
  return out;
}

/** `value` with every id of `ids` replaced by its pair and every `updatedAt` left out (an
 *  imported record's last write is its import). */
function normalise(value: Json, ids: Map<string, string> = new Map()): Json {
  if (Array.isArray(value)) return value.map((v) => normalise(v, ids));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'updatedAt')
        .map(([k, v]) => [k, normalise(v, ids)]),
    );
  }
  return typeof value === 'string' ? (ids.get(value) ?? value) : value;
}

const exportOf = async (app: RunningServer, user: TestUser) => {
  const res = await request(app, 'GET', '/api/family/export', { token: user.token });
  expect(res.status, res.text).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  return res.body as Json;
};

const importInto = (app: RunningServer, user: TestUser | undefined, body: unknown): Promise<HttpResult> =>
  request(app, 'POST', '/api/family/import', { token: user?.token, body });

const ALL_IDS = (doc: Json) =>
  ['stores', 'sections', 'lists', 'items', 'recipes', 'ingredients', 'products', 'units', 'sectionMemory'].flatMap(
    (c) => (doc[c] as Json[]).map((r) => r.id as string),
  );

describe('family export and import', function () {
  this.timeout(120_000);
  let a: RunningServer;
  let rich: Rich;
  let exported: Json;
  const globalProductId = newId();

  before(async () => {
    a = await testApp();
    rich = await richFamily(a, globalProductId);
    exported = await exportOf(a, rich.family.admin);
  });

  it('exports the family in its REST shapes: removed items, the override and section memory included, nothing of users', async () => {
    expect(exported).to.include({ format: 'family-shopping', version: 1 });
    expect(Date.parse(exported.exportedAt)).to.be.a('number').and.not.NaN;
    expect(exported.family).to.deep.equal({ name: rich.family.name });
    const counts = Object.fromEntries(
      ['stores', 'sections', 'lists', 'items', 'recipes', 'ingredients', 'products', 'units', 'sectionMemory'].map(
        (c) => [c, exported[c].length],
      ),
    );
    // 11 default sections - 1 deleted + 1 added, and the market's 11.
    expect(counts).to.deep.equal({
      stores: 2,
      sections: 22,
      lists: 3,
      items: 7,
      recipes: 2,
      ingredients: 4,
      products: 3,
      units: 1,
      sectionMemory: 3,
    });
    // Sections store by store, each store's in its walking order (the corner store's was reversed).
    const walking: string[] = [];
    for (const store of exported.stores) {
      const shown = await as(a, rich.family.admin)('GET', `/stores/${store.id}/sections`);
      walking.push(...shown.map((x: Json) => x.id));
    }
    expect(exported.sections.map((x: Json) => x.id)).to.deep.equal(walking);
    const flour = exported.items.find((i: Json) => i.name === 'Flour');
    expect(flour.removedAt).to.be.a('string');
    const override = exported.products.find((p: Json) => p.kind === 'global');
    expect(override).to.deep.include({
      id: globalProductId,
      name: `Our ${rich.tag} bread`,
      overridden: true,
      override: { name: `Our ${rich.tag} bread`, unitCategoryFlags: null, category: 'bakery' },
    });
    // The REST records, key for key.
    const week = exported.lists.find((l: Json) => l.name.startsWith('Week'));
    const detail = await as(a, rich.family.admin)('GET', `/lists/${week.id}`);
    const shown = detail.groups.flatMap((g: Json) => g.items);
    for (const item of shown) expect(exported.items.find((i: Json) => i.id === item.id)).to.deep.equal(item);
    const text = JSON.stringify(exported);
    for (const secret of [rich.family.admin.email, rich.family.inviteCode, rich.family.familyId, 'password', 'token'])
      expect(text).to.not.include(secret);
  });

  it('imports into a new family on another server (its own database): the same views, the same ids', async () => {
    const b = await startTestApp();
    try {
      await globalProduct(b, globalProductId, `Global ${rich.tag}`);
      const family = await makeFamily(b);
      const res = await importInto(b, family.admin, exported);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({
        imported: {
          units: 1,
          products: 3,
          stores: 2,
          sections: 22,
          lists: 3,
          items: 7,
          recipes: 2,
          ingredients: 4,
          sectionMemory: 3,
        },
      });
      const again = await exportOf(b, family.admin);
      const ids = idPairs(exported, again);
      const original = await views(a, rich.family.admin, rich.tag);
      expect([original.details.length, original.stores.length, original.recipeDetails.length]).to.deep.equal([3, 2, 2]);
      expect([original.products.length, original.units.length]).to.deep.equal([3, 1]);
      // A separate database: every id was free, so every id is kept (a shared PostgreSQL
      // database holds family A's rows too: there they are replaced).
      if (!usingPostgres) for (const [to, from] of ids) expect(to).to.equal(from);
      expect(normalise(await views(b, family.admin, rich.tag), ids)).to.deep.equal(normalise(original));
      // Section memory came along: an item of a remembered product lands in its section.
      const api = as(b, family.admin);
      const week = again.lists.find((l: Json) => l.name.startsWith('Week'));
      const oat = again.products.find((p: Json) => p.name.startsWith('Oat milk'));
      const item = await api('POST', `/lists/${week.id}/items`, { name: 'More oat milk', familyProductId: oat.id });
      const remembered = again.sectionMemory.find(
        (m: Json) => m.familyProductId === oat.id && m.storeId === week.storeId,
      );
      expect(item.sectionId).to.equal(remembered.sectionId);
    } finally {
      await b.close();
    }
  });

  it('categories come along (section, family product, override); a document made before them imports with none', async () => {
    const spices = exported.sections.find((x: Json) => x.name.startsWith('Spices'));
    const oat = exported.products.find((p: Json) => p.name.startsWith('Oat milk'));
    const bread = exported.products.find((p: Json) => p.id === globalProductId);
    expect([spices.category, oat.category, bread.category, bread.override.category]).to.deep.equal([
      'pantry',
      'dairy',
      'bakery',
      'bakery',
    ]);
    const family = await makeFamily(a);
    expect((await importInto(a, family.admin, exported)).status).to.equal(200);
    const api = as(a, family.admin);
    const products = (await api('GET', `/products?q=${rich.tag}`)) as Json[];
    expect(products.map((p) => [p.name.split(' ')[0], p.category]).sort()).to.deep.equal([
      ['Oat', 'dairy'],
      ['Our', 'bakery'],
      ['Sea', null],
    ]);
    // Before schema 2, a document had no `category` anywhere.
    const old = JSON.parse(JSON.stringify(exported));
    for (const x of [...old.sections, ...old.products]) delete x.category;
    for (const p of old.products) if (p.override) delete p.override.category;
    expect(JSON.stringify(old.sections)).to.not.include('category');
    const other = await makeFamily(a);
    const res = await importInto(a, other.admin, old);
    expect(res.status, res.text).to.equal(200);
    const theirs = await exportOf(a, other.admin);
    expect(theirs.sections.map((x: Json) => x.category)).to.satisfy((c: unknown[]) => c.every((v) => v === null));
    expect(theirs.products.filter((p: Json) => p.kind === 'family').map((p: Json) => p.category)).to.deep.equal([
      null,
      null,
    ]);
  });

  it('imports into a new family on the same server: taken ids are replaced, references follow, the views are the same', async () => {
    const family = await makeFamily(a);
    const res = await importInto(a, family.admin, exported);
    expect(res.status, res.text).to.equal(200);
    const again = await exportOf(a, family.admin);
    const ids = idPairs(exported, again);
    const before = new Set(ALL_IDS(exported));
    // Every record got a new id (the originals are family A's), except the global product.
    for (const id of ALL_IDS(again)) if (id !== globalProductId) expect(before.has(id), id).to.equal(false);
    expect(normalise(await views(a, family.admin, rich.tag), ids)).to.deep.equal(
      normalise(await views(a, rich.family.admin, rich.tag)),
    );
    // Section memory ids derived from store and product are derived from the imported ones.
    for (const m of again.sectionMemory) expect(m.id).to.equal(sectionMemoryId(m.storeId, m));
    // Family A is untouched.
    const now = await exportOf(a, rich.family.admin);
    expect(normalise({ ...now, exportedAt: null })).to.deep.equal(normalise({ ...exported, exportedAt: null }));
  });

  it('409 family_not_empty for a family with data of its own; nothing written', async () => {
    const family = await makeFamily(a);
    await as(a, family.admin)('POST', '/stores', { name: 'Already here' });
    const before = await snapshot(a, family.familyId);
    const res = await importInto(a, family.admin, exported);
    expect(res.status, res.text).to.equal(409);
    expect(res.body.code).to.equal('family_not_empty');
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(await snapshot(a, family.familyId)).to.equal(before);
  });

  it('two imports at once into one empty family: one is written, the other is 409; deleted records do not count', async () => {
    const family = await makeFamily(a);
    const api = as(a, family.admin);
    const gone = await api('POST', '/stores', { name: 'Closed down' });
    await api('DELETE', `/stores/${gone.id}`);
    const results = await Promise.all([importInto(a, family.admin, exported), importInto(a, family.admin, exported)]);
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409]);
    expect((await exportOf(a, family.admin)).lists).to.have.length(exported.lists.length);
  });

  it('400 for an invalid document or a dangling reference, naming the path; nothing written, version unchanged', async () => {
    const family = await makeFamily(a);
    const emptyViews = await views(a, family.admin, rich.tag);
    const version = await familyVersion(a, family.familyId);
    const before = await snapshot(a, family.familyId);
    const item = exported.items.findIndex((i: Json) => i.sectionId != null);
    const withItem = (patch: Json) => ({
      ...exported,
      items: exported.items.map((i: Json, n: number) => (n === item ? { ...i, ...patch } : i)),
    });
    const cases: Array<[string, unknown, number, string, string]> = [
      ['not a document', { format: 'something else' }, 400, 'validation_failed', 'body.format'],
      ['a name too long', withItem({ name: 'x'.repeat(501) }), 400, 'validation_failed', `body.items.${item}.name`],
      ['a list not in the document', withItem({ listId: newId() }), 400, 'list_not_found', `body.items.${item}.listId`],
      [
        'a section not in the document',
        withItem({ sectionId: newId() }),
        400,
        'section_not_found',
        `body.items.${item}.sectionId`,
      ],
      [
        'both units of a pair',
        withItem({
          unitOfMeasureId: exported.items.find((i: Json) => i.unitOfMeasureId).unitOfMeasureId,
          familyUnitOfMeasureId: exported.units[0].id,
        }),
        400,
        'validation_failed',
        `body.items.${item}.familyUnitOfMeasureId`,
      ],
      [
        'a duplicate id',
        { ...exported, stores: [...exported.stores, { ...exported.stores[0], name: 'Another' }] },
        400,
        'validation_failed',
        `body.stores.${exported.stores.length}.id`,
      ],
      [
        "another family's store",
        { ...exported, lists: exported.lists.map((l: Json) => ({ ...l, storeId: exported.stores[0].id })), stores: [] },
        400,
        'store_not_found',
        'body.lists.0.storeId',
      ],
    ];
    for (const [why, body, status, code, path] of cases) {
      const res = await importInto(a, family.admin, body);
      expect(res.status, `${why}: ${res.text}`).to.equal(status);
      expect(res.body.code, why).to.equal(code);
      expect(
        (res.body.errors as Json[]).map((e) => e.path),
        why,
      ).to.include(path);
    }
    expect(await familyVersion(a, family.familyId)).to.equal(version);
    expect(await snapshot(a, family.familyId)).to.equal(before);
    expect(await views(a, family.admin, rich.tag)).to.deep.equal(emptyViews);
  });

  it("400 naming each broken rule of the document's own: its path and message", async () => {
    const family = await makeFamily(a);
    const version = await familyVersion(a, family.familyId);
    const doc = exported;
    const memory = doc.sectionMemory[0];
    const foreignSection = doc.sections.find((x: Json) => x.storeId !== memory.storeId);
    const familyProducts = doc.products.flatMap((p: Json, i: number) => (p.kind === 'family' ? [i] : []));
    const global = doc.products.findIndex((p: Json) => p.kind === 'global');
    const with_ = (c: string, i: number, patch: Json) => ({
      ...doc,
      [c]: doc[c].map((r: Json, n: number) => (n === i ? { ...r, ...patch } : r)),
    });
    const [f0, f1] = familyProducts as [number, number];
    const globalUnit = { ...doc.units[0], id: newId(), abbreviation: `g${unique()}`, kind: 'global' };
    const cases: Array<[string, unknown, string, string, string]> = [
      [
        "a remembered section of another store's",
        with_('sectionMemory', 0, { sectionId: foreignSection.id }),
        'section_not_found',
        'body.sectionMemory.0.sectionId',
        'must name a section of its own store',
      ],
      [
        'a global product this server does not have',
        with_('products', global, { id: newId() }),
        'product_not_found',
        `body.products.${global}.id`,
        'must name a global product of this server',
      ],
      [
        'an id twice',
        { ...doc, stores: [...doc.stores, { ...doc.stores[0], name: 'Another' }] },
        'validation_failed',
        `body.stores.${doc.stores.length}.id`,
        'is the id of an earlier entry',
      ],
      [
        'a store name twice, in another case',
        with_('stores', 1, { name: doc.stores[0].name.toUpperCase() }),
        'validation_failed',
        'body.stores.1.name',
        'is the name of an earlier store',
      ],
      [
        'a family product name twice, in another case',
        with_('products', f1, { name: doc.products[f0].name.toUpperCase() }),
        'validation_failed',
        `body.products.${f1}.name`,
        'is the name of an earlier family product',
      ],
      [
        'a unit abbreviation twice',
        { ...doc, units: [...doc.units, { ...doc.units[0], id: newId(), name: 'Another' }] },
        'validation_failed',
        `body.units.${doc.units.length}.abbreviation`,
        'is the abbreviation of an earlier unit',
      ],
      [
        "a global unit's abbreviation, in another case",
        with_('units', 0, { abbreviation: 'KG' }),
        'validation_failed',
        'body.units.0.abbreviation',
        'is the abbreviation of a global unit',
      ],
      [
        'a remembered section without a product',
        with_('sectionMemory', 0, { productId: null, familyProductId: null }),
        'validation_failed',
        'body.sectionMemory.0.productId',
        'exactly one of productId and familyProductId must be set',
      ],
      [
        "a family product reference naming a global product's entry",
        with_('items', 0, { productId: null, familyProductId: doc.products[global].id }),
        'product_not_found',
        'body.items.0.familyProductId',
        'must name a family product of the document',
      ],
      [
        'a unit of kind global',
        { ...doc, units: [...doc.units, globalUnit] },
        'validation_failed',
        `body.units.${doc.units.length}.kind`,
        "must be 'family' (global units are not imported)",
      ],
      [
        'a family unit reference naming a unit of kind global',
        {
          ...with_('items', 0, { unitOfMeasureId: null, familyUnitOfMeasureId: globalUnit.id }),
          units: [...doc.units, globalUnit],
        },
        'unit_not_found',
        'body.items.0.familyUnitOfMeasureId',
        'must name a unit of the document',
      ],
      [
        'a store and product remembered twice',
        { ...doc, sectionMemory: [...doc.sectionMemory, { ...memory, id: newId() }] },
        'validation_failed',
        `body.sectionMemory.${doc.sectionMemory.length}.storeId`,
        'remembers the same store and product as an earlier entry',
      ],
    ];
    for (const [why, body, code, path, message] of cases) {
      const res = await importInto(a, family.admin, body);
      expect(res.status, `${why}: ${res.text}`).to.equal(400);
      expect(res.body.code, why).to.equal(code);
      expect(res.body.errors, why).to.deep.include({ path, message });
    }
    expect(await familyVersion(a, family.familyId)).to.equal(version);
  });

  it('imports several overrides of global products (they have no name of their own to repeat)', async () => {
    const family = await makeFamily(a);
    const second = newId();
    await globalProduct(a, second, `Second global ${unique()}`);
    const entry = exported.products.find((p: Json) => p.kind === 'global');
    const name = `Our second ${unique()}`;
    const doc = {
      ...exported,
      products: [...exported.products, { ...entry, id: second, name, override: { ...entry.override, name } }],
    };
    const res = await importInto(a, family.admin, doc);
    expect(res.status, res.text).to.equal(200);
    const overridden = (await exportOf(a, family.admin)).products.filter((p: Json) => p.kind === 'global');
    expect(overridden.map((p: Json) => p.id).sort()).to.deep.equal([entry.id, second].sort());
  });

  it('exports a reference to a record the family no longer has as null', async () => {
    const family = await makeFamily(a);
    const t = unique();
    const ids = {
      store: newId(),
      section: newId(),
      list: newId(),
      item: newId(),
      product: newId(),
      other: newId(),
      otherSection: newId(),
      liveSection: newId(),
      kept: newId(),
      kept2: newId(),
      memories: [newId(), newId(), newId()],
    };
    // Written below the services (which clear such references when they delete): an item left
    // in a deleted section, with a deleted family product.
    await familyWrite(a.deps, family.familyId, async (w) => {
      await w.insert('stores', { id: ids.store, name: `S ${t}` });
      await w.insert('store_sections', { id: ids.section, store_id: ids.store, name: 'Gone', position: 0 });
      await w.insert('family_products', { id: ids.product, name: `Gone ${t}` });
      await w.insert('shopping_lists', { id: ids.list, name: `L ${t}`, store_id: ids.store });
      await w.insert('shopping_list_items', {
        id: ids.item,
        list_id: ids.list,
        name: 'Dangling',
        section_id: ids.section,
        family_product_id: ids.product,
      });
      // Remembered sections: one in another store's section, one of the deleted product, one
      // as it should be.
      await w.insert('stores', { id: ids.other, name: `O ${t}` });
      await w.insert('store_sections', { id: ids.otherSection, store_id: ids.other, name: 'Theirs', position: 0 });
      await w.insert('store_sections', { id: ids.liveSection, store_id: ids.store, name: 'Live', position: 1 });
      await w.insert('family_products', { id: ids.kept, name: `Kept ${t}` });
      await w.insert('family_products', { id: ids.kept2, name: `Kept2 ${t}` });
      const memory = [
        [ids.otherSection, ids.kept2],
        [ids.liveSection, ids.product],
        [ids.liveSection, ids.kept],
      ];
      for (const [i, [section, product]] of memory.entries()) {
        await w.insert('product_store_sections', {
          id: ids.memories[i]!,
          store_id: ids.store,
          section_id: section!,
          family_product_id: product!,
        });
      }
      await w.tombstone('store_sections', { id: ids.section });
      await w.tombstone('family_products', { id: ids.product });
    });
    const doc = await exportOf(a, family.admin);
    expect(doc.items.find((i: Json) => i.id === ids.item)).to.include({
      name: 'Dangling',
      sectionId: null,
      familyProductId: null,
    });
    expect(doc.sections.map((x: Json) => x.id)).to.not.include(ids.section);
    expect(doc.sectionMemory.map((m: Json) => [m.sectionId, m.familyProductId])).to.deep.equal([
      [ids.liveSection, ids.kept],
    ]);
  });

  it('403 for a member, 401 without a token; another family cannot read your export', async () => {
    const family = await makeFamily(a);
    const member = await makeMember(a, family, 'member');
    expect((await request(a, 'GET', '/api/family/export', { token: member.token })).status).to.equal(403);
    const refused = await importInto(a, member, exported);
    expect([refused.status, refused.body.code]).to.deep.equal([403, 'forbidden']);
    expect((await request(a, 'GET', '/api/family/export')).status).to.equal(401);
    expect((await importInto(a, undefined, exported)).status).to.equal(401);
    // Another family's admin gets their own (empty) family, nothing of family A.
    const theirs = await exportOf(a, family.admin);
    expect(theirs.stores).to.deep.equal([]);
    const text = JSON.stringify(theirs);
    for (const id of ALL_IDS(exported)) expect(text).to.not.include(id);
    expect(text).to.not.include(rich.tag);
  });

  it('takes a document bigger than the 1 MiB of other bodies', async () => {
    const family = await makeFamily(a);
    const list = exported.lists[0];
    const items = Array.from({ length: 2000 }, (_, n) => ({
      ...exported.items.find((i: Json) => i.listId === list.id),
      id: newId(),
      name: `Item ${n}`,
      quantityNote: 'n'.repeat(450),
    }));
    const body = { ...exported, items };
    expect(Buffer.byteLength(JSON.stringify(body))).to.be.greaterThan(1.5 * 1024 * 1024);
    const res = await importInto(a, family.admin, body);
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    expect(res.body.imported.items).to.equal(2000);
  });

  it("413 over 20 MiB, saying 20 MiB (the import route's own limit); nothing written", async () => {
    const family = await makeFamily(a);
    const res = await request(a, 'POST', '/api/family/import', {
      token: family.admin.token,
      rawBody: JSON.stringify({ pad: 'x'.repeat(20 * 1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(413);
    expect(res.body.code).to.equal('payload_too_large');
    expect(res.body.detail).to.include('20 MiB');
    const lists = await request(a, 'GET', '/api/lists', { token: family.admin.token });
    expect(lists.body).to.deep.equal([]);
  });

  it("a second member's live socket and replication pull see the imported records", async () => {
    const family = await makeFamily(a);
    const member = await makeMember(a, family, 'member');
    const pullAll = async (c: CollectionName, checkpoint: Json = null) => {
      const res = await request(a, 'GET', pullUrl(c, checkpoint, 1000, SCHEMA_VERSION), {
        token: member.token,
      });
      expect(res.status, res.text).to.equal(200);
      return res.body as { documents: Json[]; checkpoint: Json };
    };
    const start = await pullAll('lists');
    const socket = await TestSocket.connect(a, member.token);
    try {
      const res = await importInto(a, family.admin, exported);
      expect(res.status, res.text).to.equal(200);
      const changed = await socket.next((f) => f.type === 'Changed');
      expect(changed.collections).to.include.members(['lists', 'items', 'stores', 'sectionMemory']);
      const lists = await pullAll('lists', start.checkpoint);
      expect(lists.documents.map((d) => d.name).sort()).to.deep.equal(exported.lists.map((l: Json) => l.name).sort());
      const items = await pullAll('items');
      expect(items.documents).to.have.length(exported.items.length);
      const memory = await pullAll('sectionMemory');
      expect(memory.documents).to.have.length(exported.sectionMemory.length);
    } finally {
      socket.close();
    }
  });
});
