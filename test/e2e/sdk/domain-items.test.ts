// The SDK's items offline (contract §8, §10): where items go as the store's section memory
// changes (a later explicit placement replaces an earlier one, a product linked to an item
// afterwards takes or records a section, a global product's memory apart from a family
// product's); removal and restore bookkeeping (again: unchanged; many at once, all or nothing);
// the references an app may get wrong, refused with REST's paths and messages. After sync the
// device shows what REST answers.
import { expect } from 'chai';
import { firstValueFrom, filter } from 'rxjs';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';
import type { FamilyClient } from '@family-shopping/client';
import { rejection, restAs, sdkSuite, signedInClient, syncThenOffline } from './helpers.js';

describe('e2e SDK: items offline', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  const sectionsOf = async (c: FamilyClient, storeId: string) =>
    c.db.sections.find({ selector: { storeId }, sort: [{ position: 'asc' }] }).exec();
  const item = async (c: FamilyClient, id: string) => (await c.db.items.findOne(id).exec())?.toJSON();

  it('section memory: the last explicit placement wins, a product linked later takes or records a section', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await syncThenOffline(c); // offline from here on

    const store = await c.stores.create({ name: 'Corner shop' });
    const [produce, bakery, , dairy] = await sectionsOf(c, store.id);
    const list = await c.lists.create({ name: 'Weekly', storeId: store.id });
    const apples = await c.products.create({ name: 'Apples' });
    const pears = await c.products.create({ name: 'Pears' });

    // Placed in the bakery, then in produce: produce is what the store remembers.
    await c.items.add(list.id, { familyProductId: apples.id, sectionId: bakery!.id });
    await c.items.add(list.id, { familyProductId: apples.id, sectionId: produce!.id });
    expect((await c.items.add(list.id, { familyProductId: apples.id })).sectionId).to.equal(produce!.id);

    // An item without a section linked to the product takes the remembered section.
    const green = await c.items.add(list.id, { name: 'Green apples' });
    expect(green.sectionId).to.equal(null);
    const linked = await c.items.update(list.id, green.id, { familyProductId: apples.id });
    expect(linked).to.include({ name: 'Green apples', familyProductId: apples.id, sectionId: produce!.id });

    // An item in a section linked to a product: the store remembers the product there.
    const ripe = await c.items.add(list.id, { name: 'Ripe pears', sectionId: dairy!.id });
    await c.items.update(list.id, ripe.id, { familyProductId: pears.id });
    expect((await c.items.add(list.id, { familyProductId: pears.id })).sectionId).to.equal(dairy!.id);

    // An item moved to another section: remembered there.
    await c.items.update(list.id, linked.id, { sectionId: bakery!.id });
    expect((await c.items.add(list.id, { familyProductId: apples.id })).sectionId).to.equal(bakery!.id);

    await c.start();
    await c.awaitInSync();
    const detail = await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean)));
    expect(detail).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
  });

  it('a global product’s section memory is its own, apart from a family product’s', async () => {
    const family = await makeFamily(sdk.app);
    const globalId = await insertGlobalProductRow(sdk.app, { name: `Global bread ${crypto.randomUUID()}` });
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await syncThenOffline(c);
    const global = await c.db.products.findOne(globalId).exec();
    expect(global, 'the global product').to.not.equal(null);

    const store = await c.stores.create({ name: 'Corner shop' });
    const [, bakery, , dairy] = await sectionsOf(c, store.id);
    const list = await c.lists.create({ name: 'Weekly', storeId: store.id });
    const own = await c.products.create({ name: 'Home-made jam' });
    // The global product remembered first, the family product later (the newest memory).
    await c.items.add(list.id, { productId: global!.id, sectionId: bakery!.id });
    await c.items.add(list.id, { familyProductId: own.id, sectionId: dairy!.id });
    const again = await c.items.add(list.id, { productId: global!.id });
    expect(again).to.include({ name: global!.name, sectionId: bakery!.id });
    // An item without a section linked to the global product takes its remembered section.
    const rolls = await c.items.add(list.id, { name: 'Rolls' });
    const linked = await c.items.update(list.id, rolls.id, { productId: global!.id });
    expect(linked).to.include({ name: 'Rolls', productId: global!.id, sectionId: bakery!.id });
  });

  it('remove and restore: again is unchanged, many at once all or nothing, other lists’ items not found', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const rest = restAs(sdk.app, member.token);
    const c = sdk.track(await signedInClient(sdk.app, member));

    const list = await c.lists.create({ name: 'Weekly' });
    const other = await c.lists.create({ name: 'Party' });
    const eggs = await c.items.add(list.id, { name: 'Eggs' });
    const milk = await c.items.add(list.id, { name: 'Milk' });
    const cake = await c.items.add(other.id, { name: 'Cake' });

    const removed = await c.items.remove(list.id, eggs.id);
    expect(removed).to.include({ removedByUserId: member.userId });
    expect(removed.removedAt).to.be.a('string');
    expect(await c.items.remove(list.id, eggs.id)).to.deep.equal(removed);
    expect(await item(c, eggs.id)).to.deep.include({ removedAt: removed.removedAt });
    // A removed item can be restored, not edited.
    expect(await rejection(c.items.update(list.id, eggs.id, { name: 'Duck eggs' }))).to.include({
      code: 'not_found',
      message: 'Item not found',
    });
    await c.items.remove(list.id, milk.id);

    // Many at once: an id that is not an item of this list refuses all, first place included.
    for (const ids of [
      [crypto.randomUUID(), eggs.id],
      [eggs.id, cake.id, milk.id],
    ]) {
      const refused = await rejection(c.items.restoreMany(list.id, ids));
      const at = ids.findIndex((id) => id !== eggs.id && id !== milk.id);
      expect(refused.errors).to.deep.equal([{ path: `itemIds.${at}`, message: 'not an item of this list' }]);
      expect((await item(c, eggs.id))?.removedAt).to.equal(removed.removedAt);
    }
    const restored = await c.items.restoreMany(list.id, [milk.id, eggs.id, milk.id]);
    expect(restored.map((i) => [i.name, i.removedAt, i.removedByUserId])).to.deep.equal([
      ['Milk', null, null],
      ['Eggs', null, null],
    ]);
    expect((await c.items.restore(list.id, eggs.id)).removedAt).to.equal(null);

    // Another list's item, through this list: not found, as REST answers.
    for (const call of [
      c.items.update(list.id, cake.id, { name: 'Cupcake' }),
      c.items.toggle(list.id, cake.id),
      c.items.remove(list.id, cake.id),
      c.items.restore(list.id, cake.id),
    ]) {
      expect(await rejection(call)).to.include({ code: 'not_found', message: 'Item not found' });
    }
    expect(await rejection(c.items.add(crypto.randomUUID(), { name: 'Tea' }))).to.include({
      code: 'not_found',
      message: 'List not found',
    });
    expect((await item(c, cake.id))?.name).to.equal('Cake');

    await c.start();
    await c.awaitInSync();
    const detail = await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean)));
    expect(detail).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
  });

  it('references: unknown or wrong-kind units and products, a section of another store, each with its path', async () => {
    const family = await makeFamily(sdk.app);
    const globalId = await insertGlobalProductRow(sdk.app, { name: `Global jam ${crypto.randomUUID()}` });
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await syncThenOffline(c);
    const globalUnit = await c.db.units.findOne({ selector: { kind: 'global' } }).exec();
    const globalProduct = await c.db.products.findOne(globalId).exec();
    expect(globalUnit && globalProduct, 'the global catalog').to.not.equal(null);
    const ownUnit = await c.units.create({ name: 'Jar', abbreviation: 'jar', category: 'Count' });
    const ownProduct = await c.products.create({ name: 'Jam' });

    const store = await c.stores.create({ name: 'Corner shop' });
    const market = await c.stores.create({ name: 'Market' });
    const [marketSection] = await sectionsOf(c, market.id);
    const list = await c.lists.create({ name: 'Weekly', storeId: store.id });
    const loose = await c.lists.create({ name: 'No store' });

    const refused = async (listId: string, input: Record<string, unknown>) =>
      (await rejection(c.items.add(listId, { name: 'Thing', ...input }))).errors;
    const product = 'unknown product';
    const unit = 'unknown unit';
    expect(await refused(list.id, { productId: ownProduct.id })).to.deep.equal([
      { path: 'productId', message: product },
    ]);
    expect(await refused(list.id, { familyProductId: globalProduct!.id })).to.deep.equal([
      { path: 'familyProductId', message: product },
    ]);
    expect(await refused(list.id, { unitOfMeasureId: ownUnit.id })).to.deep.equal([
      { path: 'unitOfMeasureId', message: unit },
    ]);
    expect(await refused(list.id, { familyUnitOfMeasureId: globalUnit!.id })).to.deep.equal([
      { path: 'familyUnitOfMeasureId', message: unit },
    ]);
    const section = { path: 'sectionId', message: "not a section of the list's store" };
    expect(await refused(list.id, { sectionId: marketSection!.id })).to.deep.equal([section]);
    expect(await refused(loose.id, { sectionId: marketSection!.id })).to.deep.equal([section]);
    expect(await c.db.items.count().exec()).to.equal(0);

    // Both kinds given right: the item has both ids.
    const both = await c.items.add(list.id, { name: 'Jam', unitOfMeasureId: globalUnit!.id, quantity: 2 });
    expect(both).to.include({ unitOfMeasureId: globalUnit!.id, familyUnitOfMeasureId: null });

    // In a recipe's ingredients the paths name the ingredient.
    const recipe = await rejection(
      c.recipes.create({ name: 'Toast', ingredients: [{ name: 'Bread' }, { name: 'Jam', productId: ownProduct.id }] }),
    );
    expect(recipe.errors).to.deep.equal([{ path: 'ingredients.1.productId', message: product }]);
    expect(recipe.message).to.equal('invalid input: ingredients.1.productId: unknown product');
  });

  it('signed out: removals are refused and change nothing', async () => {
    const family = await makeFamily(sdk.app);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const list = await c.lists.create({ name: 'Weekly' });
    const eggs = await c.items.add(list.id, { name: 'Eggs' });
    await c.items.toggle(list.id, eggs.id);
    await c.auth.logout();
    for (const call of [c.items.remove(list.id, eggs.id), c.lists.clearChecked(list.id)]) {
      expect(await rejection(call)).to.include({ code: 'forbidden', message: 'not signed in' });
    }
    expect(await item(c, eggs.id)).to.deep.include({ checked: true, removedAt: null });
  });
});
