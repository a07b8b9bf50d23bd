import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { bumps, captureEvents, client, familyVersion, uuid } from './helpers.js';
import { updateVersioned } from '../../helpers/versioned.js';

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const member = await makeMember(app, family);
  return { app, family, admin: client(app, family.admin), member: client(app, member) };
}

const SUMMARY_KEYS = ['id', 'name', 'storeId', 'archivedAt', 'itemCount', 'checkedCount', 'createdAt', 'updatedAt'];

describe('shopping lists', () => {
  it('creates a list with or without a store (201) and lists summaries with active counts', async () => {
    const { app, family, member } = await setup();
    const store = (await member('POST', '/stores', { name: 'S' })).body;
    const events = captureEvents(app, family.familyId);
    let plain: any;
    try {
      const { result, delta } = await bumps(app, family.familyId, () => member('POST', '/lists', { name: 'Plain' }));
      expect(result.status).to.equal(201);
      expect(delta).to.equal(1);
      plain = result.body;
      expect(Object.keys(plain)).to.deep.equal(SUMMARY_KEYS);
      expect(plain).to.include({ name: 'Plain', storeId: null, archivedAt: null, itemCount: 0, checkedCount: 0 });
      expect(events.of('ListCreated')).to.deep.equal([{ type: 'ListCreated', list: plain }]);
    } finally {
      events.stop();
    }
    const withStore = await member('POST', '/lists', { name: 'Store list', storeId: store.id });
    expect(withStore.status).to.equal(201);
    expect(withStore.body.storeId).to.equal(store.id);

    const a = (await member('POST', `/lists/${plain.id}/items`, { name: 'a' })).body;
    await member('POST', `/lists/${plain.id}/items`, { name: 'b' });
    const c = (await member('POST', `/lists/${plain.id}/items`, { name: 'c' })).body;
    await member('POST', `/lists/${plain.id}/items/${a.id}/toggle`);
    await member('DELETE', `/lists/${plain.id}/items/${c.id}`);
    const lists = (await member('GET', '/lists')).body;
    expect(lists.map((l: any) => l.name).sort()).to.deep.equal(['Plain', 'Store list']);
    expect(lists.find((l: any) => l.id === plain.id)).to.include({ itemCount: 2, checkedCount: 1 });
  });

  it('answers lists newest first, then by id descending (the order of the SDK’s summaries$)', async () => {
    const { app, family, member } = await setup();
    const make = async (name: string) => (await member('POST', '/lists', { name })).body.id as string;
    const [a, b, c, d] = [await make('A'), await make('B'), await make('C'), await make('D')];
    const t0 = Date.parse('2026-01-10T10:00:00.000Z');
    // b and c at the same instant: the id decides.
    const created: Array<[string, number]> = [
      [a, t0],
      [b, t0 + 1_000],
      [c, t0 + 1_000],
      [d, t0 - 1_000],
    ];
    for (const [id, t] of created) {
      await updateVersioned(app, family.familyId, 'shopping_lists', { id }, { created_at: new Date(t) });
    }
    const expected = [...[b, c].sort().reverse(), a, d];
    const ids = async (query = '') => (await member('GET', `/lists${query}`)).body.map((l: any) => l.id);
    expect(await ids()).to.deep.equal(expected);
    for (const id of [d, b, a, c]) await member('POST', `/lists/${id}/archive`);
    expect(await ids('?archived=true')).to.deep.equal(expected);
  });

  it('an edit that changes nothing changes nothing: same name, same store, unarchiving an active list', async () => {
    const { app, family, member } = await setup();
    const store = (await member('POST', '/stores', { name: 'S' })).body;
    const list = (await member('POST', '/lists', { name: 'Same', storeId: store.id })).body;
    const events = captureEvents(app, family.familyId);
    try {
      for (const [path, body] of [
        [`/lists/${list.id}`, { name: 'Same' }],
        [`/lists/${list.id}`, { storeId: store.id }],
        [`/lists/${list.id}`, { name: 'Same', storeId: store.id.toUpperCase() }],
        [`/lists/${list.id}/unarchive`, undefined],
      ] as const) {
        const method = path.endsWith('unarchive') ? 'POST' : 'PATCH';
        const result = await member(method, path, body);
        expect(result.status, path).to.equal(200);
        expect(result.body, `${method} ${JSON.stringify(body)}`).to.deep.equal(list); // updatedAt too
      }
      // Nothing to tell: only the version's Changed frames, naming no collection.
      expect(events.events.filter((e) => e.type !== 'Changed')).to.deep.equal([]);
      expect(events.of('Changed').flatMap((e: any) => e.collections)).to.deep.equal([]);
    } finally {
      events.stop();
    }
  });

  it('renames one list, leaving the family’s other lists as they were', async () => {
    const { member } = await setup();
    const one = (await member('POST', '/lists', { name: 'One' })).body;
    await member('POST', '/lists', { name: 'Two' });
    expect((await member('PATCH', `/lists/${one.id}`, { name: 'First' })).status).to.equal(200);
    expect((await member('GET', '/lists')).body.map((l: any) => l.name).sort()).to.deep.equal(['First', 'Two']);
  });

  it('archives and unarchives one list, leaving the family’s other lists as they were', async () => {
    const { member } = await setup();
    const make = async (name: string) => (await member('POST', '/lists', { name })).body;
    const [one, two] = [await make('One'), await make('Two')];
    await make('Three');
    await member('POST', `/lists/${one.id}/archive`);
    await member('POST', `/lists/${two.id}/archive`);
    const names = async (query: string) =>
      (await member('GET', `/lists${query}`)).body.map((l: any) => l.name as string).sort();
    expect(await names('?archived=true')).to.deep.equal(['One', 'Two']);
    expect(await names('')).to.deep.equal(['Three']);
    await member('POST', `/lists/${one.id}/unarchive`);
    expect(await names('?archived=true')).to.deep.equal(['Two']);
    expect(await names('')).to.deep.equal(['One', 'Three']);
  });

  it('archives and unarchives (GET /lists?archived=true|false), with overview events', async () => {
    const { app, family, member } = await setup();
    const list = (await member('POST', '/lists', { name: 'L' })).body;
    const events = captureEvents(app, family.familyId);
    try {
      const { result, delta } = await bumps(app, family.familyId, () => member('POST', `/lists/${list.id}/archive`));
      expect(result.status).to.equal(200);
      expect(delta).to.equal(1);
      expect(result.body.archivedAt).to.be.a('string');
      expect(events.of('ListArchived')).to.deep.equal([{ type: 'ListArchived', listId: list.id }]);
      expect((await member('GET', '/lists')).body).to.deep.equal([]);
      expect((await member('GET', '/lists?archived=false')).body).to.deep.equal([]);
      expect((await member('GET', '/lists?archived=true')).body.map((l: any) => l.id)).to.deep.equal([list.id]);
      // Archiving again changes nothing.
      const again = await member('POST', `/lists/${list.id}/archive`);
      expect(again.body.archivedAt).to.equal(result.body.archivedAt);
      expect(events.of('ListArchived')).to.have.length(1);

      const un = await bumps(app, family.familyId, () => member('POST', `/lists/${list.id}/unarchive`));
      expect(un.result.status).to.equal(200);
      expect(un.delta).to.equal(1);
      expect(un.result.body.archivedAt).to.equal(null);
      expect(events.of('ListUpdated')).to.deep.equal([{ type: 'ListUpdated', list: un.result.body }]);
      expect((await member('GET', '/lists')).body.map((l: any) => l.id)).to.deep.equal([list.id]);
    } finally {
      events.stop();
    }
    const bad = await member('GET', '/lists?archived=maybe');
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].path).to.equal('query.archived');
  });

  it('rejects a store of another family (or unknown) on create and update with 400 store_not_found, changing nothing', async () => {
    const { app, family, member } = await setup();
    const other = await makeFamily(app);
    const foreign = (await client(app, other.admin)('POST', '/stores', { name: 'Theirs' })).body;
    for (const storeId of [foreign.id, uuid()]) {
      const { result, delta } = await bumps(app, family.familyId, () =>
        member('POST', '/lists', { name: 'L', storeId }),
      );
      expect(result.status).to.equal(400);
      expect(result.body.code).to.equal('store_not_found');
      expect(result.body.detail).to.equal('The store does not exist');
      expect(result.body.errors).to.deep.equal([{ path: 'body.storeId', message: 'unknown store' }]);
      expect(delta).to.equal(0);
    }
    expect((await member('GET', '/lists')).body).to.deep.equal([]);
    const list = (await member('POST', '/lists', { name: 'L' })).body;
    const { result, delta } = await bumps(app, family.familyId, () =>
      member('PATCH', `/lists/${list.id}`, { storeId: foreign.id }),
    );
    expect(result.status).to.equal(400);
    expect(result.body.code).to.equal('store_not_found');
    expect(delta).to.equal(0);
    expect((await member('GET', `/lists/${list.id}`)).body.storeId).to.equal(null);
    // A list that is not the family's: 404, saying which record is missing.
    for (const [method, path] of [
      ['PATCH', `/lists/${uuid()}`],
      ['POST', `/lists/${uuid()}/archive`],
      ['DELETE', `/lists/${uuid()}`],
      ['POST', `/lists/${uuid()}/items`],
    ] as const) {
      const res = await member(method, path, method === 'DELETE' ? undefined : { name: 'x' });
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(res.body).to.include({ code: 'not_found', detail: 'List not found' });
    }
  });

  it('renames and re-stores a list (ListUpdated); changing the store re-sections the items by the new store', async () => {
    const { app, family, member } = await setup();
    const s1 = (await member('POST', '/stores', { name: 'One' })).body;
    const s2 = (await member('POST', '/stores', { name: 'Two' })).body;
    const list = (await member('POST', '/lists', { name: 'L', storeId: s1.id })).body;
    const item = (await member('POST', `/lists/${list.id}/items`, { name: 'x', sectionId: s1.sections[0].id })).body;
    const events = captureEvents(app, family.familyId);
    try {
      const { result, delta } = await bumps(app, family.familyId, () =>
        member('PATCH', `/lists/${list.id}`, { name: 'Renamed', storeId: s2.id }),
      );
      expect(result.status).to.equal(200);
      expect(delta).to.equal(1);
      expect(result.body).to.include({ name: 'Renamed', storeId: s2.id, itemCount: 1 });
      expect(events.of('ListUpdated')).to.deep.equal([{ type: 'ListUpdated', list: result.body }]);
      expect(events.of('ItemSectionChanged')).to.deep.equal([
        {
          type: 'ItemSectionChanged',
          listId: list.id,
          itemId: item.id,
          sectionId: null,
          previousSectionId: s1.sections[0].id,
        },
      ]);
    } finally {
      events.stop();
    }
    const unlinked = await member('PATCH', `/lists/${list.id}`, { storeId: null });
    expect(unlinked.body.storeId).to.equal(null);
  });

  it('deletes a list (204) and its items; ListDeleted', async () => {
    const { app, family, member } = await setup();
    const list = (await member('POST', '/lists', { name: 'L' })).body;
    const item = (await member('POST', `/lists/${list.id}/items`, { name: 'x' })).body;
    const events = captureEvents(app, family.familyId);
    try {
      const { result, delta } = await bumps(app, family.familyId, () => member('DELETE', `/lists/${list.id}`));
      expect(result.status).to.equal(204);
      expect(delta).to.equal(1);
      expect(events.of('ListDeleted')).to.deep.equal([{ type: 'ListDeleted', listId: list.id }]);
    } finally {
      events.stop();
    }
    expect((await member('GET', `/lists/${list.id}`)).status).to.equal(404);
    expect((await member('DELETE', `/lists/${list.id}`)).status).to.equal(404);
    expect((await member('GET', '/lists')).body).to.deep.equal([]);
    const row = await app.deps.db('shopping_list_items').where({ id: item.id }).first();
    expect(row.deleted).to.equal(true);
    expect(Number(row.version)).to.equal(await familyVersion(app, family.familyId));
    expect((await member('POST', `/lists/${list.id}/items/${item.id}/toggle`)).status).to.equal(404);
  });

  it('accepts a client-chosen id: re-send 200 with the existing list, another family 409 id_conflict', async () => {
    const { app, member } = await setup();
    const id = uuid();
    const first = await member('POST', '/lists', { id, name: 'L' });
    expect(first.status).to.equal(201);
    expect(first.body.id).to.equal(id);
    const again = await member('POST', '/lists', { id, name: 'L' });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    const other = await makeFamily(app);
    const taken = await client(app, other.admin)('POST', '/lists', { id, name: 'L' });
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal('id_conflict');
  });

  it('rejects bad list input with 400 naming the field, changing nothing', async () => {
    const { app, family, member } = await setup();
    const list = (await member('POST', '/lists', { name: 'L' })).body;
    for (const [method, path, body, field] of [
      ['POST', '/lists', {}, 'body.name'],
      ['POST', '/lists', { name: '' }, 'body.name'],
      ['POST', '/lists', { name: 'x'.repeat(201) }, 'body.name'],
      ['POST', '/lists', { name: 'ok', storeId: 'abc' }, 'body.storeId'],
      ['PATCH', `/lists/${list.id}`, { name: '' }, 'body.name'],
      ['PATCH', `/lists/${list.id}`, { storeId: 5 }, 'body.storeId'],
    ] as const) {
      const { result, delta } = await bumps(app, family.familyId, () => member(method, path, body));
      expect(result.status, `${method} ${path} ${JSON.stringify(body)}`).to.equal(400);
      expect(result.body.code).to.equal('validation_failed');
      expect(result.body.errors.map((e: any) => e.path)).to.include(field);
      expect(delta).to.equal(0);
    }
    expect((await member('GET', '/lists')).body).to.deep.equal([list]);
    // A malformed path id names no list: 404, as an unknown one.
    const malformed = await member('GET', '/lists/not-a-uuid');
    expect([malformed.status, malformed.body.code]).to.deep.equal([404, 'not_found']);
  });

  it("another family's list is 404 on every list and item route", async () => {
    const { app, member } = await setup();
    const list = (await member('POST', '/lists', { name: 'L' })).body;
    const item = (await member('POST', `/lists/${list.id}/items`, { name: 'x' })).body;
    const other = await makeFamily(app);
    const them = client(app, other.admin);
    for (const [method, path, body] of [
      ['GET', `/lists/${list.id}`, undefined],
      ['PATCH', `/lists/${list.id}`, { name: 'Theirs' }],
      ['POST', `/lists/${list.id}/archive`, undefined],
      ['POST', `/lists/${list.id}/unarchive`, undefined],
      ['DELETE', `/lists/${list.id}`, undefined],
      ['POST', `/lists/${list.id}/items`, { name: 'y' }],
      ['PATCH', `/lists/${list.id}/items/${item.id}`, { name: 'y' }],
      ['POST', `/lists/${list.id}/items/${item.id}/toggle`, undefined],
      ['DELETE', `/lists/${list.id}/items/${item.id}`, undefined],
      ['POST', `/lists/${list.id}/items/${item.id}/restore`, undefined],
    ] as const) {
      const res = await them(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(404);
    }
    expect((await them('GET', '/lists')).body).to.deep.equal([]);
    const detail = (await member('GET', `/lists/${list.id}`)).body;
    expect(detail.name).to.equal('L');
    expect(detail.groups[0].items).to.deep.equal([item]);
  });
});

