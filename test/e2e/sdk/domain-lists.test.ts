// The SDK's lists offline (contract §8), beyond create and rename: a list's store given again,
// unlinked or changed while other lists keep theirs; archive and unarchive; delete; the detail
// view following a change; "done shopping" in the order items were added; the refusals an app
// shows (their paths and messages). After sync the device shows what REST answers.
import { expect } from 'chai';
import { firstValueFrom, filter } from 'rxjs';
import { makeFamily } from '../../helpers/factories.js';
import type { FamilyClient, ListDetail } from '@family-shopping/client';
import { rejection, restAs, sdkSuite, signedInClient, waitFor, syncThenOffline } from './helpers.js';

describe('e2e SDK: lists offline', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  const sectionOf = async (c: FamilyClient, itemId: string) => (await c.db.items.findOne(itemId).exec())?.sectionId;
  /** The store's default sections in walking order. */
  const sectionsOf = async (c: FamilyClient, storeId: string) =>
    c.db.sections.find({ selector: { storeId }, sort: [{ position: 'asc' }] }).exec();

  it('a list’s store given again, a rename, unlinking: items keep or lose sections; other lists untouched', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await syncThenOffline(c); // offline from here on

    const corner = await c.stores.create({ name: 'Corner shop' });
    const [produce, bakery] = await sectionsOf(c, corner.id);
    // Apples are produce: a new item of them goes to the store's produce section by category
    // (that placement is not remembered). Milk has no product: its section is explicit.
    const apples = await c.products.create({ name: 'Apples', category: 'produce' });
    const weekly = await c.lists.create({ name: 'Weekly', storeId: corner.id });
    const party = await c.lists.create({ name: 'Party', storeId: corner.id });
    const fruit = await c.items.add(weekly.id, { familyProductId: apples.id });
    const milk = await c.items.add(weekly.id, { name: 'Milk', sectionId: bakery!.id });
    const bread = await c.items.add(party.id, { name: 'Bread', sectionId: bakery!.id });
    expect(fruit.sectionId).to.equal(produce!.id);

    // The same store again, or a rename alone: nothing is re-sectioned.
    expect((await c.lists.update(weekly.id, { storeId: corner.id })).storeId).to.equal(corner.id);
    expect((await c.lists.update(weekly.id, { name: 'Weekly shop' })).name).to.equal('Weekly shop');
    expect(await sectionOf(c, fruit.id)).to.equal(produce!.id);
    expect(await sectionOf(c, milk.id)).to.equal(bakery!.id);

    // An unknown store is refused with REST's path and message.
    const unknown = await rejection(c.lists.update(weekly.id, { storeId: crypto.randomUUID() }));
    expect(unknown.errors).to.deep.equal([{ path: 'storeId', message: 'unknown store' }]);

    // Unlinked: the list's items lose their sections; the other list keeps its store and sections.
    const unlinked = await c.lists.update(weekly.id, { storeId: null });
    expect(unlinked).to.include({ name: 'Weekly shop', storeId: null });
    expect(await sectionOf(c, fruit.id)).to.equal(null);
    expect(await sectionOf(c, milk.id)).to.equal(null);
    expect((await c.db.lists.findOne(party.id).exec())?.storeId).to.equal(corner.id);
    expect(await sectionOf(c, bread.id)).to.equal(bakery!.id);

    await c.start();
    await c.awaitInSync();
    for (const id of [weekly.id, party.id]) {
      const detail = await firstValueFrom(c.lists.detail$(id).pipe(filter(Boolean)));
      expect(detail).to.deep.equal(await rest('GET', `/api/lists/${id}`));
    }
  });

  it('archive (again: unchanged), unarchive, delete (other lists keep their items); the views follow', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));

    const weekly = await c.lists.create({ name: 'Weekly' });
    const party = await c.lists.create({ name: 'Party' });
    const eggs = await c.items.add(weekly.id, { name: 'Eggs' });
    const cake = await c.items.add(party.id, { name: 'Cake' });

    // An open detail view follows the list's changes.
    const seen: (ListDetail | null)[] = [];
    const sub = c.lists.detail$(weekly.id).subscribe((d) => seen.push(d));
    try {
      await waitFor(() => seen.at(-1)?.name === 'Weekly', 'the detail view');
      await c.lists.update(weekly.id, { name: 'Weekly shop' });
      await waitFor(() => seen.at(-1)?.name === 'Weekly shop', 'the renamed list in the open detail view');
    } finally {
      sub.unsubscribe();
    }

    const archived = await c.lists.archive(weekly.id);
    expect(archived.archivedAt).to.be.a('string');
    expect(await c.lists.archive(weekly.id)).to.deep.equal(archived);
    expect((await firstValueFrom(c.lists.summaries$({ archived: true }))).map((s) => s.id)).to.deep.equal([weekly.id]);
    const unarchived = await c.lists.unarchive(weekly.id);
    expect(unarchived.archivedAt).to.equal(null);
    expect((await firstValueFrom(c.lists.summaries$({ archived: true }))).map((s) => s.id)).to.deep.equal([]);

    expect((await c.lists.delete(weekly.id)).id).to.equal(weekly.id);
    expect(await c.db.lists.findOne(weekly.id).exec()).to.equal(null);
    expect(await c.db.items.findOne(eggs.id).exec()).to.equal(null);
    expect((await c.db.items.findOne(cake.id).exec())?.name).to.equal('Cake');
    const gone = await rejection(c.lists.archive(weekly.id));
    expect(gone).to.include({ code: 'not_found', message: 'List not found' });

    await c.start();
    await c.awaitInSync();
    expect(await firstValueFrom(c.lists.summaries$())).to.deep.equal(await rest('GET', '/api/lists'));
  });

  it('done shopping removes the checked items in the order they were added, as REST does', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    // Ids whose order is the reverse of the order the items are added in.
    const ids = ['cccccccc-0000-4000-8000-000000000000', 'bbbbbbbb-0000-4000-8000-000000000000'];
    ids.push('aaaaaaaa-0000-4000-8000-000000000000');
    const names = ['Apples', 'Bread', 'Cheese'];

    const list = await c.lists.create({ name: 'Weekly' });
    for (const [i, name] of names.entries()) await c.items.add(list.id, { id: ids[i], name });
    for (const i of [1, 2, 0]) await c.items.toggle(list.id, ids[i]!);
    const cleared = await c.lists.clearChecked(list.id);
    expect(cleared.map((i) => i.name)).to.deep.equal(names);

    // The same calls on REST.
    const restList = await rest('POST', '/api/lists', { name: 'Weekly (REST)' });
    const restIds: string[] = [];
    for (const name of names) restIds.push((await rest('POST', `/api/lists/${restList.id}/items`, { name })).id);
    for (const i of [1, 2, 0]) await rest('PATCH', `/api/lists/${restList.id}/items/${restIds[i]}`, { checked: true });
    const restCleared = (await rest('POST', `/api/lists/${restList.id}/clear-checked`)).items;
    expect(restCleared.map((i: { name: string }) => i.name)).to.deep.equal(cleared.map((i) => i.name));
  });

  it('suggestions refuse a limit out of range, naming the field and the range', async () => {
    const family = await makeFamily(sdk.app);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const list = await c.lists.create({ name: 'Weekly' });
    for (const limit of [0, 51, 2.5]) {
      let err: unknown;
      try {
        c.lists.suggestions$(list.id, { limit });
      } catch (e) {
        err = e;
      }
      expect(err, `limit ${limit}`).to.include({ code: 'validation_failed' });
      expect((err as { errors: unknown }).errors).to.deep.equal([
        { path: 'limit', message: 'must be an integer from 1 to 50' },
      ]);
    }
  });

  it('a re-sent create and an edit that changes nothing leave the list as it was; ids in any letter case', async () => {
    const family = await makeFamily(sdk.app);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const list = await c.lists.create({ id: crypto.randomUUID(), name: 'Weekly' });
    expect(await c.lists.create({ id: list.id, name: 'Something else' })).to.deep.equal(list);
    expect(await c.lists.update(list.id.toUpperCase(), { name: 'Weekly' })).to.deep.equal(list);
    expect((await c.db.lists.findOne(list.id).exec())?.toJSON()).to.deep.include(list);
    const renamed = await c.lists.update(list.id.toUpperCase(), { name: 'Weekly shop' });
    expect(renamed).to.deep.include({ id: list.id, name: 'Weekly shop', createdAt: list.createdAt });
    expect(Date.parse(renamed.updatedAt)).to.be.greaterThan(Date.parse(list.updatedAt));

    const bad = await rejection(c.lists.create({ name: ' ' }));
    // Every refused rule named in the message, as an app may show it.
    expect(bad.message).to.equal(
      'invalid input: name: must contain a visible character and no control characters, bidirectional ' +
        'overrides or isolates, or noncharacters; name: must be 1 to 200 characters long',
    );
  });
});
