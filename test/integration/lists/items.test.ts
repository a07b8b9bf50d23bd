import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { familyWrite } from '../../../server/db/family-write.js';
import {
  bumps,
  captureEvents,
  client,
  globalUnitId,
  seedFamilyProduct,
  seedFamilyUnit,
  seedGlobalProduct,
  uuid,
} from './helpers.js';

const ITEM_KEYS = [
  'id',
  'listId',
  'name',
  'quantity',
  'unitOfMeasureId',
  'familyUnitOfMeasureId',
  'isApproximate',
  'quantityNote',
  'productId',
  'familyProductId',
  'sectionId',
  'checked',
  'checkedAt',
  'removedAt',
  'removedByUserId',
  'createdAt',
  'updatedAt',
];

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const memberUser = await makeMember(app, family);
  const member = client(app, memberUser);
  const store = (await member('POST', '/stores', { name: 'Main' })).body;
  const list = (await member('POST', '/lists', { name: 'Weekly', storeId: store.id })).body;
  const items = `/lists/${list.id}/items`;
  return { app, family, memberUser, member, admin: client(app, family.admin), store, list, items };
}

describe('list items', () => {
  it('adds an item with every field (201) and emits ItemAdded, ItemSectionChanged and ListProgress', async () => {
    const { app, family, member, store, list, items } = await setup();
    const unitId = await globalUnitId(app);
    const productId = await seedGlobalProduct(app);
    const events = captureEvents(app, family.familyId);
    try {
      const body = {
        name: 'Tomatoes',
        quantity: 1.125,
        unitOfMeasureId: unitId,
        isApproximate: true,
        quantityNote: 'ripe ones',
        productId,
        sectionId: store.sections[0].id,
      };
      const { result, delta } = await bumps(app, family.familyId, () => member('POST', items, body));
      expect(result.status).to.equal(201);
      expect(delta).to.equal(1);
      const item = result.body;
      expect(Object.keys(item)).to.deep.equal(ITEM_KEYS);
      expect(item).to.include({
        listId: list.id,
        name: 'Tomatoes',
        quantity: 1.125,
        unitOfMeasureId: unitId,
        familyUnitOfMeasureId: null,
        isApproximate: true,
        quantityNote: 'ripe ones',
        productId,
        familyProductId: null,
        sectionId: store.sections[0].id,
        checked: false,
        checkedAt: null,
        removedAt: null,
        removedByUserId: null,
      });
      expect(events.events.map((e) => e.type)).to.deep.equal([
        'ItemAdded',
        'ItemSectionChanged',
        'ListProgress',
        'Changed',
      ]);
      expect(events.of('ItemAdded')[0]).to.deep.equal({ type: 'ItemAdded', listId: list.id, item });
      expect(events.of('ItemSectionChanged')[0]).to.deep.equal({
        type: 'ItemSectionChanged',
        listId: list.id,
        itemId: item.id,
        sectionId: store.sections[0].id,
        previousSectionId: null,
      });
      expect(events.of('ListProgress')[0]).to.deep.equal({
        type: 'ListProgress',
        listId: list.id,
        itemCount: 1,
        checkedCount: 0,
      });
    } finally {
      events.stop();
    }
    const minimal = (await member('POST', items, { name: 'Salt' })).body;
    expect(minimal).to.include({
      quantity: null,
      isApproximate: false,
      quantityNote: null,
      sectionId: null,
      productId: null,
    });
  });

  it('stores quantities as exact decimals with at most 3 places; more places or negatives are 400 with nothing changed', async () => {
    const { app, family, member, list, items } = await setup();
    for (const q of [0, 0.1, 2.5, 1.005, 123456.789, 999999999.999]) {
      const res = await member('POST', items, { name: `q${q}`, quantity: q });
      expect(res.status).to.equal(201);
      expect(res.body.quantity).to.equal(q);
    }
    const item = (await member('POST', items, { name: 'x', quantity: 1 })).body;
    for (const q of [1.2345, -1, 1e12, 'two']) {
      const { result, delta } = await bumps(app, family.familyId, () =>
        member('POST', items, { name: 'bad', quantity: q }),
      );
      expect(result.status, String(q)).to.equal(400);
      expect(result.body.code).to.equal('validation_failed');
      expect(result.body.errors.map((e: any) => e.path)).to.include('body.quantity');
      expect(delta).to.equal(0);
      const patch = await member('PATCH', `${items}/${item.id}`, { quantity: q });
      expect(patch.status).to.equal(400);
      expect(patch.body.errors.map((e: any) => e.path)).to.include('body.quantity');
    }
    const detail = (await member('GET', `/lists/${list.id}`)).body;
    expect(detail.groups[0].items.find((i: any) => i.id === item.id).quantity).to.equal(1);
    expect(detail.groups[0].items.some((i: any) => i.name === 'bad')).to.equal(false);
    const cleared = await member('PATCH', `${items}/${item.id}`, { quantity: null });
    expect(cleared.body.quantity).to.equal(null);
  });

  it('enforces the unit and product pair rules and family-scoped references (400, nothing changed)', async () => {
    const { app, family, member, items, list } = await setup();
    const other = await makeFamily(app);
    const unitId = await globalUnitId(app);
    const familyUnit = await seedFamilyUnit(app, family.familyId);
    const foreignUnit = await seedFamilyUnit(app, other.familyId);
    const productId = await seedGlobalProduct(app);
    const familyProduct = await seedFamilyProduct(app, family.familyId);
    const foreignProduct = await seedFamilyProduct(app, other.familyId);
    const deletedProduct = await seedFamilyProduct(app, family.familyId);
    await familyWrite(app.deps, family.familyId, (w) => w.tombstone('family_products', { id: deletedProduct }));
    const otherStore = (await member('POST', '/stores', { name: 'Other' })).body;
    const noStoreList = (await member('POST', '/lists', { name: 'No store' })).body;

    const cases: Array<[unknown, number, string, string, string?]> = [
      [
        { unitOfMeasureId: unitId, familyUnitOfMeasureId: familyUnit },
        400,
        'validation_failed',
        'body.familyUnitOfMeasureId',
      ],
      [{ productId, familyProductId: familyProduct }, 400, 'validation_failed', 'body.familyProductId'],
      [{ familyUnitOfMeasureId: foreignUnit }, 400, 'unit_not_found', 'body.familyUnitOfMeasureId'],
      [{ unitOfMeasureId: foreignUnit }, 400, 'unit_not_found', 'body.unitOfMeasureId'],
      [{ unitOfMeasureId: uuid() }, 400, 'unit_not_found', 'body.unitOfMeasureId'],
      [{ familyProductId: foreignProduct }, 400, 'product_not_found', 'body.familyProductId'],
      [{ familyProductId: deletedProduct }, 400, 'product_not_found', 'body.familyProductId'],
      [{ productId: uuid() }, 400, 'product_not_found', 'body.productId'],
      [{ productId: familyProduct }, 400, 'product_not_found', 'body.productId'],
      [{ sectionId: otherStore.sections[0].id }, 400, 'section_not_found', 'body.sectionId'],
      [{ sectionId: uuid() }, 400, 'section_not_found', 'body.sectionId'],
      [
        { sectionId: otherStore.sections[0].id },
        400,
        'section_not_found',
        'body.sectionId',
        `/lists/${noStoreList.id}/items`,
      ],
      [{ name: '' }, 400, 'validation_failed', 'body.name'],
      [{ name: 'x'.repeat(501) }, 400, 'validation_failed', 'body.name'],
      [{ quantityNote: 'x'.repeat(501) }, 400, 'validation_failed', 'body.quantityNote'],
      [{ isApproximate: 'yes' }, 400, 'validation_failed', 'body.isApproximate'],
      [{ unitOfMeasureId: 'nope' }, 400, 'validation_failed', 'body.unitOfMeasureId'],
    ];
    for (const [extra, status, code, field, path] of cases) {
      const { result, delta } = await bumps(app, family.familyId, () =>
        member('POST', path ?? items, { name: 'Item', ...(extra as object) }),
      );
      expect(result.status, JSON.stringify(extra)).to.equal(status);
      expect(result.body.code, JSON.stringify(extra)).to.equal(code);
      expect(
        result.body.errors.map((e: any) => e.path),
        JSON.stringify(extra),
      ).to.include(field);
      // An unknown reference says which kind of record is missing, in the detail and the field.
      const missing = { unit_not_found: 'unit', product_not_found: 'product' }[code];
      if (missing) {
        expect(result.body.detail, JSON.stringify(extra)).to.equal(`The ${missing} does not exist`);
        expect(result.body.errors, JSON.stringify(extra)).to.deep.equal([
          { path: field, message: `unknown ${missing}` },
        ]);
      }
      if (code === 'section_not_found') {
        expect(result.body.detail).to.equal("The section is not a section of the list's store");
        expect(result.body.errors).to.deep.equal([{ path: field, message: "not a section of the list's store" }]);
      }
      expect(delta).to.equal(0);
    }
    expect((await member('GET', '/lists')).body.every((l: any) => l.itemCount === 0)).to.equal(true);

    // Valid family references are accepted.
    const ok = await member('POST', items, {
      name: 'Mine',
      familyUnitOfMeasureId: familyUnit,
      familyProductId: familyProduct,
    });
    expect(ok.status).to.equal(201);
    expect(ok.body).to.include({ familyUnitOfMeasureId: familyUnit, familyProductId: familyProduct });

    // PATCH: setting one id of a pair switches it over; both at once is 400; foreign is 400.
    const patched = await member('PATCH', `${items}/${ok.body.id}`, { unitOfMeasureId: unitId, productId });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({
      unitOfMeasureId: unitId,
      familyUnitOfMeasureId: null,
      productId,
      familyProductId: null,
    });
    const both = await member('PATCH', `${items}/${ok.body.id}`, {
      unitOfMeasureId: unitId,
      familyUnitOfMeasureId: familyUnit,
    });
    expect(both.status).to.equal(400);
    expect(both.body.errors[0].path).to.equal('body.familyUnitOfMeasureId');
    const foreign = await bumps(app, family.familyId, () =>
      member('PATCH', `${items}/${ok.body.id}`, { familyProductId: foreignProduct }),
    );
    expect(foreign.result.status).to.equal(400);
    expect(foreign.result.body.code).to.equal('product_not_found');
    expect(foreign.delta).to.equal(0);
    const section = await member('PATCH', `${items}/${ok.body.id}`, { sectionId: otherStore.sections[0].id });
    expect(section.status).to.equal(400);
    expect(section.body.code).to.equal('section_not_found');
    const detail = (await member('GET', `/lists/${list.id}`)).body;
    expect(detail.groups[0].items[0]).to.deep.equal(patched.body);
  });

  it('edits an item (ItemUpdated; ItemSectionChanged on a section change; ItemChecked on checked)', async () => {
    const { app, family, member, store, list, items } = await setup();
    const item = (await member('POST', items, { name: 'Milk' })).body;
    const events = captureEvents(app, family.familyId);
    try {
      const { result, delta } = await bumps(app, family.familyId, () =>
        member('PATCH', `${items}/${item.id}`, { name: 'Oat milk', quantity: 2, quantityNote: 'barista' }),
      );
      expect(result.status).to.equal(200);
      expect(delta).to.equal(1);
      expect(result.body).to.include({
        id: item.id,
        name: 'Oat milk',
        quantity: 2,
        quantityNote: 'barista',
        sectionId: null,
      });
      expect(events.events.map((e) => e.type)).to.deep.equal(['ItemUpdated', 'Changed']);
      expect(events.of('ItemUpdated')[0]).to.deep.equal({ type: 'ItemUpdated', listId: list.id, item: result.body });
      events.clear();

      const dairy = store.sections[4].id;
      const moved = await member('PATCH', `${items}/${item.id}`, { sectionId: dairy });
      expect(moved.body.sectionId).to.equal(dairy);
      expect(events.events.map((e) => e.type)).to.deep.equal(['ItemSectionChanged', 'Changed']);
      expect(events.of('ItemSectionChanged')[0]).to.deep.equal({
        type: 'ItemSectionChanged',
        listId: list.id,
        itemId: item.id,
        sectionId: dairy,
        previousSectionId: null,
      });
      events.clear();

      const checked = await member('PATCH', `${items}/${item.id}`, { checked: true });
      expect(checked.body.checked).to.equal(true);
      expect(checked.body.checkedAt).to.be.a('string');
      expect(events.events.map((e) => e.type)).to.deep.equal(['ItemChecked', 'ListProgress', 'Changed']);
      expect(events.of('ItemChecked')[0]).to.deep.equal({
        type: 'ItemChecked',
        listId: list.id,
        itemId: item.id,
        checked: true,
      });
      expect(events.of('ListProgress')[0]).to.deep.equal({
        type: 'ListProgress',
        listId: list.id,
        itemCount: 1,
        checkedCount: 1,
      });
      events.clear();

      const cleared = await member('PATCH', `${items}/${item.id}`, { sectionId: null });
      expect(cleared.body.sectionId).to.equal(null);
      expect(events.of('ItemSectionChanged')[0]).to.include({ sectionId: null, previousSectionId: dairy });
    } finally {
      events.stop();
    }
    const bad = await member('PATCH', `${items}/${item.id}`, { name: '' });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].path).to.equal('body.name');
  });

  it('toggles checked (sets and clears checkedAt) with ItemChecked and ListProgress', async () => {
    const { app, family, member, list, items } = await setup();
    const item = (await member('POST', items, { name: 'Eggs' })).body;
    const events = captureEvents(app, family.familyId);
    try {
      const on = await bumps(app, family.familyId, () => member('POST', `${items}/${item.id}/toggle`));
      expect(on.result.status).to.equal(200);
      expect(on.delta).to.equal(1);
      expect(on.result.body.checked).to.equal(true);
      expect(on.result.body.checkedAt).to.be.a('string');
      const off = await member('POST', `${items}/${item.id}/toggle`);
      expect(off.body.checked).to.equal(false);
      expect(off.body.checkedAt).to.equal(null);
      expect(events.of('ItemChecked').map((e: any) => e.checked)).to.deep.equal([true, false]);
      expect(events.of('ListProgress').map((e: any) => e.checkedCount)).to.deep.equal([1, 0]);
      expect(events.of('ItemChecked')[0]).to.include({ listId: list.id, itemId: item.id });
    } finally {
      events.stop();
    }
  });

  it('follows the removal state table: remove, already removed, restore, already active', async () => {
    const { app, family, memberUser, member, list, items } = await setup();
    const item = (await member('POST', items, { name: 'Bread' })).body;
    await member('POST', items, { name: 'Butter' });
    const events = captureEvents(app, family.familyId);
    try {
      const removed = await bumps(app, family.familyId, () => member('DELETE', `${items}/${item.id}`));
      expect(removed.result.status).to.equal(200);
      expect(removed.delta).to.equal(1);
      expect(removed.result.body.removedAt).to.be.a('string');
      expect(removed.result.body.removedByUserId).to.equal(memberUser.userId);
      expect(events.events.map((e) => e.type)).to.deep.equal(['ItemRemoved', 'ListProgress', 'Changed']);
      expect(events.of('ItemRemoved')[0]).to.deep.equal({
        type: 'ItemRemoved',
        listId: list.id,
        itemId: item.id,
        removedByUserId: memberUser.userId,
      });
      expect(events.of('ListProgress')[0]).to.include({ itemCount: 1, checkedCount: 0 });
      events.clear();

      // Gone from summary, detail, toggle and PATCH; the row is kept.
      expect((await member('GET', '/lists')).body[0].itemCount).to.equal(1);
      const detail = (await member('GET', `/lists/${list.id}`)).body;
      expect(detail.groups.flatMap((g: any) => g.items).map((i: any) => i.name)).to.deep.equal(['Butter']);
      expect((await member('POST', `${items}/${item.id}/toggle`)).status).to.equal(404);
      expect((await member('PATCH', `${items}/${item.id}`, { name: 'x' })).status).to.equal(404);
      const row = await app.deps.db('shopping_list_items').where({ id: item.id }).first();
      expect(row.deleted).to.equal(false);
      expect(row.removed_at).to.not.equal(null);

      const again = await member('DELETE', `${items}/${item.id}`);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(removed.result.body);
      expect(events.events.map((e) => e.type)).to.deep.equal(['Changed']);
      events.clear();

      const restored = await bumps(app, family.familyId, () => member('POST', `${items}/${item.id}/restore`));
      expect(restored.result.status).to.equal(200);
      expect(restored.delta).to.equal(1);
      expect(restored.result.body).to.include({ removedAt: null, removedByUserId: null, name: 'Bread' });
      expect(events.events.map((e) => e.type)).to.deep.equal(['ItemRestored', 'ListProgress', 'Changed']);
      expect(events.of('ItemRestored')[0]).to.deep.equal({
        type: 'ItemRestored',
        listId: list.id,
        item: restored.result.body,
      });
      expect(events.of('ListProgress')[0]).to.include({ itemCount: 2 });
      events.clear();

      const active = await member('POST', `${items}/${item.id}/restore`);
      expect(active.status).to.equal(200);
      expect(active.body).to.deep.equal(restored.result.body);
      expect(events.events.map((e) => e.type)).to.deep.equal(['Changed']);
    } finally {
      events.stop();
    }
    expect((await member('GET', '/lists')).body[0].itemCount).to.equal(2);
    expect((await member('POST', `${items}/${item.id}/toggle`)).status).to.equal(200);
    for (const res of [
      await member('DELETE', `${items}/${uuid()}`),
      await member('POST', `${items}/${uuid()}/restore`),
      await member('PATCH', `${items}/${uuid()}`, { name: 'x' }),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 'not_found', detail: 'Item not found' });
    }
  });

  it('item ids: client-chosen, re-send 200, taken elsewhere 409; an item of another list is 404', async () => {
    const { app, member, items } = await setup();
    const id = uuid();
    const first = await member('POST', items, { id, name: 'Tea' });
    expect(first.status).to.equal(201);
    expect(first.body.id).to.equal(id);
    const again = await member('POST', items, { id, name: 'Tea' });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    const other = await makeFamily(app);
    const theirList = (await client(app, other.admin)('POST', '/lists', { name: 'T' })).body;
    const taken = await client(app, other.admin)('POST', `/lists/${theirList.id}/items`, { id, name: 'Tea' });
    expect(taken.status).to.equal(409);
    expect(taken.body).to.include({ code: 'id_conflict', detail: 'That id is already taken' });
    const second = (await member('POST', '/lists', { name: 'Second' })).body;
    expect((await member('PATCH', `/lists/${second.id}/items/${id}`, { name: 'x' })).status).to.equal(404);
  });

  it('an edit that changes nothing answers the item as it was, with no event', async () => {
    const { app, family, member, store, items } = await setup();
    const item = (
      await member('POST', items, { name: 'Same', sectionId: store.sections[1].id, quantity: 2.5, isApproximate: true })
    ).body;
    const events = captureEvents(app, family.familyId);
    try {
      for (const body of [
        {},
        { name: 'Same' },
        { sectionId: store.sections[1].id, checked: false },
        { quantity: 2.5, isApproximate: true },
      ]) {
        const res = await member('PATCH', `${items}/${item.id}`, body);
        expect(res.status).to.equal(200);
        expect(res.body, JSON.stringify(body)).to.deep.equal(item); // updatedAt too
      }
      // A value cleared that is not set (null and null are the same, not 0).
      const bare = (await member('POST', items, { name: 'Bare' })).body;
      events.clear();
      const res = await member('PATCH', `${items}/${bare.id}`, { quantity: null, quantityNote: null });
      expect(res.body).to.deep.equal(bare);
      // Nothing to tell: only the version's Changed frames, naming no collection.
      expect(events.events.filter((e) => e.type !== 'Changed')).to.deep.equal([]);
      expect(events.of('Changed').flatMap((e: any) => e.collections)).to.deep.equal([]);
    } finally {
      events.stop();
    }
  });

  it('on a list without a store, an item takes a product and stays without a section', async () => {
    const { app, family, member } = await setup();
    const loose = (await member('POST', '/lists', { name: 'No store' })).body;
    const productId = await seedGlobalProduct(app, 'Kiwis');
    const familyProductId = await seedFamilyProduct(app, family.familyId);
    const item = (await member('POST', `/lists/${loose.id}/items`, { name: 'Fruit' })).body;
    for (const body of [{ productId }, { familyProductId }]) {
      const res = await member('PATCH', `/lists/${loose.id}/items/${item.id}`, body);
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(res.body).to.include({ ...body, sectionId: null });
    }
  });

  it('an item added without a section is told as added, with no section change', async () => {
    const { app, family, member, items } = await setup();
    const events = captureEvents(app, family.familyId);
    try {
      const item = (await member('POST', items, { name: 'Loose' })).body;
      expect(item.sectionId).to.equal(null);
      expect(events.events.map((e) => e.type).filter((t) => t !== 'Changed')).to.deep.equal([
        'ItemAdded',
        'ListProgress',
      ]);
    } finally {
      events.stop();
    }
  });

  it('every item write bumps the family version exactly once', async () => {
    const { app, family, member, store, items } = await setup();
    const item = (await member('POST', items, { name: 'x' })).body;
    for (const [method, path, body] of [
      ['POST', items, { name: 'y' }],
      ['PATCH', `${items}/${item.id}`, { name: 'z', sectionId: store.sections[1].id, checked: true }],
      ['PATCH', `${items}/${item.id}`, {}],
      ['POST', `${items}/${item.id}/toggle`, undefined],
      ['DELETE', `${items}/${item.id}`, undefined],
      ['DELETE', `${items}/${item.id}`, undefined],
      ['POST', `${items}/${item.id}/restore`, undefined],
      ['POST', `${items}/${item.id}/restore`, undefined],
    ] as const) {
      const { result, delta } = await bumps(app, family.familyId, () => member(method, path, body));
      expect(result.status, `${method} ${path}`).to.be.oneOf([200, 201]);
      expect(delta, `${method} ${path}`).to.equal(1);
    }
  });
});
