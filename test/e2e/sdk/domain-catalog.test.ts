// The SDK's catalog calls (client.products / client.units, contract §12) offline, where the
// catalog tests leave off: a client-chosen id (a re-send returns the first create; an id another
// product or unit holds is refused, as REST refuses it), search bounds and order, a family
// product's edits, a global product whose override was made elsewhere (its own values unknown
// here) or here (cleared offline), a family product deleted (only its own links and section
// memory go), global products and units refused where REST finds none. After sync the device's
// catalog equals REST's.
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { CATALOG_REFUSALS, SEARCH_LIMIT_MAX, type FamilyClient } from '@family-shopping/client';
import { request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';
import { flagsToBits } from '../../../server/catalog/flags.js';
import { rejection, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

const unique = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

describe('e2e SDK: catalog ids, search bounds, edits and deletes, offline', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  /** A global product of the shared catalog (reference data no endpoint writes). */
  const globalProduct = async (name: string) =>
    insertGlobalProductRow(sdk.app, { name, unit_category_flags: flagsToBits(['Count']) });

  const local = async (c: FamilyClient, collection: 'products' | 'units', id: string) =>
    (await c.db[collection].findOne(id).exec())?.toJSON() as Record<string, any> | undefined;

  it('client-chosen ids: a re-send returns the first create, a taken id is refused as REST refuses it', async () => {
    const family = await makeFamily(sdk.app);
    const token = family.admin.token;
    const rest = restAs(sdk.app, token);
    const globalId = await globalProduct(unique('Global plum '));
    const globalUnit = ((await rest('GET', '/api/units')) as { id: string; kind: string }[]).find(
      (u) => u.kind === 'global',
    )!;
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop();

    const productId = crypto.randomUUID();
    const unitId = crypto.randomUUID();
    const oats = await c.products.create({ id: productId, name: 'Oats' });
    expect(await c.products.create({ id: productId, name: 'Barley' })).to.deep.equal(oats);
    const cup = await c.units.create({ id: unitId, name: 'Bowl', abbreviation: 'bwl', category: 'Volume' });
    expect(await c.units.create({ id: unitId, name: 'Tub', abbreviation: 'tb9', category: 'Volume' })).to.deep.equal(
      cup,
    );
    // Without an id: a new product each time.
    const rye = await c.products.create({ name: 'Rye' });
    expect(rye.id).to.not.equal(productId);
    // Products and units are two id spaces (as on the server): a unit's id is free for a product.
    const bowls = await c.products.create({ id: unitId, name: 'Bowls' });
    expect(bowls).to.include({ id: unitId, kind: 'family', name: 'Bowls' });
    expect(await local(c, 'units', unitId)).to.include({ name: 'Bowl' });

    const products = await c.db.products.count().exec();
    const units = await c.db.units.count().exec();
    const refusals: [Promise<unknown>, string, unknown][] = [
      [c.products.create({ id: globalId, name: 'Plums' }), '/api/products', { id: globalId, name: 'Plums' }],
      [
        c.units.create({ id: globalUnit.id, name: 'Pot', abbreviation: 'pot', category: 'Count' }),
        '/api/units',
        { id: globalUnit.id, name: 'Pot', abbreviation: 'pot', category: 'Count' },
      ],
    ];
    const offline = [];
    for (const [call] of refusals) offline.push(await rejection(call));
    for (const err of offline) {
      expect(err.code).to.equal('validation_failed');
      expect(err.errors).to.deep.equal([{ path: 'id', message: CATALOG_REFUSALS.idTaken.message }]);
    }
    expect(await c.db.products.count().exec()).to.equal(products);
    expect(await c.db.units.count().exec()).to.equal(units);

    // Online: the server holds the same catalog and refuses the same ids (its conflict code).
    await c.start();
    await c.awaitInSync();
    for (const [, path, body] of refusals) {
      const r = await request(sdk.app, 'POST', path, { token, body });
      expect([r.status, r.body.code, r.body.detail]).to.deep.equal([
        409,
        CATALOG_REFUSALS.idTaken.code,
        CATALOG_REFUSALS.idTaken.message,
      ]);
    }
    expect(await firstValueFrom(c.products.search$('', { limit: SEARCH_LIMIT_MAX }))).to.deep.equal(
      await rest('GET', `/api/products?limit=${SEARCH_LIMIT_MAX}`),
    );
    expect(await firstValueFrom(c.units.all$())).to.deep.equal(await rest('GET', '/api/units'));
  });

  it('search: limit 1 to 200 and q up to 200 characters, else refused; prefix matches first, as REST', async () => {
    const family = await makeFamily(sdk.app);
    const token = family.admin.token;
    const rest = restAs(sdk.app, token);
    const tag = unique('zq');
    for (const name of [`${tag} melon`, `${tag} apple`, `Green ${tag}`, `${tag} banana`]) await globalProduct(name);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.products.create({ name: `Red ${tag}` });
    await c.products.create({ name: `${tag} cherry` });
    await c.awaitInSync();

    for (const limit of [1, 3, SEARCH_LIMIT_MAX]) {
      const found = await firstValueFrom(c.products.search$(tag.toUpperCase(), { limit }));
      expect(found).to.deep.equal(await rest('GET', `/api/products?q=${tag.toUpperCase()}&limit=${limit}`));
      expect(found.length).to.equal(Math.min(limit, 6));
    }
    const names = (await firstValueFrom(c.products.search$(tag))).map((p) => p.name);
    expect(names).to.deep.equal([
      `${tag} apple`,
      `${tag} banana`,
      `${tag} cherry`,
      `${tag} melon`,
      `Green ${tag}`,
      `Red ${tag}`,
    ]);
    const longest = 'é'.repeat(200); // 200 characters (400 bytes): allowed
    expect(await firstValueFrom(c.products.search$(longest))).to.deep.equal([]);

    const limitRefused = [{ path: 'limit', message: `must be an integer from 1 to ${SEARCH_LIMIT_MAX}` }];
    const qRefused = [{ path: 'q', message: 'must be at most 200 characters long' }];
    for (const [call, errors, query] of [
      [() => c.products.search$('', { limit: 0 }), limitRefused, 'limit=0'],
      [() => c.products.search$('', { limit: SEARCH_LIMIT_MAX + 1 }), limitRefused, `limit=${SEARCH_LIMIT_MAX + 1}`],
      [() => c.products.search$('', { limit: 2.5 }), limitRefused, 'limit=2.5'],
      [() => c.products.search$(`${longest}é`), qRefused, `q=${'e'.repeat(201)}`],
    ] as const) {
      let thrown: unknown;
      try {
        call();
      } catch (err) {
        thrown = err;
      }
      expect(thrown, query).to.include({ code: 'validation_failed' });
      expect((thrown as { errors: unknown }).errors).to.deep.equal(errors);
      expect((await request(sdk.app, 'GET', `/api/products?${query}`, { token })).status, query).to.equal(400);
    }
    expect(() => c.products.search$(7 as never))
      .to.throw()
      .with.property('errors')
      .that.deep.equals(qRefused);
  });

  it('a family product edited; a global product overridden elsewhere, here, and cleared; equal to REST', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const kiwiName = unique('Kiwi ');
    const limeName = unique('Lime ');
    const kiwi = await globalProduct(kiwiName);
    const lime = await globalProduct(limeName);
    // An override made before this device ever saw the product: its own values are unknown here.
    await rest('PUT', `/api/products/${kiwi}/override`, { category: 'frozen' });
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop();

    // A family product: edited in place (it never becomes an override); a name of another family
    // product refused, the name of a global product allowed (both ways: create and rename).
    const nuts = await c.products.create({ name: 'Nuts' });
    const seeds = await c.products.create({ name: limeName.toUpperCase() });
    const edited = await c.products.update(nuts.id, { name: 'Mixed nuts', unitCategoryFlags: ['Weight', 'Count'] });
    expect(edited).to.include({ kind: 'family', name: 'Mixed nuts', overridden: false, englishName: null });
    expect(edited.unitCategoryFlags).to.deep.equal(['Count', 'Weight']);
    expect((await rejection(c.products.update(seeds.id, { name: 'mixed NUTS' }))).errors).to.deep.equal([
      { path: 'name', message: CATALOG_REFUSALS.duplicateProductName.message },
    ]);
    expect((await c.products.update(seeds.id, { name: kiwiName })).name).to.equal(kiwiName);

    // The override made elsewhere: categories changed keep the name (and its English name);
    // a new name has no English name.
    expect(await local(c, 'products', kiwi)).to.include({ overridden: true, englishName: kiwiName });
    const flagged = await c.products.update(kiwi, { unitCategoryFlags: ['Weight'] });
    expect(flagged).to.include({ name: kiwiName, englishName: kiwiName, overridden: true, category: 'frozen' });
    const renamed = await c.products.update(kiwi, { name: 'Golden kiwi' });
    expect(renamed).to.include({ name: 'Golden kiwi', englishName: null, overridden: true });
    expect(renamed.unitCategoryFlags).to.deep.equal(['Weight']);

    // An override made here, cleared here: the global product's own values again.
    const before = await local(c, 'products', lime);
    expect(await c.products.clearOverride(lime)).to.deep.equal(before); // nothing to clear
    expect(await c.products.update(lime, { name: 'Key lime', category: 'produce' })).to.include({
      name: 'Key lime',
      englishName: null,
      overridden: true,
    });
    const cleared = await c.products.clearOverride(lime);
    expect(cleared).to.include({ name: limeName, englishName: limeName, overridden: false });
    expect(cleared).to.deep.equal(before);

    // Not a global product, or no product: not found, as in REST.
    for (const call of [
      c.products.clearOverride(nuts.id),
      c.products.delete(lime),
      c.products.update(crypto.randomUUID(), { name: 'Figs' }),
    ]) {
      expect(await rejection(call)).to.include({ code: 'not_found', message: 'Product not found' });
    }

    // Online: the server's catalog is the device's; the override made elsewhere cleared online.
    await c.start();
    await c.awaitInSync();
    const search = () => firstValueFrom(c.products.search$('', { limit: SEARCH_LIMIT_MAX }));
    expect(await search()).to.deep.equal(await rest('GET', `/api/products?limit=${SEARCH_LIMIT_MAX}`));
    await c.products.clearOverride(kiwi);
    await waitFor(async () => (await local(c, 'products', kiwi))?.overridden === false, 'the override cleared');
    expect(await local(c, 'products', kiwi)).to.include({ name: kiwiName, overridden: false, category: null });
    await c.awaitInSync();
    expect(await search()).to.deep.equal(await rest('GET', `/api/products?limit=${SEARCH_LIMIT_MAX}`));
  });

  it('a family product deleted: only its own links and section memory go; global units are not found', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop();

    const store = await c.stores.create({ name: 'Corner shop' });
    const [first, second] = await c.db.sections
      .find({ selector: { storeId: store.id }, sort: [{ position: 'asc' }] })
      .exec();
    const apples = await c.products.create({ name: 'Apples' });
    const pears = await c.products.create({ name: 'Pears' });
    const list = await c.lists.create({ name: 'Weekly', storeId: store.id });
    const appleItem = await c.items.add(list.id, { familyProductId: apples.id, sectionId: first!.id });
    const pearItem = await c.items.add(list.id, { familyProductId: pears.id, sectionId: second!.id });
    const recipe = await c.recipes.create({
      name: 'Crumble',
      ingredients: [{ familyProductId: apples.id }, { familyProductId: pears.id }],
    });

    expect((await c.products.delete(apples.id)).name).to.equal('Apples');
    expect(await local(c, 'products', apples.id)).to.equal(undefined);
    const item = async (id: string) => (await c.db.items.findOne(id).exec())?.toJSON();
    expect(await item(appleItem.id)).to.include({ name: 'Apples', familyProductId: null });
    expect(await item(pearItem.id)).to.include({ name: 'Pears', familyProductId: pears.id });
    const ingredients = (await c.db.ingredients.find({ selector: { recipeId: recipe.id } }).exec()).map((d) =>
      d.toJSON(),
    );
    expect(ingredients.map((i) => [i.name, i.familyProductId]).sort()).to.deep.equal([
      ['Apples', null],
      ['Pears', pears.id],
    ]);
    // The store still files pears where they were; apples are forgotten with their product.
    const other = await c.lists.create({ name: 'Next week', storeId: store.id });
    expect((await c.items.add(other.id, { familyProductId: pears.id })).sectionId).to.equal(second!.id);

    // Global units: REST finds no family unit there.
    const globalUnit = (await firstValueFrom(c.units.all$())).find((u) => u.kind === 'global')!;
    for (const call of [c.units.update(globalUnit.id, { name: 'Mine' }), c.units.delete(globalUnit.id)]) {
      expect(await rejection(call)).to.include({ code: 'not_found', message: 'Unit not found' });
    }

    await c.start();
    await c.awaitInSync();
    const synced = (await c.db.ingredients.find({ selector: { recipeId: recipe.id } }).exec()).map((d) => d.toJSON());
    expect(await rest('GET', `/api/recipes/${recipe.id}`)).to.deep.include({
      ingredients: synced.sort((a, b) => a.position - b.position),
    });
    expect(await firstValueFrom(c.products.search$())).to.deep.equal(await rest('GET', '/api/products'));
  });
});
