import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { bumps, captureEvents, client, familyVersion, seedGlobalProduct, uuid } from '../lists/helpers.js';

const DEFAULTS = [
  'Produce',
  'Bakery',
  'Meat & Seafood',
  'Deli',
  'Dairy & Eggs',
  'Frozen',
  'Pantry',
  'Snacks',
  'Beverages',
  'Household',
  'Personal Care',
];

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const member = await makeMember(app, family);
  return { app, family, admin: client(app, family.admin), member: client(app, member) };
}

describe('stores', () => {
  it('a member creates a store with the default sections in walking order', async () => {
    const { app, family, member } = await setup();
    const { result: res, delta } = await bumps(app, family.familyId, () =>
      member('POST', '/stores', { name: 'Corner Shop' }),
    );
    expect(res.status).to.equal(201);
    expect(delta).to.equal(1);
    expect(Object.keys(res.body)).to.deep.equal(['id', 'name', 'sections', 'createdAt', 'updatedAt']);
    expect(res.body.name).to.equal('Corner Shop');
    expect(res.body.sections.map((s: any) => s.name)).to.deep.equal(DEFAULTS);
    expect(res.body.sections.map((s: any) => s.position)).to.deep.equal(DEFAULTS.map((_, i) => i));
    const s = res.body.sections[0];
    expect(Object.keys(s)).to.deep.equal(['id', 'storeId', 'name', 'position', 'category', 'createdAt', 'updatedAt']);
    expect(s.storeId).to.equal(res.body.id);
    expect(new Date(res.body.createdAt).toISOString()).to.equal(res.body.createdAt);

    const list = await member('GET', '/stores');
    expect(list.status).to.equal(200);
    expect(list.body).to.have.length(1);
    expect(list.body[0]).to.deep.equal(res.body);
    const one = await member('GET', `/stores/${res.body.id}`);
    expect(one.body).to.deep.equal(res.body);
    const sections = await member('GET', `/stores/${res.body.id}/sections`);
    expect(sections.body).to.deep.equal(res.body.sections);
  });

  it('store names are unique per family, case-insensitively (409 duplicate_name), not across families', async () => {
    const { app, family, admin } = await setup();
    expect((await admin('POST', '/stores', { name: 'Aldi' })).status).to.equal(201);
    const { result: dup, delta } = await bumps(app, family.familyId, () => admin('POST', '/stores', { name: 'ALDI' }));
    expect(dup.status).to.equal(409);
    expect(dup.body).to.include({ code: 'duplicate_name', detail: 'A store with that name already exists' });
    expect(delta).to.equal(0);
    expect((await admin('GET', '/stores')).body).to.have.length(1);

    const other = await makeFamily(app);
    expect((await client(app, other.admin)('POST', '/stores', { name: 'aldi' })).status).to.equal(201);

    const lidl = await admin('POST', '/stores', { name: 'Lidl' });
    const rename = await admin('PATCH', `/stores/${lidl.body.id}`, { name: 'aldi' });
    expect(rename.status).to.equal(409);
    expect(rename.body.code).to.equal('duplicate_name');
    // A deleted store's name is free again.
    const aldi = (await admin('GET', '/stores')).body.find((s: any) => s.name === 'Aldi');
    expect((await admin('DELETE', `/stores/${aldi.id}`)).status).to.equal(204);
    expect((await admin('PATCH', `/stores/${lidl.body.id}`, { name: 'aldi' })).status).to.equal(200);
    // A store's own name is not taken by itself: only its spelling changes.
    const respelled = await admin('PATCH', `/stores/${lidl.body.id}`, { name: 'ALDI' });
    expect(respelled.status).to.equal(200);
    expect(respelled.body.name).to.equal('ALDI');
  });

  it("lists every store with its own sections only, each store's in walking order", async () => {
    const { admin, member } = await setup();
    const a = (await member('POST', '/stores', { name: 'A' })).body;
    const b = (await member('POST', '/stores', { name: 'B' })).body;
    expect((await admin('POST', `/stores/${b.id}/sections`, { name: 'Garden' })).status).to.equal(201);
    const stores = (await member('GET', '/stores')).body;
    expect(stores.map((s: any) => s.name)).to.deep.equal(['A', 'B']);
    expect(stores[0].sections.map((s: any) => s.name)).to.deep.equal(DEFAULTS);
    expect(stores[0].sections.every((s: any) => s.storeId === a.id)).to.equal(true);
    expect(stores[1].sections.map((s: any) => s.name)).to.deep.equal([...DEFAULTS, 'Garden']);
    expect(stores[1].sections.every((s: any) => s.storeId === b.id)).to.equal(true);
  });

  it('renames a store (200) and bumps the version once; its own name again leaves it as it was', async () => {
    const { app, family, member } = await setup();
    const other = (await member('POST', '/stores', { name: 'Other' })).body;
    const store = (await member('POST', '/stores', { name: 'Old' })).body;
    const same = await member('PATCH', `/stores/${store.id}`, { name: 'Old' });
    expect(same.status).to.equal(200);
    expect(same.body).to.deep.equal(store);
    const { result, delta } = await bumps(app, family.familyId, () =>
      member('PATCH', `/stores/${store.id}`, { name: 'New' }),
    );
    expect(result.status).to.equal(200);
    expect(delta).to.equal(1);
    expect(result.body.name).to.equal('New');
    expect(result.body.sections).to.have.length(11);
    expect(Date.parse(result.body.updatedAt)).to.be.at.least(Date.parse(store.updatedAt));
    // The family's other store keeps its name.
    expect((await member('GET', `/stores/${other.id}`)).body).to.deep.equal(other);
  });

  it('accepts a client-chosen id; re-sending answers 200 with the existing store; an id taken elsewhere is 409', async () => {
    const { app, member } = await setup();
    const id = uuid();
    const first = await member('POST', '/stores', { id, name: 'Offline' });
    expect(first.status).to.equal(201);
    expect(first.body.id).to.equal(id);
    const again = await member('POST', '/stores', { id, name: 'Offline' });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect((await member('GET', '/stores')).body).to.have.length(1);

    const other = await makeFamily(app);
    const taken = await client(app, other.admin)('POST', '/stores', { id, name: 'Mine' });
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal('id_conflict');

    await member('DELETE', `/stores/${id}`);
    const deleted = await member('POST', '/stores', { id, name: 'Again' });
    expect(deleted.status).to.equal(409);
    expect(deleted.body.code).to.equal('id_conflict');
  });

  it('rejects bad input with 400 naming the field and changes nothing', async () => {
    const { app, family, member } = await setup();
    for (const [body, field] of [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x'.repeat(201) }, 'body.name'],
      [{ name: 7 }, 'body.name'],
      [{ name: 'ok', id: 'not-a-uuid' }, 'body.id'],
    ] as const) {
      const before = await familyVersion(app, family.familyId);
      const res = await member('POST', '/stores', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
      expect(res.body.errors.map((e: any) => e.path)).to.include(field);
      expect(await familyVersion(app, family.familyId)).to.equal(before);
    }
    expect((await member('GET', '/stores')).body).to.deep.equal([]);
    const store = (await member('POST', '/stores', { name: 'S' })).body;
    const bad = await member('PATCH', `/stores/${store.id}`, { name: '' });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].path).to.equal('body.name');
    expect((await member('GET', `/stores/${store.id}`)).body.name).to.equal('S');
  });

  it("another family's store is 404 everywhere and unchanged", async () => {
    const { app, admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'Mine' })).body;
    const other = await makeFamily(app);
    const them = client(app, other.admin);
    for (const path of [`/stores/${store.id}`, `/stores/${store.id}/sections`]) {
      const res = await them('GET', path);
      expect(res.status, path).to.equal(404);
      expect(res.body.detail, path).to.equal('Store not found');
    }
    const patched = await them('PATCH', `/stores/${store.id}`, { name: 'Theirs' });
    expect(patched.status).to.equal(404);
    expect(patched.body.detail).to.equal('Store not found');
    expect((await them('DELETE', `/stores/${store.id}`)).status).to.equal(404);
    expect((await them('POST', `/stores/${store.id}/sections`, { name: 'X' })).status).to.equal(404);
    const sectionId = store.sections[0].id;
    expect((await them('PATCH', `/stores/${store.id}/sections/${sectionId}`, { name: 'X' })).status).to.equal(404);
    expect((await them('DELETE', `/stores/${store.id}/sections/${sectionId}`)).status).to.equal(404);
    const ids = store.sections.map((s: any) => s.id);
    expect((await them('PUT', `/stores/${store.id}/sections/order`, { sectionIds: ids })).status).to.equal(404);
    expect((await them('GET', '/stores')).body).to.deep.equal([]);
    expect((await admin('GET', `/stores/${store.id}`)).body).to.deep.equal(store);
  });

  it("deleting a store unlinks its lists, clears its items' sections, forgets its memory and tombstones its sections", async () => {
    const { app, family, member } = await setup();
    const store = (await member('POST', '/stores', { name: 'Gone' })).body;
    const list = (await member('POST', '/lists', { name: 'Weekly', storeId: store.id })).body;
    const productId = await seedGlobalProduct(app);
    const dairy = store.sections[4].id;
    const item = (await member('POST', `/lists/${list.id}/items`, { name: 'Milk', productId, sectionId: dairy })).body;
    expect(item.sectionId).to.equal(dairy);
    // A second list of the store, with a removed item in one of its sections.
    const second = (await member('POST', '/lists', { name: 'Party', storeId: store.id })).body;
    const removed = (
      await member('POST', `/lists/${second.id}/items`, { name: 'Chips', sectionId: store.sections[7].id })
    ).body;
    await member('DELETE', `/lists/${second.id}/items/${removed.id}`);
    // A list of another store and one without a store: not touched, not told.
    const kept = (await member('POST', '/stores', { name: 'Kept' })).body;
    await member('POST', '/lists', { name: 'Kept store', storeId: kept.id });
    await member('POST', '/lists', { name: 'No store' });
    const events = captureEvents(app, family.familyId);
    try {
      const { result, delta } = await bumps(app, family.familyId, () => member('DELETE', `/stores/${store.id}`));
      expect(result.status).to.equal(204);
      expect(delta).to.equal(1);
      expect(events.of('ItemSectionChanged')).to.have.deep.members([
        { type: 'ItemSectionChanged', listId: list.id, itemId: item.id, sectionId: null, previousSectionId: dairy },
        {
          type: 'ItemSectionChanged',
          listId: second.id,
          itemId: removed.id,
          sectionId: null,
          previousSectionId: store.sections[7].id,
        },
      ]);
      const updated = events.of('ListUpdated').map((e: any) => e.list);
      expect(updated.map((l: any) => l.id)).to.have.members([list.id, second.id]);
      expect(updated.every((l: any) => l.storeId === null)).to.equal(true);
      expect(updated.find((l: any) => l.id === list.id)).to.include({ itemCount: 1 });
    } finally {
      events.stop();
    }
    expect((await member('GET', `/stores/${store.id}`)).status).to.equal(404);
    expect((await member('GET', `/stores/${store.id}/sections`)).status).to.equal(404);
    expect((await member('GET', '/stores')).body.map((st: any) => st.id)).to.deep.equal([kept.id]);
    const detail = (await member('GET', `/lists/${list.id}`)).body;
    expect(detail.storeId).to.equal(null);
    expect(detail.groups).to.have.length(1);
    expect(detail.groups[0].sectionId).to.equal(null);
    expect(detail.groups[0].items[0]).to.include({ id: item.id, sectionId: null, name: 'Milk' });
    expect(Object.fromEntries((await member('GET', '/lists')).body.map((l: any) => [l.name, l.storeId]))).to.deep.equal(
      { Weekly: null, Party: null, 'Kept store': kept.id, 'No store': null },
    );
    // Tombstones, stamped with the version of the delete.
    const db = app.deps.db;
    const version = String(await familyVersion(app, family.familyId));
    const sections = await db('store_sections').where({ store_id: store.id });
    expect(sections).to.have.length(11);
    expect(sections.every((s: any) => s.deleted && String(s.version) === version)).to.equal(true);
    const memory = await db('product_store_sections').where({ store_id: store.id });
    expect(memory).to.have.length(1);
    expect(memory[0].deleted).to.equal(true);
    expect(String(memory[0].version)).to.equal(version);
    const storeRow = await db('stores').where({ id: store.id }).first();
    expect(storeRow.deleted).to.equal(true);
    // The removed item survives without a section and comes back that way.
    const back = await member('POST', `/lists/${second.id}/items/${removed.id}/restore`);
    expect(back.body).to.include({ id: removed.id, sectionId: null, name: 'Chips' });
  });
});