describe('list detail grouping', () => {
  it('groups by section in walking order, Uncategorized last; unchecked before checked, then createdAt', async () => {
    const { admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'S' })).body;
    const [produce, bakery, , , dairy] = store.sections.map((s: any) => s.id);
    const list = (await admin('POST', '/lists', { name: 'L', storeId: store.id })).body;
    const add = async (name: string, sectionId?: string) =>
      (await admin('POST', `/lists/${list.id}/items`, { name, ...(sectionId ? { sectionId } : {}) })).body;
    const milk = await add('Milk', dairy);
    const loose = await add('Batteries');
    const apples = await add('Apples', produce);
    const yogurt = await add('Yogurt', dairy);
    const pears = await add('Pears', produce);
    const cheese = await add('Cheese', dairy);
    await admin('POST', `/lists/${list.id}/items/${milk.id}/toggle`);
    await admin('PATCH', `/lists/${list.id}/items/${apples.id}`, { checked: true });
    const removed = await add('Bread', bakery);
    await admin('DELETE', `/lists/${list.id}/items/${removed.id}`);

    const detail = (await admin('GET', `/lists/${list.id}`)).body;
    expect(Object.keys(detail)).to.deep.equal([
      'id',
      'name',
      'storeId',
      'archivedAt',
      'createdAt',
      'updatedAt',
      'groups',
    ]);
    expect(detail.groups.map((g: any) => [g.sectionId, g.name, g.position])).to.deep.equal([
      [produce, 'Produce', 0],
      [dairy, 'Dairy & Eggs', 4],
      [null, 'Uncategorized', null],
    ]);
    expect(detail.groups[0].items.map((i: any) => i.name)).to.deep.equal(['Pears', 'Apples']);
    expect(detail.groups[1].items.map((i: any) => i.name)).to.deep.equal(['Yogurt', 'Cheese', 'Milk']);
    expect(detail.groups[2].items.map((i: any) => i.id)).to.deep.equal([loose.id]);
    expect(Object.keys(detail.groups[0])).to.deep.equal(['sectionId', 'name', 'position', 'items']);
    void yogurt;
    void cheese;
    void pears;

    // Reordering the store's sections reorders the groups.
    const ids = store.sections.map((s: any) => s.id);
    const order = [dairy, ...ids.filter((id: string) => id !== dairy)];
    expect((await admin('PUT', `/stores/${store.id}/sections/order`, { sectionIds: order })).status).to.equal(200);
    const after = (await admin('GET', `/lists/${list.id}`)).body;
    expect(after.groups.map((g: any) => g.sectionId)).to.deep.equal([dairy, produce, null]);
    expect(after.groups[0].position).to.equal(0);
  });

  it('puts every item of a list without a store in Uncategorized; an empty list has no groups', async () => {
    const { admin } = await setup();
    const list = (await admin('POST', '/lists', { name: 'L' })).body;
    expect((await admin('GET', `/lists/${list.id}`)).body.groups).to.deep.equal([]);
    await admin('POST', `/lists/${list.id}/items`, { name: 'a' });
    await admin('POST', `/lists/${list.id}/items`, { name: 'b' });
    const detail = (await admin('GET', `/lists/${list.id}`)).body;
    expect(detail.groups).to.have.length(1);
    expect(detail.groups[0]).to.include({ sectionId: null, name: 'Uncategorized', position: null });
    expect(detail.groups[0].items.map((i: any) => i.name)).to.deep.equal(['a', 'b']);
  });
});
