// The SDK's domain API (contract §8): calls made offline write the local database with the REST
// rules (validation first, remembered sections, item by product, default sections, removal
// bookkeeping), the local views have the REST shapes, and after sync they equal the REST answers.
import { expect } from 'chai';
import { firstValueFrom, filter } from 'rxjs';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { DEFAULT_SECTIONS } from '@family-shopping/client';
import { rejection, restAs, sdkSuite, signedInClient } from './helpers.js';

describe('e2e SDK: domain API', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  it('lists and items offline: validation, remembered sections, item by product; equal to REST after sync', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const rest = restAs(sdk.app, member.token);
    // Catalog data the device pulls first.
    const apples =
      (await rest('GET', '/api/products?q=apple&limit=1'))[0] ??
      (await rest('POST', '/api/products', { name: 'Apples' }));
    const store = await rest('POST', '/api/stores', { name: 'Corner shop' });
    const produce = store.sections.find((s: any) => s.name === 'Produce');

    const c = sdk.track(await signedInClient(sdk.app, member));
    await c.start();
    await c.awaitInSync();
    await c.stop(); // offline from here on

    // Validation: nothing written.
    const bad = await rejection(c.lists.create({ name: '   ' }));
    expect(bad.code).to.equal('validation_failed');
    expect(bad.errors).to.deep.include({ path: 'name', message: 'must be 1 to 200 characters long' });
    expect(await c.db.lists.count().exec()).to.equal(0);

    const list = await c.lists.create({ name: '  Weekly  ', storeId: store.id });
    expect(list.name).to.equal('Weekly');
    // Item by product: no name.
    const productField = apples.kind === 'global' ? 'productId' : 'familyProductId';
    const first = await c.items.add(list.id, { [productField]: apples.id, sectionId: produce.id });
    expect(first).to.include({ name: apples.name, sectionId: produce.id });
    // The store now remembers Produce for that product: a second item gets it without asking.
    await c.items.remove(list.id, first.id);
    const second = await c.items.add(list.id, { name: 'More apples', [productField]: apples.id });
    expect(second.sectionId).to.equal(produce.id);
    const milk = await c.items.add(list.id, { name: 'Milk', quantity: 2 });
    await c.items.toggle(list.id, milk.id);
    expect((await rejection(c.items.add(list.id, { name: 'x', quantity: 1.2345 }))).code).to.equal('validation_failed');
    expect((await rejection(c.items.toggle(list.id, first.id))).code).to.equal('not_found');

    const detail = await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean)));
    expect(detail.groups.map((g) => g.name)).to.deep.equal(['Produce', 'Uncategorized']);
    const [summary] = await firstValueFrom(c.lists.summaries$());
    expect(summary).to.include({ id: list.id, itemCount: 2, checkedCount: 1 });

    // Online again: the server's views equal the local ones, server-stamped fields included.
    await c.start();
    await c.awaitInSync();
    const localDetail = await firstValueFrom(c.lists.detail$(list.id));
    const localSummaries = await firstValueFrom(c.lists.summaries$());
    expect(localDetail).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
    expect(localSummaries).to.deep.equal(await rest('GET', '/api/lists'));
  });

  it('stores: default sections appear at once and equal the server’s after sync; sections are admin-only', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const rest = restAs(sdk.app, member.token);
    const c = sdk.track(await signedInClient(sdk.app, member));
    const store = await c.stores.create({ name: 'Market' });
    const local = await c.db.sections.find({ selector: { storeId: store.id } }).exec();
    expect(local.map((s) => s.name).sort()).to.deep.equal([...DEFAULT_SECTIONS].sort());
    expect((await rejection(c.sections.add(store.id, { name: 'Flowers' }))).code).to.equal('forbidden');
    expect((await rejection(c.stores.create({ name: 'market' }))).code).to.equal('validation_failed');

    await c.start();
    await c.awaitInSync();
    const server = await rest('GET', `/api/stores/${store.id}`);
    const after = await c.db.sections.find({ selector: { storeId: store.id } }).exec();
    const synced = after.map((s) => s.toJSON()).sort((a, b) => a.position - b.position);
    expect(synced).to.deep.equal(server.sections);
    expect(await c.db.sections.count().exec()).to.equal(DEFAULT_SECTIONS.length);
  });

  it('sections (admin): rename takes { name } or the name, reorder the ids or { sectionIds }; equal to REST after sync', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const store = await c.stores.create({ name: 'Corner shop' });
    const ids = () =>
      c.db.sections
        .find({ selector: { storeId: store.id }, sort: [{ position: 'asc' }] })
        .exec()
        .then((docs) => docs.map((d) => d.id));
    const [first, second] = await ids();
    expect((await c.sections.rename(store.id, first!, { name: 'Fruit' })).name).to.equal('Fruit');
    expect((await c.sections.rename(store.id, second!, 'Bread')).name).to.equal('Bread');
    expect((await rejection(c.sections.rename(store.id, second!, ''))).code).to.equal('validation_failed');
    const reversed = (await ids()).reverse();
    expect((await c.sections.reorder(store.id, reversed)).map((s) => s.id)).to.deep.equal(reversed);
    const rotated = [...reversed.slice(1), reversed[0]!];
    expect((await c.sections.reorder(store.id, { sectionIds: rotated })).map((s) => s.id)).to.deep.equal(rotated);
    expect((await rejection(c.sections.reorder(store.id, { sectionIds: rotated.slice(1) }))).code).to.equal(
      'validation_failed',
    );

    await c.start();
    await c.awaitInSync();
    const server = await rest('GET', `/api/stores/${store.id}/sections`);
    expect(server.map((s: { id: string }) => s.id)).to.deep.equal(rotated);
    expect(server.filter((s: { name: string }) => s.name === 'Fruit' || s.name === 'Bread')).to.have.length(2);
  });

  it('items added offline, one by one or copied from a recipe, keep their order after sync', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const recipe = await rest('POST', '/api/recipes', {
      name: 'Cake',
      ingredients: ['Flour', 'Sugar', 'Eggs', 'Butter'].map((name) => ({ name })),
    });
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop();
    const list = await c.lists.create({ name: 'Baking' });
    for (const name of ['Milk', 'Yeast', 'Salt']) await c.items.add(list.id, { name });
    await c.recipes.copyToList(recipe.id, { listId: list.id });
    const names = (d: any) => d.groups.flatMap((g: any) => g.items.map((i: any) => i.name));
    const offline = names(await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean))));
    expect(offline).to.deep.equal(['Milk', 'Yeast', 'Salt', 'Flour', 'Sugar', 'Eggs', 'Butter']);
    await c.start();
    await c.awaitInSync();
    expect(names(await rest('GET', `/api/lists/${list.id}`))).to.deep.equal(offline);
    expect(await firstValueFrom(c.lists.detail$(list.id))).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
  });
});
