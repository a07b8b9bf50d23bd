// Product categories (api-contract §10): family products take a category on create and patch, a
// family's override of a global product may set one (the effective category follows the override
// as `name` does), records, searches and replication docs carry it, and a global product doc
// pushed with a category writes the override. The staple seeder gives every staple a category.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { appOnOwnDatabase } from '../../helpers/staples.js';
import { makeFamily } from '../../helpers/factories.js';
import { catalogWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import { seedStapleProducts } from '../../../server/startup/jobs.js';
import { loadStapleProducts } from '../../../seeds/load.js';
import { CATEGORIES } from '@family-shopping/client/protocol';
import { familyVersion, pullAll, push } from '../sync/helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

async function globalProduct(app: App, name: string, category: string | null): Promise<string> {
  const id = newId();
  await catalogWrite(app.deps, (trx, version) =>
    trx('products').insert({ id, key: `test-${id}`, name, category, catalog_version: version }),
  );
  return id;
}

const tag = () => newId().slice(0, 8);

describe('product categories (§10)', () => {
  before(async function () {
    this.timeout(120_000); // the shared app's start, on a busy machine
    await testApp();
  });

  it('family products: category on create and patch; search and pull carry it', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const name = `Jam ${tag()}`;
    const created = await request(app, 'POST', '/api/products', { token: t, body: { name, category: 'pantry' } });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ kind: 'family', name, category: 'pantry' });
    const plain = await request(app, 'POST', '/api/products', { token: t, body: { name: `${name} plain` } });
    expect(plain.body.category).to.equal(null);

    const patched = await request(app, 'PATCH', `/api/products/${created.body.id}`, {
      token: t,
      body: { category: 'snacks' },
    });
    expect([patched.status, patched.body.category, patched.body.name]).to.deep.equal([200, 'snacks', name]);
    const search = await request(app, 'GET', `/api/products?q=${encodeURIComponent(name)}`, { token: t });
    expect(search.body.map((p: any) => [p.name, p.category])).to.deep.equal([
      [name, 'snacks'],
      [`${name} plain`, null],
    ]);
    const docs = (await pullAll(app, t, 'products', null, 1000)).docs;
    expect(docs.get(created.body.id)).to.include({ category: 'snacks', _deleted: false });
    const cleared = await request(app, 'PATCH', `/api/products/${created.body.id}`, {
      token: t,
      body: { category: null },
    });
    expect(cleared.body.category).to.equal(null);
  });

  it('an unknown category is 400 validation_failed and changes nothing', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const fp = (await request(app, 'POST', '/api/products', { token: t, body: { name: `Tea ${tag()}` } })).body;
    const global = await globalProduct(app, `Rice ${tag()}`, 'pantry');
    const version = await familyVersion(app, family.familyId);
    for (const [method, path, body] of [
      ['POST', '/api/products', { name: `Bad ${tag()}`, category: 'toys' }],
      ['POST', '/api/products', { name: `Bad ${tag()}`, category: 'Produce' }],
      ['PATCH', `/api/products/${fp.id}`, { category: 'garden' }],
      ['PATCH', `/api/products/${fp.id}`, { category: 3 }],
      ['PUT', `/api/products/${global}/override`, { category: 'sweets' }],
    ] as const) {
      const r = await request(app, method, path, { token: t, body });
      expect([r.status, r.body.code], `${method} ${path}`).to.deep.equal([400, 'validation_failed']);
      expect(r.body.errors.map((e: any) => e.path)).to.include('body.category');
    }
    expect(await familyVersion(app, family.familyId)).to.equal(version);
    expect(
      (await request(app, 'GET', `/api/products?q=${encodeURIComponent(fp.name)}`, { token: t })).body[0],
    ).to.include({
      category: null,
    });
  });

  it('the effective category follows the override; a pushed global doc with a category writes the override', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const other = await makeFamily(app);
    const t = family.admin.token;
    const name = `Peas ${tag()}`;
    const peas = await globalProduct(app, name, 'produce');
    const read = async (token = t) =>
      (await request(app, 'GET', `/api/products?q=${encodeURIComponent(name)}`, { token })).body[0];
    expect(await read()).to.include({ category: 'produce', overridden: false });

    const put = await request(app, 'PUT', `/api/products/${peas}/override`, { token: t, body: { category: 'frozen' } });
    expect(put.status).to.equal(200);
    expect(put.body).to.include({ name, category: 'frozen', overridden: true });
    expect(await read()).to.include({ category: 'frozen' });
    expect(await read(other.admin.token)).to.include({ category: 'produce', overridden: false });
    // An override of the name alone: the category follows the global product.
    await request(app, 'PUT', `/api/products/${peas}/override`, { token: t, body: { name: `${name} (frozen)` } });
    expect(await read()).to.include({ name: `${name} (frozen)`, category: 'produce' });
    expect((await request(app, 'DELETE', `/api/products/${peas}/override`, { token: t })).status).to.equal(204);

    // Push: the global doc with another category → the override; back to the global's → cleared.
    let doc = (await pullAll(app, t, 'products', null, 1000)).docs.get(peas)!;
    expect(doc).to.include({ category: 'produce', overridden: false });
    let res = await push(app, t, 'products', [
      { assumedMasterState: doc, newDocumentState: { ...doc, category: 'frozen' } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect(await read()).to.include({ name, category: 'frozen', overridden: true });
    doc = (await pullAll(app, t, 'products', null, 1000)).docs.get(peas)!;
    expect(doc).to.include({ category: 'frozen', overridden: true });
    res = await push(app, t, 'products', [
      { assumedMasterState: doc, newDocumentState: { ...doc, category: 'produce' } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect(await read()).to.include({ category: 'produce', overridden: false });

    // A family product pushed with a category, then changed by push.
    const own = {
      id: newId(),
      kind: 'family',
      name: `Own ${tag()}`,
      englishName: null,
      unitCategoryFlags: [],
      category: 'deli',
      overridden: false,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      _deleted: false,
    };
    expect((await push(app, t, 'products', [{ newDocumentState: own }])).body.rejected).to.deep.equal([]);
    const ownDoc = (await pullAll(app, t, 'products', null, 1000)).docs.get(own.id)!;
    expect(ownDoc.category).to.equal('deli');
    res = await push(app, t, 'products', [
      { assumedMasterState: ownDoc, newDocumentState: { ...ownDoc, category: 'meat' } },
    ]);
    expect(res.body.rejected).to.deep.equal([]);
    expect((await pullAll(app, t, 'products', null, 1000)).docs.get(own.id)!.category).to.equal('meat');
    // An unknown category in a doc is rejected, nothing written.
    res = await push(app, t, 'products', [{ newDocumentState: { ...own, id: newId(), category: 'toys' } }]);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal(['validation_failed']);
  });

  it('the staple seeder gives every staple its category, fills a missing one as a catalog write, once', async function () {
    this.timeout(300_000);
    const staples = loadStapleProducts();
    expect(staples.every((p) => (CATEGORIES as readonly string[]).includes(p.category))).to.equal(true);
    const expected = Object.fromEntries(staples.map((p) => [p.key, p.category]));
    expect(expected).to.include({
      bananas: 'produce',
      milk: 'dairy',
      bread: 'bakery',
      'dish-soap': 'household',
      shampoo: 'personal_care',
      'ground-beef': 'meat',
      'ice-cream': 'frozen',
      coffee: 'beverages',
    });

    // A database of its own (the seeder writes the global catalog every family shares).
    const { app, close } = await appOnOwnDatabase();
    try {
      const db = app.deps.db;
      const counter = async () => Number((await db('catalog_counter').first('version')).version);
      // Two instances starting at once: each staple added once.
      const added = await Promise.all([seedStapleProducts(db), seedStapleProducts(db)]);
      expect(added[0] + added[1]).to.equal(staples.length);
      const rows = (await db('products').select('key', 'category', 'catalog_version')) as Array<{
        key: string;
        category: string | null;
        catalog_version: string;
      }>;
      expect(Object.fromEntries(rows.map((r) => [r.key, r.category]))).to.deep.equal(expected);

      // A staple stored before categories existed: the next start sets it, at a new catalog version.
      await catalogWrite(app.deps, (trx, version) =>
        trx('products').whereIn('key', ['milk', 'bananas']).update({ category: null, catalog_version: version }),
      );
      const family = await makeFamily(app);
      const before = await pullAll(app, family.admin.token, 'products', null, 1000);
      expect(await Promise.all([seedStapleProducts(db), seedStapleProducts(db)])).to.deep.equal([0, 0]);
      const after = await pullAll(app, family.admin.token, 'products', before.checkpoint, 1000);
      expect([...after.docs.values()].map((d) => [d.name, d.category]).sort()).to.deep.equal([
        ['Bananas', 'produce'],
        ['Milk', 'dairy'],
      ]);
      // Nothing left to do: no write, the catalog version stays.
      const version = await counter();
      expect(await seedStapleProducts(db)).to.equal(0);
      expect(await counter()).to.equal(version);
    } finally {
      await close();
    }
  });
});
