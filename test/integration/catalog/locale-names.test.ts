// The family's locale names its view of the global catalog and its new stores' default sections
// (api-contract §12): a German family sees the staples' German names in `GET /api/products`, finds
// them by the German and the English name, keeps its overrides, and its devices pull the German
// names after the switch (and the English ones after switching back). Family products keep their
// names. The staples and their names are seeded as at startup, in a database of the test's own
// (the seeder writes the global catalog every family shares).
import { expect } from 'chai';
import crypto from 'node:crypto';
import { request } from '../../helpers/app.js';
import { appWithStaples } from '../../helpers/staples.js';
import { makeFamily, type TestFamily } from '../../helpers/factories.js';
import { catalogWrite } from '../../../server/db/family-write.js';
import { stableId } from '../../../server/db/ids.js';
import type { RunningServer } from '../../../server/server.js';
import { seedProductNames } from '../../../server/startup/jobs.js';
import { loadProductNames, loadStapleProducts } from '../../../seeds/load.js';
import { DEFAULT_SECTIONS, defaultSectionNames, type Checkpoint } from '@family-shopping/client/protocol';
import { pull, pullAll, push, type AnyDoc } from '../sync/helpers.js';
import { TestSocket } from '../realtime/client.js';

const MILK = stableId('product', 'milk');