describe('store sections', () => {
  it('members get 403 on every section change; admins can add, rename, reorder and delete', async () => {
    const { app, family, admin, member } = await setup();
    const store = (await member('POST', '/stores', { name: 'S' })).body;
    const ids = store.sections.map((s: any) => s.id);
    const sec = ids[0];
    for (const [method, path, body] of [
      ['POST', `/stores/${store.id}/sections`, { name: 'Bulk' }],
      ['PATCH', `/stores/${store.id}/sections/${sec}`, { name: 'Fruit' }],
      ['PUT', `/stores/${store.id}/sections/order`, { sectionIds: [...ids].reverse() }],
      ['DELETE', `/stores/${store.id}/sections/${sec}`, undefined],
    ] as const) {
      const { result, delta } = await bumps(app, family.familyId, () => member(method, path, body));
      expect(result.status, `${method} ${path}`).to.equal(403);
      expect(result.body).to.include({ code: 'forbidden', detail: 'Only a family admin can do this' });
      expect(delta).to.equal(0);
    }
    expect((await member('GET', `/stores/${store.id}`)).body).to.deep.equal(store);

    const added = await bumps(app, family.familyId, () =>
      admin('POST', `/stores/${store.id}/sections`, { name: 'Bulk' }),
    );
    expect(added.result.status).to.equal(201);
    expect(added.delta).to.equal(1);
    expect(added.result.body).to.include({ name: 'Bulk', position: 11, storeId: store.id });

    const renamed = await bumps(app, family.familyId, () =>
      admin('PATCH', `/stores/${store.id}/sections/${sec}`, { name: 'Fruit & Veg' }),
    );
    expect(renamed.result.status).to.equal(200);
    expect(renamed.delta).to.equal(1);
    expect(renamed.result.body).to.include({ id: sec, name: 'Fruit & Veg', position: 0 });

    const order = [added.result.body.id, ...[...ids].reverse()];
    const reordered = await bumps(app, family.familyId, () =>
      admin('PUT', `/stores/${store.id}/sections/order`, { sectionIds: order }),
    );
    expect(reordered.result.status).to.equal(200);
    expect(reordered.delta).to.equal(1);
    expect(reordered.result.body.map((s: any) => s.id)).to.deep.equal(order);
    expect(reordered.result.body.map((s: any) => s.position)).to.deep.equal(order.map((_, i) => i));
    expect((await member('GET', `/stores/${store.id}/sections`)).body.map((s: any) => s.id)).to.deep.equal(order);

    const deleted = await bumps(app, family.familyId, () => admin('DELETE', `/stores/${store.id}/sections/${sec}`));
    expect(deleted.result.status).to.equal(204);
    expect(deleted.delta).to.equal(1);
    const after = (await member('GET', `/stores/${store.id}/sections`)).body.map((s: any) => s.id);
    expect(after).to.deep.equal(order.filter((id) => id !== sec));
    const gone = await admin('PATCH', `/stores/${store.id}/sections/${sec}`, { name: 'x' });
    expect(gone.status).to.equal(404);
    expect(gone.body.detail).to.equal('Section not found');
    const again = await admin('DELETE', `/stores/${store.id}/sections/${sec}`);
    expect(again.status).to.equal(404);
    expect(again.body.detail).to.equal('Section not found');
  });

  it('a section edit that changes nothing leaves the section as it was (updatedAt too)', async () => {
    const { admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'S' })).body;
    const dairy = store.sections[4];
    for (const patch of [
      { name: dairy.name },
      { category: dairy.category },
      { name: dairy.name, category: dairy.category },
    ]) {
      const result = await admin('PATCH', `/stores/${store.id}/sections/${dairy.id}`, patch);
      expect(result.status, JSON.stringify(patch)).to.equal(200);
      expect(result.body, JSON.stringify(patch)).to.deep.equal(dairy);
    }
    expect((await admin('GET', `/stores/${store.id}`)).body).to.deep.equal(store);
  });

  it('adds a section at a position, moving the later ones down', async () => {
    const { admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'S' })).body;
    const res = await admin('POST', `/stores/${store.id}/sections`, { name: 'Bakery Counter', position: 2 });
    expect(res.status).to.equal(201);
    expect(res.body.position).to.equal(2);
    const names = (await admin('GET', `/stores/${store.id}/sections`)).body.map((s: any) => s.name);
    expect(names.slice(0, 4)).to.deep.equal(['Produce', 'Bakery', 'Bakery Counter', 'Meat & Seafood']);
    const far = await admin('POST', `/stores/${store.id}/sections`, { name: 'Far', position: 99 });
    expect(far.body.position).to.equal(12);
  });

  it("reorder requires exactly the store's section ids (400, nothing changed)", async () => {
    const { app, family, admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'S' })).body;
    const other = (await admin('POST', '/stores', { name: 'T' })).body;
    const ids: string[] = store.sections.map((s: any) => s.id);
    for (const sectionIds of [
      ids.slice(1),
      [...ids, other.sections[0].id],
      [...ids.slice(1), ids[1]],
      [...ids.slice(1), other.sections[0].id],
      [],
    ]) {
      const { result, delta } = await bumps(app, family.familyId, () =>
        admin('PUT', `/stores/${store.id}/sections/order`, { sectionIds }),
      );
      expect(result.status).to.equal(400);
      expect(result.body.code).to.equal('validation_failed');
      expect(result.body.errors[0]).to.deep.equal({
        path: 'body.sectionIds',
        message: "must list exactly the store's section ids, each once",
      });
      expect(delta).to.equal(0);
    }
    const bad = await admin('PUT', `/stores/${store.id}/sections/order`, { sectionIds: ['nope'] });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].path).to.match(/^body\.sectionIds/);
    expect((await admin('GET', `/stores/${store.id}/sections`)).body).to.deep.equal(store.sections);
  });

  it('a reorder stamps only the sections that moved', async () => {
    const { admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'S' })).body;
    const ids: string[] = store.sections.map((s: any) => s.id);
    // Swap the first two; the other nine keep their places and their updatedAt.
    const res = await admin('PUT', `/stores/${store.id}/sections/order`, {
      sectionIds: [ids[1], ids[0], ...ids.slice(2)],
    });
    expect(res.status).to.equal(200);
    expect(res.body.slice(2)).to.deep.equal(store.sections.slice(2));
    expect(res.body.slice(0, 2).map((s: any) => [s.id, s.position])).to.deep.equal([
      [ids[1], 0],
      [ids[0], 1],
    ]);
  });

  it('section create accepts a client id (re-send 200) and validates input', async () => {
    const { app, admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'S' })).body;
    const id = uuid();
    expect((await admin('POST', `/stores/${store.id}/sections`, { id, name: 'Extra' })).status).to.equal(201);
    const again = await admin('POST', `/stores/${store.id}/sections`, { id, name: 'Extra' });
    expect(again.status).to.equal(200);
    expect(again.body.id).to.equal(id);
    expect((await admin('GET', `/stores/${store.id}/sections`)).body).to.have.length(12);
    const other = await makeFamily(app);
    const otherStore = (await client(app, other.admin)('POST', '/stores', { name: 'S' })).body;
    const taken = await client(app, other.admin)('POST', `/stores/${otherStore.id}/sections`, { id, name: 'X' });
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal('id_conflict');
    for (const [body, field] of [
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(201) }, 'body.name'],
      [{ name: 'ok', position: -1 }, 'body.position'],
      [{ name: 'ok', position: 1.5 }, 'body.position'],
    ] as const) {
      const res = await admin('POST', `/stores/${store.id}/sections`, body);
      expect(res.status).to.equal(400);
      expect(res.body.errors.map((e: any) => e.path)).to.include(field);
    }
    expect((await admin('GET', `/stores/${store.id}/sections`)).body).to.have.length(12);
  });

  it('deleting a section keeps its items (removed ones too) with sectionId null and forgets the memory', async () => {
    const { app, family, admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'S' })).body;
    const list = (await admin('POST', '/lists', { name: 'L', storeId: store.id })).body;
    const productId = await seedGlobalProduct(app);
    const produce = store.sections[0].id;
    const apple = (await admin('POST', `/lists/${list.id}/items`, { name: 'Apples', productId, sectionId: produce }))
      .body;
    const pear = (await admin('POST', `/lists/${list.id}/items`, { name: 'Pears', sectionId: produce })).body;
    await admin('DELETE', `/lists/${list.id}/items/${pear.id}`);
    const events = captureEvents(app, family.familyId);
    try {
      expect((await admin('DELETE', `/stores/${store.id}/sections/${produce}`)).status).to.equal(204);
      await new Promise((r) => setTimeout(r, 20));
      const changed = events
        .of('ItemSectionChanged')
        .map((e: any) => e.itemId)
        .sort();
      expect(changed).to.deep.equal([apple.id, pear.id].sort());
      expect(
        events.of('ItemSectionChanged').every((e: any) => e.sectionId === null && e.previousSectionId === produce),
      ).to.equal(true);
    } finally {
      events.stop();
    }
    const detail = (await admin('GET', `/lists/${list.id}`)).body;
    expect(detail.groups).to.have.length(1);
    expect(detail.groups[0]).to.include({ sectionId: null, name: 'Uncategorized', position: null });
    expect(detail.groups[0].items.map((i: any) => i.id)).to.deep.equal([apple.id]);
    const restored = await admin('POST', `/lists/${list.id}/items/${pear.id}/restore`);
    expect(restored.body.sectionId).to.equal(null);
    // The memory pointed at the deleted section: a new apple item gets no section.
    const again = (await admin('POST', `/lists/${list.id}/items`, { name: 'Apples', productId })).body;
    expect(again.sectionId).to.equal(null);
  });
});
