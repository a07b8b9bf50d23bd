// The SDK's domain API for stores and a list's store (contract §8), offline: renaming a store
// (a name the family already uses is refused and nothing changes), moving a list to another
// store (its items take that store's remembered sections, or none), deleting a store (its lists
// lose it, their items lose its sections); after sync the device shows what REST answers.
import { expect } from 'chai';
import { firstValueFrom, filter } from 'rxjs';
import { makeFamily } from '../../helpers/factories.js';
import { rejection, restAs, sdkSuite, signedInClient } from './helpers.js';

describe('e2e SDK: stores and a list’s store, offline', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  it('rename, move a list between stores, delete a store; equal to REST after sync', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop(); // offline from here on

    const corner = await c.stores.create({ name: 'Corner shop' });
    const market = await c.stores.create({ name: 'Market' });
    const storeName = async (id: string) => (await c.db.stores.findOne(id).exec())?.name;

    // Rename; a name another store has (in any case) is refused and changes nothing.
    expect((await c.stores.update(market.id, { name: 'Farmers market' })).name).to.equal('Farmers market');
    expect(await storeName(market.id)).to.equal('Farmers market');
    const taken = await rejection(c.stores.update(market.id, { name: 'corner SHOP' }));
    expect(taken.code).to.equal('validation_failed');
    expect(taken.errors?.map((e) => e.path)).to.deep.equal(['name']);
    expect(await storeName(market.id)).to.equal('Farmers market');

    // An item of a product filed under the corner shop's first section: the shop remembers it.
    const product = await c.products.create({ name: 'Apples' });
    const [produce] = await c.db.sections
      .find({ selector: { storeId: corner.id }, sort: [{ position: 'asc' }] })
      .exec();
    const list = await c.lists.create({ name: 'Weekly', storeId: corner.id });
    const apples = await c.items.add(list.id, { familyProductId: product.id, sectionId: produce!.id });
    const sectionOf = async () => (await c.db.items.findOne(apples.id).exec())?.sectionId;
    expect(await sectionOf()).to.equal(produce!.id);

    // To a store that remembers nothing of it: no section; an unknown store is refused.
    const moved = await c.lists.update(list.id, { storeId: market.id });
    expect(moved.storeId).to.equal(market.id);
    expect(await sectionOf()).to.equal(null);
    const unknown = await rejection(c.lists.update(list.id, { storeId: crypto.randomUUID() }));
    expect(unknown.code).to.equal('validation_failed');
    expect((await c.db.lists.findOne(list.id).exec())?.storeId).to.equal(market.id);
    // Back to the corner shop: its memory files the item again.
    expect((await c.lists.update(list.id, { storeId: corner.id })).storeId).to.equal(corner.id);
    expect(await sectionOf()).to.equal(produce!.id);
    // A rename alone keeps the store and the sections.
    expect((await c.lists.update(list.id, { name: 'Weekly shop' })).storeId).to.equal(corner.id);
    expect(await sectionOf()).to.equal(produce!.id);

    // Deleting the store: the list loses it, the item its section.
    expect((await c.stores.delete(corner.id)).id).to.equal(corner.id);
    expect(await c.db.stores.findOne(corner.id).exec()).to.equal(null);
    expect((await c.db.lists.findOne(list.id).exec())?.storeId).to.equal(null);
    expect(await sectionOf()).to.equal(null);

    // Online again: the server's views equal the local ones.
    await c.start();
    await c.awaitInSync();
    const detail = await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean)));
    expect(detail).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
    expect(detail).to.include({ name: 'Weekly shop', storeId: null });
    const stores = (await rest('GET', '/api/stores')) as { id: string; name: string }[];
    expect(stores.map((s) => [s.id, s.name])).to.deep.equal([[market.id, 'Farmers market']]);
  });
});