describe('the family locale names the catalog and the default sections (§12)', function () {
  this.timeout(180_000); // an app of its own, on a busy machine
  let app: RunningServer;
  let close: () => Promise<void>;

  before(async () => {
    ({ app, close } = await appWithStaples());
  });
  after(async () => close?.());

  const setLocale = async (family: TestFamily, locale: string) => {
    const r = await request(app, 'PATCH', '/api/family', { token: family.admin.token, body: { locale } });
    expect(r.status, r.text).to.equal(200);
  };
  const search = async (family: TestFamily, q: string) =>
    (await request(app, 'GET', `/api/products?q=${encodeURIComponent(q)}&limit=200`, { token: family.admin.token }))
      .body as AnyDoc[];

  it('seeds every staple in every language once, and again only what changed', async () => {
    const names = loadProductNames();
    const staples = loadStapleProducts().map((s) => s.key);
    for (const locale of ['de', 'fr', 'es', 'pt-BR'] as const) {
      expect(Object.keys(names[locale]).sort(), locale).to.deep.equal([...staples].sort());
    }
    const rows = (await app.deps.db('product_names').count({ n: '*' }).first()) as { n: string | number };
    expect(Number(rows.n)).to.equal(staples.length * 4);
    // Two instances starting at once with nothing to do: no write, the catalog version stays.
    const counter = async () => Number((await app.deps.db('catalog_counter').first('version')).version);
    const version = await counter();
    expect(await Promise.all([seedProductNames(app.deps.db), seedProductNames(app.deps.db)])).to.deep.equal([0, 0]);
    expect(await counter()).to.equal(version);

    // A name that differs from the file (a corrected translation): the next start writes it back
    // and moves the product's catalog version, so devices pull it again.
    const family = await makeFamily(app);
    await setLocale(family, 'de');
    const before = await pullAll(app, family.admin.token, 'products', null, 1000);
    expect(before.docs.get(MILK)).to.include({ name: 'Milch' });
    await catalogWrite(app.deps, async (trx, v) => {
      await trx('products').where({ id: MILK }).update({ catalog_version: v });
      await trx('product_names').where({ product_id: MILK, locale: 'de' }).update({ name: 'Milk (de)' });
    });
    const wrong = await pullAll(app, family.admin.token, 'products', before.checkpoint, 1000);
    expect([...wrong.docs.values()].map((d) => d.name)).to.deep.equal(['Milk (de)']);
    expect(await Promise.all([seedProductNames(app.deps.db), seedProductNames(app.deps.db)])).to.have.members([1, 0]);
    const fixed = await pullAll(app, family.admin.token, 'products', wrong.checkpoint, 1000);
    expect([...fixed.docs.values()].map((d) => d.name)).to.deep.equal(['Milch']);
  });

  it('a name is written only by a catalog write that stamps its product', async () => {
    for (const write of [
      () => app.deps.db('product_names').where({ product_id: MILK, locale: 'fr' }).update({ name: 'Lait!' }),
      () =>
        catalogWrite(app.deps, (trx) =>
          trx('product_names').where({ product_id: MILK, locale: 'fr' }).update({ name: 'Lait!' }),
        ),
    ]) {
      const err = await write().then(
        () => null,
        (e: { code?: string }) => e,
      );
      expect(err?.code).to.equal('FS001');
    }
    expect((await app.deps.db('product_names').where({ product_id: MILK, locale: 'fr' }).first()).name).to.equal(
      'Lait',
    );
  });

  it('GET /api/products: the German name, found by "Milch" and by "milk"; an override wins; English again', async () => {
    const family = await makeFamily(app);
    const other = await makeFamily(app);
    const own = (
      await request(app, 'POST', '/api/products', { token: family.admin.token, body: { name: 'Hafermilch' } })
    ).body;
    expect((await search(family, 'milk')).find((p) => p.id === MILK)).to.include({ name: 'Milk', kind: 'global' });
    expect(await search(family, 'Milch')).to.satisfy((ps: AnyDoc[]) => ps.every((p) => p.id !== MILK));

    await setLocale(family, 'de');
    const milch = (await search(family, 'Milch')).find((p) => p.id === MILK);
    expect(milch).to.include({ name: 'Milch', kind: 'global', overridden: false, category: 'dairy' });
    // The English name still finds it; the order is by the name the family sees.
    expect((await search(family, 'milk')).map((p) => p.name)).to.include('Milch');
    expect((await search(family, 'MILCH')).map((p) => p.name)).to.include.members(['Milch', 'Hafermilch']);
    // Family products keep their names, in every locale.
    expect((await search(family, 'Hafermilch')).map((p) => [p.id, p.name])).to.deep.equal([[own.id, 'Hafermilch']]);
    // The whole catalog: every staple named in German (none left in English but those alike).
    const all = await search(family, '');
    const de = loadProductNames().de;
    for (const staple of loadStapleProducts()) {
      expect(all.find((p) => p.id === stableId('product', staple.key))?.name).to.equal(de[staple.key]);
    }
    // Another family still speaks English.
    expect((await search(other, 'milk')).find((p) => p.id === MILK)).to.include({ name: 'Milk' });

    // An item by product takes the name the family sees.
    const list = (
      await request(app, 'POST', '/api/lists', { token: family.admin.token, body: { name: 'Wocheneinkauf' } })
    ).body;
    const item = await request(app, 'POST', `/api/lists/${list.id}/items`, {
      token: family.admin.token,
      body: { productId: MILK },
    });
    expect([item.status, item.body.name]).to.deep.equal([201, 'Milch']);

    // An override still wins: it is found by its own name alone (it replaces the global names
    // for matching, as in every locale).
    const put = await request(app, 'PUT', `/api/products/${MILK}/override`, {
      token: family.admin.token,
      body: { name: 'Vollmilch 3,5 %' },
    });
    expect(put.body).to.include({ name: 'Vollmilch 3,5 %', overridden: true });
    for (const q of ['Vollmilch', 'milch']) {
      expect(
        (await search(family, q)).find((p) => p.id === MILK),
        q,
      ).to.include({ name: 'Vollmilch 3,5 %' });
    }
    expect((await search(family, 'milk')).map((p) => p.id)).to.not.include(MILK);
    expect(
      (await request(app, 'DELETE', `/api/products/${MILK}/override`, { token: family.admin.token })).status,
    ).to.equal(204);

    await setLocale(family, 'en');
    expect((await search(family, 'milk')).find((p) => p.id === MILK)).to.include({ name: 'Milk', overridden: false });
    expect((await search(family, 'Milch')).map((p) => p.id)).to.not.include(MILK);
  });

  it('englishName: the English name of a global product the family did not rename; REST and pulls at 3 carry it, pulls and pushes at 2 do without', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    await setLocale(family, 'de');
    const own = (await request(app, 'POST', '/api/products', { token: t, body: { name: 'Haferdrink' } })).body;
    expect(own).to.include({ name: 'Haferdrink', englishName: null });
    const milch = (await search(family, 'milk')).find((p) => p.id === MILK);
    expect(milch).to.include({ name: 'Milch', englishName: 'Milk', overridden: false });
    // A category of its own is no renaming: still found by the English name.
    await request(app, 'PUT', `/api/products/${MILK}/override`, { token: t, body: { category: 'beverages' } });
    expect((await search(family, 'milk')).find((p) => p.id === MILK)).to.include({
      name: 'Milch',
      englishName: 'Milk',
      overridden: true,
    });
    // A name of its own is: found by that name alone.
    await request(app, 'PUT', `/api/products/${MILK}/override`, { token: t, body: { name: 'Frischmilch' } });
    const renamed = (await search(family, 'frisch')).find((p) => p.id === MILK);
    expect(renamed).to.include({ name: 'Frischmilch', englishName: null });
    expect((await search(family, 'milk')).map((p) => p.id)).to.not.include(MILK);
    await request(app, 'DELETE', `/api/products/${MILK}/override`, { token: t });

    // Schema 3: every product doc has the key, as the REST record.
    const v3 = await pullAll(app, t, 'products', null, 1000, 3);
    expect(v3.docs.get(MILK)).to.include({ name: 'Milch', englishName: 'Milk' });
    expect(v3.docs.get(own.id)).to.include({ englishName: null });
    for (const d of v3.docs.values()) expect(d, d.name).to.have.property('englishName');
    expect(v3.checkpoint?.catalogId).to.match(/\/de\/v3$/);
    // Schema 2 (api-contract §10): exactly the docs of that version, and a checkpoint of that shape.
    const v2 = await pullAll(app, t, 'products', null, 1000, 2);
    expect([...v2.docs.keys()].sort()).to.deep.equal([...v3.docs.keys()].sort());
    for (const d of v2.docs.values()) {
      const { englishName, ...rest } = v3.docs.get(d.id)!;
      void englishName;
      expect(d).to.deep.equal(rest);
    }
    expect(v2.checkpoint?.catalogId).to.match(/^[0-9a-f-]{36}\/de$/);
    expect((await pull(app, t, 'products', v2.checkpoint, 1000, 2)).body.documents).to.deep.equal([]);
    // A device upgraded to 3 from a checkpoint of 2: every global product again, with its English
    // name; the family product (whose englishName is null anyway) is not re-sent.
    const upgraded = await pullAll(app, t, 'products', v2.checkpoint, 25, 3);
    expect(upgraded.docs.size).to.equal(loadStapleProducts().length);
    expect(upgraded.docs.get(MILK)).to.include({ name: 'Milch', englishName: 'Milk' });
    expect(upgraded.docs.has(own.id)).to.equal(false);
    expect((await pull(app, t, 'products', upgraded.checkpoint, 25, 3)).body.documents).to.deep.equal([]);

    // A push at 2: rows without the field are accepted, and what comes back has the shape of 2.
    const oldMilch = v2.docs.get(MILK)!;
    const changed = await push(
      app,
      t,
      'products',
      [{ assumedMasterState: oldMilch, newDocumentState: { ...oldMilch, unitCategoryFlags: ['Count'] } }],
      2,
    );
    expect(changed.body).to.deep.equal({ conflicts: [], rejected: [] });
    const { englishName: _e, ...oldOwn } = v3.docs.get(own.id)!;
    void _e;
    const inserted = { ...oldOwn, id: crypto.randomUUID(), name: 'Dinkeldrink' };
    expect((await push(app, t, 'products', [{ newDocumentState: inserted }], 2)).body).to.deep.equal({
      conflicts: [],
      rejected: [],
    });
    expect((await search(family, 'Dinkeldrink')).map((p) => p.id)).to.deep.equal([inserted.id]);
    // A stale row: the server's doc comes back, without englishName.
    const stale = await push(
      app,
      t,
      'products',
      [{ assumedMasterState: oldMilch, newDocumentState: { ...oldMilch, name: 'Milch 1,5 %' } }],
      2,
    );
    expect(stale.body.rejected).to.deep.equal([]);
    expect(stale.body.conflicts).to.have.length(1);
    expect(stale.body.conflicts[0]).to.include({ id: MILK, name: 'Milch' });
    expect(stale.body.conflicts[0]).to.not.have.property('englishName');
    // Schema 1 is outdated, for pull and push alike.
    expect((await pull(app, t, 'products', null, 10, 1)).body.code).to.equal('schema_outdated');
    const old = await push(app, t, 'products', [], 1);
    expect([old.status, old.body.code]).to.deep.equal([426, 'schema_outdated']);
  });

  it('a store created in a German family gets German default sections, categories by position', async () => {
    const family = await makeFamily(app);
    await setLocale(family, 'de');
    const store = await request(app, 'POST', '/api/stores', { token: family.admin.token, body: { name: 'Edeka' } });
    expect(store.status).to.equal(201);
    const sections = store.body.sections as AnyDoc[];
    expect(sections.map((s) => s.name)).to.deep.equal([...defaultSectionNames('de')]);
    expect(sections[0]).to.include({ name: 'Obst & Gemüse', category: 'produce', position: 0 });
    expect(sections[4]).to.include({ category: 'dairy' });
    // A store pushed by a device gets them alike; an English family's stay English.
    const pushed = crypto.randomUUID();
    const now = new Date().toISOString();
    const res = await push(app, family.admin.token, 'stores', [
      { newDocumentState: { id: pushed, name: 'Rewe', createdAt: now, updatedAt: now, _deleted: false } },
    ]);
    expect(res.body.rejected).to.deep.equal([]);
    const pulled = [...(await pullAll(app, family.admin.token, 'sections', null, 1000)).docs.values()];
    expect(
      pulled
        .filter((s) => s.storeId === pushed)
        .sort((a, b) => a.position - b.position)
        .map((s) => s.name),
    ).to.deep.equal([...defaultSectionNames('de')]);
    const english = await makeFamily(app);
    const plain = await request(app, 'POST', '/api/stores', { token: english.admin.token, body: { name: 'Aldi' } });
    expect(plain.body.sections.map((s: AnyDoc) => s.name)).to.deep.equal([...DEFAULT_SECTIONS]);
  });

  it('replication: a device that pulled in English pulls every global product anew in German, and back', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const own = (await request(app, 'POST', '/api/products', { token: t, body: { name: 'Hafermilch' } })).body;
    const staples = loadStapleProducts();
    const de = loadProductNames().de;

    // An English device, synced in small pages (the walk spans the family and the global side).
    const first = await pullAll(app, t, 'products', null, 25);
    expect(first.docs.get(MILK)).to.include({ name: 'Milk' });
    expect(first.checkpoint?.catalogId).to.match(/^[0-9a-f-]{36}\/v3$/);
    const quiet = await pull(app, t, 'products', first.checkpoint, 25);
    expect(quiet.body.documents).to.deep.equal([]);

    await setLocale(family, 'de');
    // Every global product again, named in German; the family product is not re-sent.
    const after = await pullAll(app, t, 'products', first.checkpoint, 25);
    expect(after.docs.size).to.equal(staples.length);
    for (const s of staples) {
      expect(after.docs.get(stableId('product', s.key)), s.key).to.include({ name: de[s.key], _deleted: false });
    }
    expect(after.docs.has(own.id)).to.equal(false);
    expect(after.checkpoint?.catalogId).to.match(/\/de\/v3$/);
    expect((await pull(app, t, 'products', after.checkpoint, 25)).body.documents).to.deep.equal([]);

    // A walk cut by the switch: half the global side read in German, then back to English; the
    // rest of the walk, and everything before it, comes again in English.
    const half = await pull(app, t, 'products', first.checkpoint, 25);
    expect(half.body.documents.length).to.equal(25);
    await setLocale(family, 'en');
    const back = await pullAll(app, t, 'products', half.body.checkpoint, 25);
    expect(back.docs.size).to.equal(staples.length);
    expect(back.docs.get(MILK)).to.include({ name: 'Milk' });
    expect(back.checkpoint?.catalogId).to.match(/^[0-9a-f-]{36}\/v3$/);

    // A device pushing the German doc it pulled sets no override (the German name is no change).
    await setLocale(family, 'de');
    const milch = (await pullAll(app, t, 'products', back.checkpoint, 1000)).docs.get(MILK)!;
    expect(milch).to.include({ name: 'Milch', overridden: false });
    const res = await push(app, t, 'products', [
      { assumedMasterState: milch, newDocumentState: { ...milch, unitCategoryFlags: ['Count'] } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    await setLocale(family, 'en');
    const product = (await search(family, 'milk')).find((p) => p.id === MILK);
    expect(product).to.include({ name: 'Milk', overridden: true });
    expect(product?.unitCategoryFlags).to.deep.equal(['Count']);
  });

  it('the switch is announced live: Changed names products, a pull from before it brings the new names', async () => {
    const family = await makeFamily(app);
    const { checkpoint } = await pullAll(app, family.admin.token, 'products', null, 1000);
    const socket = await TestSocket.connect(app, family.admin.token);
    try {
      // A rename, and the language the family already has, change no product's name: their
      // commits' Changed frames do not name products.
      for (const body of [{ name: 'Renamed family' }, { locale: 'en' }]) {
        const r = await request(app, 'PATCH', '/api/family', { token: family.admin.token, body });
        expect(r.status, r.text).to.equal(200);
        const quiet = await socket.next((f) => f.type === 'Changed');
        expect(quiet.collections, JSON.stringify(body)).to.not.include('products');
      }
      await setLocale(family, 'fr');
      const changed = await socket.next((f) => f.type === 'Changed');
      expect(changed.collections).to.include('products');
      expect(changed.docs?.products).to.equal(undefined); // a catalog is pulled, never patched
      expect(checkpoint!.version).to.be.below(changed.version);
      const docs = (await pullAll(app, family.admin.token, 'products', checkpoint, 1000)).docs;
      expect(docs.get(MILK)).to.include({ name: 'Lait' });
    } finally {
      socket.close();
    }
  });

  it('the family export shows an overridden product by its effective name in the family locale', async () => {
    const family = await makeFamily(app);
    await setLocale(family, 'de');
    const put = await request(app, 'PUT', `/api/products/${MILK}/override`, {
      token: family.admin.token,
      body: { unitCategoryFlags: ['Count'] },
    });
    expect(put.body).to.include({ name: 'Milch', overridden: true });
    const doc = (await request(app, 'GET', '/api/family/export', { token: family.admin.token })).body;
    const entry = doc.products.find((p: AnyDoc) => p.id === MILK);
    expect(entry).to.include({ kind: 'global', name: 'Milch', overridden: true });
    expect(entry.override).to.deep.equal({ name: null, unitCategoryFlags: ['Count'], category: null });
  });

  it('a checkpoint naming an unknown locale, or English spelled out, is refused as not issued here', async () => {
    const family = await makeFamily(app);
    const { checkpoint } = await pullAll(app, family.admin.token, 'products', null, 1000);
    for (const suffix of ['/xx', '/en', '/de/de']) {
      const bad: Checkpoint = { ...checkpoint!, catalogId: `${checkpoint!.catalogId}${suffix}` };
      const r = await pull(app, family.admin.token, 'products', bad);
      expect([r.status, r.body.code], suffix).to.deep.equal([400, 'validation_failed']);
    }
  });
});
