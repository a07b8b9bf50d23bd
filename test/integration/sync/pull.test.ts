// Replication pull: every collection, docs in the REST record shape plus `_deleted`, pages in
// commit order, tombstones, the effective catalogs' two cursors, and the error answers.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { catalogWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import {
  COLLECTIONS,
  MIN_SCHEMA_VERSION,
  SCHEMA_VERSION,
  pullResponseSchemas,
  type Checkpoint,
  type CollectionName,
} from '@family-shopping/client/protocol';
import { familyVersion, pull, pullAll, uuid } from './helpers.js';
import { familyDoc } from '../../../server/sync/docs.js';
import { pullBody, pullDocs } from '../../../server/sync/pull.js';

async function seedFamily(app: Awaited<ReturnType<typeof testApp>>) {
  const family = await makeFamily(app);
  const t = family.admin.token;
  const post = async (path: string, body: unknown) => {
    const r = await request(app, 'POST', path, { token: t, body });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const globalProductId = newId();
  await catalogWrite(app.deps, (trx, version) =>
    trx('products').insert({
      id: globalProductId,
      key: `t-${globalProductId}`,
      name: `Flour ${globalProductId.slice(0, 6)}`,
      catalog_version: version,
    }),
  );
  const store = await post('/api/stores', { name: 'Corner shop' });
  const list = await post('/api/lists', { name: 'Weekly', storeId: store.id });
  const produce = store.sections[0].id;
  const item = await post(`/api/lists/${list.id}/items`, {
    name: 'Flour',
    productId: globalProductId,
    sectionId: produce,
    quantity: 1.5,
  });
  const recipe = await post('/api/recipes', { name: 'Bread', ingredients: [{ name: 'Flour', quantity: 0.5 }] });
  const product = await post('/api/products', {
    name: `Oat drink ${uuid().slice(0, 6)}`,
    unitCategoryFlags: ['Volume'],
  });
  const unit = await post('/api/units', { name: 'Crate', abbreviation: `cr${uuid().slice(0, 6)}`, category: 'Count' });
  const override = await request(app, 'PUT', `/api/products/${globalProductId}/override`, {
    token: t,
    body: { name: 'My flour' },
  });
  expect(override.status).to.equal(200);
  return { family, token: t, store, list, item, recipe, product, unit, globalProductId, produce };
}

describe('sync pull', () => {
  it('returns every collection in the REST record shape plus _deleted, valid against the protocol schemas', async () => {
    const app = await testApp();
    const s = await seedFamily(app);
    const pulled: Partial<Record<CollectionName, Map<string, any>>> = {};
    for (const c of COLLECTIONS) {
      const r = await pull(app, s.token, c, null, 1000);
      expect(r.status, `${c}: ${r.text}`).to.equal(200);
      pullResponseSchemas[c].parse(r.body);
      pulled[c] = new Map(r.body.documents.map((d) => [d.id, d]));
    }
    expect(pulled.stores!.get(s.store.id)).to.deep.include({ name: 'Corner shop', _deleted: false });
    expect(pulled.stores!.get(s.store.id)).to.not.have.property('sections');
    expect(pulled.sections!.size).to.equal(11);
    expect(pulled.lists!.get(s.list.id)).to.deep.include({
      name: 'Weekly',
      storeId: s.store.id,
      archivedAt: null,
      _deleted: false,
    });
    expect(pulled.items!.get(s.item.id)).to.deep.equal({ ...s.item, _deleted: false });
    expect(pulled.recipes!.get(s.recipe.id)).to.deep.include({ name: 'Bread', _deleted: false });
    expect([...pulled.ingredients!.values()].map((d) => d.name)).to.deep.equal(['Flour']);
    const memory = [...pulled.sectionMemory!.values()];
    expect(memory).to.have.length(1);
    expect(memory[0]).to.deep.include({
      storeId: s.store.id,
      productId: s.globalProductId,
      sectionId: s.produce,
      _deleted: false,
    });
    expect(pulled.products!.get(s.product.id)).to.deep.include({
      kind: 'family',
      unitCategoryFlags: ['Volume'],
      overridden: false,
    });
    expect(pulled.products!.get(s.globalProductId)).to.deep.include({
      kind: 'global',
      name: 'My flour',
      overridden: true,
    });
    expect(pulled.units!.get(s.unit.id)).to.deep.include({ kind: 'family', code: null, name: 'Crate' });
    expect([...pulled.units!.values()].some((u) => u.kind === 'global' && u.code === 'each')).to.equal(true);
    for (const docs of Object.values(pulled))
      for (const d of docs!.values()) expect(d).to.not.have.property('familyId');

    // Field for field the REST record (nested and computed parts aside) plus `_deleted: false`.
    const rest = async (path: string) => (await request(app, 'GET', path, { token: s.token })).body;
    const doc = (r: Record<string, unknown>, ...drop: string[]) => ({
      ...Object.fromEntries(Object.entries(r).filter(([k]) => !drop.includes(k))),
      _deleted: false,
    });
    const storeRecord = await rest(`/api/stores/${s.store.id}`);
    expect(pulled.stores!.get(s.store.id)).to.deep.equal(doc(storeRecord, 'sections'));
    for (const section of storeRecord.sections) expect(pulled.sections!.get(section.id)).to.deep.equal(doc(section));
    const listRecord = (await rest('/api/lists')).find((l: { id: string }) => l.id === s.list.id);
    expect(pulled.lists!.get(s.list.id)).to.deep.equal(doc(listRecord, 'itemCount', 'checkedCount'));
    const recipeRecord = await rest(`/api/recipes/${s.recipe.id}`);
    expect(pulled.recipes!.get(s.recipe.id)).to.deep.equal(doc(recipeRecord, 'ingredients'));
    for (const ingredient of recipeRecord.ingredients)
      expect(pulled.ingredients!.get(ingredient.id)).to.deep.equal(doc(ingredient));
    for (const product of await rest('/api/products?limit=200')) {
      expect(pulled.products!.get(product.id), product.name).to.deep.equal(doc(product));
    }
    expect(pulled.products!.get(s.product.id)).to.deep.equal(doc(s.product));
    for (const unit of await rest('/api/units')) expect(pulled.units!.get(unit.id), unit.name).to.deep.equal(doc(unit));
  });

  it('pages in (version, id) order, resumes from the checkpoint, echoes it when nothing is newer', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const empty = await pull(app, t, 'items');
    expect(empty.body).to.deep.equal({ documents: [], checkpoint: null });
    const list = (await request(app, 'POST', '/api/lists', { token: t, body: { name: 'L' } })).body;
    for (let i = 0; i < 7; i++)
      await request(app, 'POST', `/api/lists/${list.id}/items`, { token: t, body: { name: `item ${i}` } });
    const seen: string[] = [];
    let cp = null;
    for (const expected of [3, 3, 1]) {
      const r = await pull(app, t, 'items', cp, 3);
      expect(r.body.documents).to.have.length(expected);
      seen.push(...r.body.documents.map((d) => d.name));
      cp = r.body.checkpoint;
    }
    expect(seen).to.deep.equal([0, 1, 2, 3, 4, 5, 6].map((i) => `item ${i}`));
    const again = await pull(app, t, 'items', cp, 3);
    expect(again.body).to.deep.equal({ documents: [], checkpoint: cp });
    // A change to an early item brings it (and only it) back.
    const first = (await pullAll(app, t, 'items')).docs;
    const firstId = [...first.values()].find((d) => d.name === 'item 0')!.id;
    await request(app, 'PATCH', `/api/lists/${list.id}/items/${firstId}`, { token: t, body: { name: 'item 0 (2)' } });
    const next = await pull(app, t, 'items', cp, 3);
    expect(next.body.documents.map((d) => d.name)).to.deep.equal(['item 0 (2)']);
  });

  it('reports hard deletes as tombstones carrying the last state; soft-removed items stay ordinary docs', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = (await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Party' } })).body;
    const a = (await request(app, 'POST', `/api/lists/${list.id}/items`, { token: t, body: { name: 'Chips' } })).body;
    const b = (await request(app, 'POST', `/api/lists/${list.id}/items`, { token: t, body: { name: 'Dip' } })).body;
    const { checkpoint } = await pullAll(app, t, 'items');
    await request(app, 'DELETE', `/api/lists/${list.id}/items/${a.id}`, { token: t });
    const removed = await pull(app, t, 'items', checkpoint);
    expect(removed.body.documents).to.have.length(1);
    expect(removed.body.documents[0]).to.include({ id: a.id, _deleted: false, removedByUserId: family.admin.userId });
    expect(removed.body.documents[0].removedAt).to.be.a('string');
    await request(app, 'DELETE', `/api/lists/${list.id}`, { token: t });
    const gone = await pull(app, t, 'items', removed.body.checkpoint);
    expect(gone.body.documents.map((d) => [d.id, d._deleted, d.name]).sort()).to.deep.equal(
      [
        [a.id, true, 'Chips'],
        [b.id, true, 'Dip'],
      ].sort(),
    );
    const lists = await pullAll(app, t, 'lists');
    expect(lists.docs.get(list.id)).to.include({ _deleted: true, name: 'Party' });
  });

  it('writes item docs byte for byte as the row → doc mapping would (the page is built by the database)', async () => {
    const app = await testApp();
    const s = await seedFamily(app);
    const base = `/api/lists/${s.list.id}/items`;
    const post = async (body: unknown) => (await request(app, 'POST', base, { token: s.token, body })).body;
    const plain = await post({ name: 'Tea "Earl Grey" \\ ½ 🍵\n', quantity: 0.125, quantityNote: 'ripe ones' });
    const checked = await post({ name: 'Milk', isApproximate: true, familyUnitOfMeasureId: s.unit.id, quantity: 2 });
    await request(app, 'PATCH', `${base}/${checked.id}`, { token: s.token, body: { checked: true } });
    await post({ name: 'Bread', familyProductId: s.product.id });
    await request(app, 'DELETE', `${base}/${plain.id}`, { token: s.token });
    // A tombstone: the items of a deleted list.
    const other = (await request(app, 'POST', '/api/lists', { token: s.token, body: { name: 'Other' } })).body;
    await request(app, 'POST', `/api/lists/${other.id}/items`, { token: s.token, body: { name: 'Gone' } });
    await request(app, 'DELETE', `/api/lists/${other.id}`, { token: s.token });
    for (const limit of [2, 1000]) {
      const r = await pull(app, s.token, 'items', null, limit);
      expect(r.status).to.equal(200);
      const rows = await app.deps
        .db('shopping_list_items')
        .where({ family_id: s.family.familyId })
        .orderBy(['version', 'id'])
        .limit(limit);
      const expected = JSON.stringify({
        documents: rows.map((row) => familyDoc('items', row)),
        checkpoint: r.body.checkpoint,
      });
      expect(r.text).to.equal(expected);
    }
    // PGlite: the page's statement as a database function (what the service calls there) gives
    // the plain statement's bytes, documents and checkpoint alike, page after page and from any
    // checkpoint: the start, mid-walk, a catalog-style one (no row id), the end.
    if (!app.deps.statementFunctions) return;
    const page = async (checkpoint: Checkpoint | null, limit: number, statementFunctions: boolean) =>
      pullBody(await pullDocs({ db: app.deps.db, statementFunctions }, s.family.familyId, 'items', checkpoint, limit));
    const all = await app.deps
      .db('shopping_list_items')
      .where({ family_id: s.family.familyId })
      .orderBy(['version', 'id']);
    for (const limit of [1, 2, 3, 1000]) {
      let checkpoint: Checkpoint | null = null;
      const walked: string[] = [];
      for (;;) {
        const plain = await page(checkpoint, limit, false);
        expect(await page(checkpoint, limit, true), `limit ${limit} after ${JSON.stringify(checkpoint)}`).to.equal(
          plain,
        );
        const body = JSON.parse(plain) as { documents: Array<{ id: string }>; checkpoint: Checkpoint };
        if (body.documents.length === 0) break;
        walked.push(...body.documents.map((d) => d.id));
        checkpoint = body.checkpoint;
        const bare = { version: checkpoint.version - 1, id: '' };
        expect(await page(bare, limit, true)).to.equal(await page(bare, limit, false));
      }
      expect(walked).to.deep.equal(all.map((row) => row.id));
    }
  });

  it('never returns another family’s docs', async () => {
    const app = await testApp();
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    const list = (await request(app, 'POST', '/api/lists', { token: a.admin.token, body: { name: 'Secret' } })).body;
    await request(app, 'POST', `/api/lists/${list.id}/items`, { token: a.admin.token, body: { name: 'Gift' } });
    await request(app, 'POST', '/api/stores', { token: a.admin.token, body: { name: 'A store' } });
    await request(app, 'POST', '/api/products', { token: a.admin.token, body: { name: `A product ${uuid()}` } });
    await request(app, 'POST', '/api/units', {
      token: a.admin.token,
      body: { name: 'A unit', abbreviation: `au${uuid().slice(0, 6)}`, category: 'Count' },
    });
    for (const c of COLLECTIONS) {
      const { docs } = await pullAll(app, b.admin.token, c, null, 1000);
      for (const d of docs.values()) expect(d.kind ?? 'family-data', `${c} ${d.id}`).to.not.equal('family');
      if (!['products', 'units'].includes(c)) expect(docs.size, c).to.equal(0);
    }
  });

  it('follows the global catalog as a second cursor; override changes and clears re-emit the effective doc', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const start = await pullAll(app, t, 'products', null, 50);
    expect(start.checkpoint).to.have.property('catalogVersion');
    const id = newId();
    await catalogWrite(app.deps, (trx, version) =>
      trx('products').insert({ id, key: `t-${id}`, name: 'Rye', catalog_version: version }),
    );
    const added = await pullAll(app, t, 'products', start.checkpoint);
    expect([...added.docs.values()]).to.deep.equal([
      {
        ...added.docs.get(id)!,
        id,
        kind: 'global',
        name: 'Rye',
        unitCategoryFlags: [],
        overridden: false,
        _deleted: false,
      },
    ]);
    await request(app, 'PUT', `/api/products/${id}/override`, { token: t, body: { unitCategoryFlags: ['Weight'] } });
    const overridden = await pullAll(app, t, 'products', added.checkpoint);
    expect(
      [...overridden.docs.values()].map((d) => [d.id, d.name, d.unitCategoryFlags, d.overridden, d._deleted]),
    ).to.deep.equal([[id, 'Rye', ['Weight'], true, false]]);
    await request(app, 'DELETE', `/api/products/${id}/override`, { token: t });
    const cleared = await pullAll(app, t, 'products', overridden.checkpoint);
    expect([...cleared.docs.values()].map((d) => [d.id, d.unitCategoryFlags, d.overridden, d._deleted])).to.deep.equal([
      [id, [], false, false],
    ]);
    const fp = (await request(app, 'POST', '/api/products', { token: t, body: { name: `Mine ${uuid()}` } })).body;
    await request(app, 'DELETE', `/api/products/${fp.id}`, { token: t });
    const deleted = await pullAll(app, t, 'products', cleared.checkpoint);
    expect(deleted.docs.get(fp.id)).to.include({ kind: 'family', _deleted: true });
  });

  it('fills a page from the family side first, then the global catalog, without losing either', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    for (let i = 0; i < 5; i++) {
      await request(app, 'POST', '/api/units', {
        token: t,
        body: { name: `U${i}`, abbreviation: `u${i}${uuid().slice(0, 6)}`, category: 'Count' },
      });
    }
    const all = await pullAll(app, t, 'units', null, 1000);
    const paged = await pullAll(app, t, 'units', null, 2);
    expect([...paged.docs.keys()].sort()).to.deep.equal([...all.docs.keys()].sort());
    const firstPage = await pull(app, t, 'units', null, 2);
    expect(firstPage.body.documents.every((d) => d.kind === 'family')).to.equal(true);
  });

  it('answers 410 for a checkpoint ahead of what the server has issued (another family\u2019s, or from before a restore), so no row is skipped', async () => {
    const app = await testApp();
    const older = await makeFamily(app);
    for (let i = 0; i < 5; i++)
      await request(app, 'POST', '/api/lists', { token: older.admin.token, body: { name: `List ${i}` } });
    const ahead = (await pull(app, older.admin.token, 'lists')).body.checkpoint!;
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Weekly' } });
    expect(ahead.version).to.be.greaterThan(await familyVersion(app, family.familyId));
    const res = await pull(app, t, 'lists', ahead);
    expect([res.status, res.body.code]).to.deep.equal([410, 'checkpoint_expired']);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    const fresh = await pull(app, t, 'lists');
    expect(fresh.body.documents.map((d) => d.id)).to.deep.equal([list.body.id]);
    // The current checkpoint itself is fine: nothing newer.
    const again = await pull(app, t, 'lists', fresh.body.checkpoint);
    expect([again.status, again.body.documents]).to.deep.equal([200, []]);
    // The global catalog cursor likewise.
    const catalog = (await pullAll(app, t, 'units', null, 1000)).checkpoint!;
    const future = await pull(app, t, 'units', { ...catalog, catalogVersion: catalog.catalogVersion! + 1000 });
    expect([future.status, future.body.code]).to.deep.equal([410, 'checkpoint_expired']);
  });

  it('answers 426 for an absent or old schema, 400 for a newer one, a bad checkpoint or limit, 404 for an unknown collection, 401 without a token', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const get = (path: string) => request(app, 'GET', path, { token: t });
    const noSchema = await get('/api/sync/items/pull');
    expect(noSchema.status).to.equal(426);
    expect(noSchema.body.code).to.equal('schema_outdated');
    expect(noSchema.headers.get('content-type')).to.match(/problem\+json/);
    expect((await get('/api/sync/items/pull?schema=0')).body.code).to.equal('schema_outdated');
    // Below the oldest schema served (api-contract §10: 1 answers 426 schema_outdated; 2, the
    // contract's, is still served beside the current one).
    expect(MIN_SCHEMA_VERSION).to.equal(2);
    expect((await get(`/api/sync/items/pull?schema=${MIN_SCHEMA_VERSION}`)).status).to.equal(200);
    expect((await request(app, 'POST', '/api/sync/items/push?schema=2', { token: t, body: [] })).status).to.equal(200);
    const older = await get('/api/sync/items/pull?schema=1');
    expect([older.status, older.body.code]).to.deep.equal([426, 'schema_outdated']);
    const olderPush = await request(app, 'POST', '/api/sync/items/push?schema=1', {
      token: t,
      body: [],
    });
    expect([olderPush.status, olderPush.body.code]).to.deep.equal([426, 'schema_outdated']);
    expect((await request(app, 'POST', '/api/sync/items/push?schema=0', { token: t, body: [] })).status).to.equal(426);
    const newer = await get(`/api/sync/items/pull?schema=${SCHEMA_VERSION + 1}`);
    expect([newer.status, newer.body.code]).to.deep.equal([400, 'schema_unsupported']);
    const bad = await get(`/api/sync/items/pull?schema=${SCHEMA_VERSION}&checkpoint=%7Bnope`);
    expect([bad.status, bad.body.code]).to.deep.equal([400, 'validation_failed']);
    const badId = await get(
      `/api/sync/items/pull?schema=${SCHEMA_VERSION}&checkpoint=${encodeURIComponent(JSON.stringify({ version: 1, id: 'x' }))}`,
    );
    expect(badId.status).to.equal(400);
    expect((await get(`/api/sync/items/pull?schema=${SCHEMA_VERSION}&limit=1001`)).status).to.equal(400);
    expect((await get(`/api/sync/items/pull?schema=${SCHEMA_VERSION}&limit=0`)).status).to.equal(400);
    expect((await get(`/api/sync/items/pull?schema=${SCHEMA_VERSION}&limit=1000`)).status).to.equal(200);
    // Without a limit: pages of 100 (10 stores hold 110 sections).
    for (let i = 0; i < 10; i++) await request(app, 'POST', '/api/stores', { token: t, body: { name: `Store ${i}` } });
    expect((await get(`/api/sync/sections/pull?schema=${SCHEMA_VERSION}`)).body.documents).to.have.length(100);
    expect((await get(`/api/sync/things/pull?schema=${SCHEMA_VERSION}`)).status).to.equal(404);
    expect((await request(app, 'GET', `/api/sync/items/pull?schema=${SCHEMA_VERSION}`)).status).to.equal(401);
  });
});
