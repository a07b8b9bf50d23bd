// The SDK's domain API for stores and a list's store (contract §8), offline: renaming a store
// (a name the family already uses is refused and nothing changes), moving a list to another
// store (its items take that store's remembered sections, or none), deleting a store (its lists
// lose it, their items lose its sections); after sync the device shows what REST answers.
import { expect } from 'chai';
import { firstValueFrom, filter } from 'rxjs';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { rejection, restAs, sdkSuite, signedInClient, syncThenOffline } from './helpers.js';

describe('e2e SDK: stores and a list’s store, offline', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  it('rename, move a list between stores, delete a store; equal to REST after sync', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await syncThenOffline(c); // offline from here on

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

  it('a store deleted leaves other stores’ lists, sections and memory; sections added, ordered, deleted', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const sectionsOf = async (storeId: string) =>
      c.db.sections.find({ selector: { storeId }, sort: [{ position: 'asc' }] }).exec();

    const corner = await c.stores.create({ name: 'Corner shop' });
    const market = await c.stores.create({ name: 'Market' });
    const other = await c.stores.create({ name: 'Bakery' });
    // The stores reach the server before their sections change offline.
    await syncThenOffline(c);
    // A change of letter case alone is no clash with the store itself; another's name is.
    expect((await c.stores.update(market.id, { name: 'MARKET' })).name).to.equal('MARKET');
    expect((await rejection(c.stores.update(market.id, { name: 'corner shop' }))).errors).to.deep.equal([
      { path: 'name', message: 'a store with that name already exists' },
    ]);

    const apples = await c.products.create({ name: 'Apples' });
    const pears = await c.products.create({ name: 'Pears' });
    const [cornerFirst] = await sectionsOf(corner.id);
    const [marketFirst, marketSecond] = await sectionsOf(market.id);
    const cornerList = await c.lists.create({ name: 'Corner', storeId: corner.id });
    const marketList = await c.lists.create({ name: 'Market', storeId: market.id });
    await c.items.add(cornerList.id, { familyProductId: apples.id, sectionId: cornerFirst!.id });
    const marketApples = await c.items.add(marketList.id, { familyProductId: apples.id, sectionId: marketFirst!.id });
    await c.items.add(marketList.id, { familyProductId: pears.id, sectionId: marketSecond!.id });

    // The corner shop deleted: the market's list, items and memory stay as they were.
    await c.stores.delete(corner.id);
    expect((await c.db.lists.findOne(marketList.id).exec())?.storeId).to.equal(market.id);
    expect((await c.db.items.findOne(marketApples.id).exec())?.sectionId).to.equal(marketFirst!.id);
    expect((await c.items.add(marketList.id, { familyProductId: apples.id })).sectionId).to.equal(marketFirst!.id);

    // A section deleted: the market forgets it, and only it.
    await c.sections.delete(market.id, marketFirst!.id);
    expect((await c.items.add(marketList.id, { familyProductId: apples.id })).sectionId).to.equal(null);
    expect((await c.items.add(marketList.id, { familyProductId: pears.id })).sectionId).to.equal(marketSecond!.id);
    // A section through another store is not found.
    const [otherFirst] = await sectionsOf(other.id);
    for (const call of [
      c.sections.rename(market.id, otherFirst!.id, 'Bread'),
      c.sections.delete(market.id, otherFirst!.id),
    ]) {
      expect(await rejection(call)).to.include({ code: 'not_found', message: 'Section not found' });
    }

    // Insert at the top: every section moves down one.
    const before = (await sectionsOf(market.id)).map((s) => [s.id, s.position] as const);
    const flowers = await c.sections.add(market.id, { name: 'Flowers', position: 0 });
    expect((await sectionsOf(market.id)).map((s) => [s.id, s.position])).to.deep.equal([
      [flowers.id, 0],
      ...before.map(([id, position]) => [id, position + 1]),
    ]);
    // An order that is not exactly the store's sections is refused and changes nothing.
    const ids = [flowers.id, ...before.map(([id]) => id)];
    const reversed = [...ids].reverse();
    for (const order of [reversed.slice(1), [...reversed.slice(1), otherFirst!.id], [...reversed, otherFirst!.id]]) {
      expect((await rejection(c.sections.reorder(market.id, order))).errors).to.deep.equal([
        { path: 'sectionIds', message: "must list exactly the store's section ids, each once" },
      ]);
    }
    expect((await c.sections.reorder(market.id, reversed)).map((s) => s.id)).to.deep.equal(reversed);

    // A store whose sections are all gone: a new section is the first.
    for (const s of await sectionsOf(other.id)) await c.sections.delete(other.id, s.id);
    expect((await c.sections.add(other.id, { name: 'Bread' })).position).to.equal(0);

    await c.start();
    await c.awaitInSync();
    const server = (await rest('GET', `/api/stores/${market.id}`)) as { sections: { id: string; position: number }[] };
    expect(server.sections.map((s) => s.id)).to.deep.equal(reversed);
    const detail = await firstValueFrom(c.lists.detail$(marketList.id).pipe(filter(Boolean)));
    expect(detail).to.deep.equal(await rest('GET', `/api/lists/${marketList.id}`));
  });

  it('a member’s section changes are refused, as the server refuses them when pushed, and change nothing', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const c = sdk.track(await signedInClient(sdk.app, member));
    const store = await c.stores.create({ name: 'Market' });
    const sections = await c.db.sections.find({ selector: { storeId: store.id } }).exec();
    const ids = sections.map((s) => s.id);

    for (const call of [
      c.sections.add(store.id, { name: 'Flowers' }),
      c.sections.rename(store.id, ids[0]!, 'Fruit'),
      c.sections.reorder(store.id, [...ids].reverse()),
      c.sections.delete(store.id, ids[0]!),
    ]) {
      // The words the server refuses a member's pushed section change with.
      expect(await rejection(call)).to.include({
        code: 'forbidden',
        message: 'Only a family admin can change store sections',
      });
    }
    const after = await c.db.sections.find({ selector: { storeId: store.id } }).exec();
    expect(after.map((s) => s.toJSON())).to.deep.equal(sections.map((s) => s.toJSON()));
  });
});
