// Replication push: conflicts on client fields, idempotent retries, REST rules through push,
// rejected rows reverted, isolation, live events, read-only collections.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';
import type { FamilyEvent } from '../../../server/events/bus.js';
import { SCHEMA_VERSION, pushResponseSchemas } from '@family-shopping/client/protocol';
import {
  familyVersion,
  itemDoc,
  listDoc,
  pull,
  pullAll,
  push,
  sectionDoc,
  storeDoc,
  uuid,
  type AnyDoc,
} from './helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

async function itemRows(app: App, familyId: string) {
  return app.deps.db('shopping_list_items').where({ family_id: familyId }).orderBy('id');
}

/** Collects the bus events of one family while `fn` runs. */
async function eventsDuring(app: App, familyId: string, fn: () => Promise<unknown>): Promise<FamilyEvent[]> {
  const seen: FamilyEvent[] = [];
  const off = app.deps.bus.subscribe((fid, events) => {
    if (fid === familyId) seen.push(...events);
  });
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    off();
  }
  return seen;
}

async function serverDoc(app: App, token: string, collection: string, id: string): Promise<AnyDoc | undefined> {
  return (await pullAll(app, token, collection as never, null, 1000)).docs.get(id);
}

describe('sync push', () => {
  let app: App;
  before(async () => {
    app = await testApp();
  });

  it('applies inserts, edits, removal and deletes through the feature rules and emits the REST live events plus Changed', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc({ name: 'Pushed list' });
    const item = itemDoc(list.id, { name: 'Eggs', quantity: 12 });
    let res = await push(app, t, 'lists', [{ newDocumentState: list }]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    const events = await eventsDuring(app, family.familyId, async () => {
      res = await push(app, t, 'items', [{ newDocumentState: item }]);
    });
    expect(res.status).to.equal(200);
    pushResponseSchemas.items.parse(res.body);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    const added = events.find((e) => e.type === 'ItemAdded');
    expect(added).to.deep.include({ listId: list.id });
    expect((added as any).item).to.include({ id: item.id, name: 'Eggs', quantity: 12, sectionId: null });
    expect(events.some((e) => e.type === 'ListProgress')).to.equal(true);
    const version = await familyVersion(app, family.familyId);
    expect(events.at(-1)).to.deep.include({ type: 'Changed', version, previous: version - 1, collections: ['items'] });

    const detail = await request(app, 'GET', `/api/lists/${list.id}`, { token: t });
    expect(detail.body.groups[0].items[0]).to.include({ id: item.id, name: 'Eggs' });

    // Edit + check, based on the server doc.
    const base = (await serverDoc(app, t, 'items', item.id))!;
    const edited = { ...base, name: 'Brown eggs', checked: true };
    const editEvents = await eventsDuring(app, family.familyId, async () => {
      res = await push(app, t, 'items', [{ assumedMasterState: base, newDocumentState: edited }]);
    });
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect(editEvents.map((e) => e.type)).to.include.members(['ItemUpdated', 'ItemChecked']);
    const after = (await serverDoc(app, t, 'items', item.id))!;
    expect(after).to.include({ name: 'Brown eggs', checked: true });
    expect(after.checkedAt).to.be.a('string');

    // Soft removal through push: removal bookkeeping as in REST, the client's time kept.
    const removedAt = new Date(Date.now() - 60_000).toISOString();
    const removeEvents = await eventsDuring(app, family.familyId, async () => {
      res = await push(app, t, 'items', [{ assumedMasterState: after, newDocumentState: { ...after, removedAt } }]);
    });
    expect(res.body.rejected).to.deep.equal([]);
    expect(removeEvents.find((e) => e.type === 'ItemRemoved')).to.deep.include({
      itemId: item.id,
      removedByUserId: family.admin.userId,
    });
    const removed = (await serverDoc(app, t, 'items', item.id))!;
    expect(removed.removedByUserId).to.equal(family.admin.userId);
    expect(new Date(removed.removedAt).getTime()).to.equal(new Date(removedAt).getTime());

    // Restore by a client that saw the removal.
    const restoreEvents = await eventsDuring(app, family.familyId, async () => {
      res = await push(app, t, 'items', [
        { assumedMasterState: removed, newDocumentState: { ...removed, removedAt: null } },
      ]);
    });
    expect(restoreEvents.some((e) => e.type === 'ItemRestored')).to.equal(true);
    const restored = (await serverDoc(app, t, 'items', item.id))!;
    expect(restored).to.include({ removedAt: null, removedByUserId: null });

    // Hard delete of the list tombstones it and its items.
    const serverList = (await serverDoc(app, t, 'lists', list.id))!;
    const delEvents = await eventsDuring(app, family.familyId, async () => {
      res = await push(app, t, 'lists', [
        { assumedMasterState: serverList, newDocumentState: { ...serverList, _deleted: true } },
      ]);
    });
    expect(delEvents.some((e) => e.type === 'ListDeleted')).to.equal(true);
    expect((await serverDoc(app, t, 'items', item.id))!._deleted).to.equal(true);
  });

  it('is idempotent: the same push twice changes nothing more, and a retried push whose response was lost is no conflict', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    await push(app, t, 'lists', [{ newDocumentState: list }]);
    const rows = [itemDoc(list.id, { name: 'A' }), itemDoc(list.id, { name: 'B', quantity: 2.5 })].map((d) => ({
      newDocumentState: d,
    }));
    const first = await push(app, t, 'items', rows);
    expect(first.body).to.deep.equal({ conflicts: [], rejected: [] });
    const rowsBefore = await itemRows(app, family.familyId);
    const v1 = await familyVersion(app, family.familyId);
    let second!: Awaited<ReturnType<typeof push>>;
    const secondEvents = await eventsDuring(app, family.familyId, async () => {
      second = await push(app, t, 'items', rows);
    });
    expect(second.body).to.deep.equal({ conflicts: [], rejected: [] });
    // Nothing more: no version taken, no event (not even the Changed nudge) for the devices.
    expect(await familyVersion(app, family.familyId)).to.equal(v1);
    expect(secondEvents).to.deep.equal([]);
    expect(await itemRows(app, family.familyId)).to.deep.equal(rowsBefore);

    // An edit whose response was lost: the client retries with the same assumed state.
    const base = (await serverDoc(app, t, 'items', rows[0]!.newDocumentState.id))!;
    const edit = [{ assumedMasterState: base, newDocumentState: { ...base, name: 'A (2)', quantity: 3 } }];
    expect((await push(app, t, 'items', edit)).body).to.deep.equal({ conflicts: [], rejected: [] });
    const afterEdit = await itemRows(app, family.familyId);
    const v2 = await familyVersion(app, family.familyId);
    const retry = await push(app, t, 'items', edit);
    expect(retry.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect(await itemRows(app, family.familyId)).to.deep.equal(afterEdit);
    expect(await familyVersion(app, family.familyId)).to.equal(v2);

    // A push whose every row is a conflict or refused changes nothing either.
    const stale = [{ assumedMasterState: base, newDocumentState: { ...base, name: 'A (stale)' } }];
    const refusedRow = [{ newDocumentState: itemDoc(list.id, { name: 'Bad unit', unitOfMeasureId: uuid() }) }];
    const quiet = await eventsDuring(app, family.familyId, async () => {
      expect((await push(app, t, 'items', stale)).body.conflicts).to.have.length(1);
      expect((await push(app, t, 'items', refusedRow)).body.rejected).to.have.length(1);
    });
    expect(quiet).to.deep.equal([]);
    expect(await familyVersion(app, family.familyId)).to.equal(v2);
  });

  it('applies rows naming the same id in order: a later row sees what an earlier one did', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    await push(app, t, 'lists', [{ newDocumentState: list }]);
    const item = itemDoc(list.id, { name: 'Tea' });
    const renamed = { ...item, name: 'Green tea', quantity: 2 };
    const res = await push(app, t, 'items', [
      { newDocumentState: item },
      { assumedMasterState: item, newDocumentState: renamed },
      { assumedMasterState: item, newDocumentState: { ...item, name: 'Black tea' } },
    ]);
    // The third row was based on the first state, which the second row already changed.
    expect(res.body.rejected).to.deep.equal([]);
    expect(res.body.conflicts.map((d) => [d.id, d.name, d.quantity])).to.deep.equal([[item.id, 'Green tea', 2]]);
    expect(await serverDoc(app, t, 'items', item.id)).to.include({ name: 'Green tea', quantity: 2 });
  });

  it('returns the server doc as a conflict when the assumed state differs on client fields (never on updatedAt)', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    await push(app, t, 'lists', [{ newDocumentState: list }]);
    const item = itemDoc(list.id, { name: 'Bread' });
    await push(app, t, 'items', [{ newDocumentState: item }]);
    const server = (await serverDoc(app, t, 'items', item.id))!;
    // Same client fields, other server-stamped fields: not a conflict.
    const stale = { ...server, updatedAt: '2000-01-01T00:00:00.000Z', checkedAt: null };
    let res = await push(app, t, 'items', [
      { assumedMasterState: stale, newDocumentState: { ...server, name: 'Rye bread' } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    const now = (await serverDoc(app, t, 'items', item.id))!;
    // Based on an older name: conflict with the current doc, nothing applied.
    res = await push(app, t, 'items', [{ assumedMasterState: server, newDocumentState: { ...server, quantity: 2 } }]);
    expect(res.body.rejected).to.deep.equal([]);
    expect(res.body.conflicts).to.deep.equal([now]);
    // An insert of an existing id is a conflict too.
    res = await push(app, t, 'items', [{ newDocumentState: { ...item, name: 'Other' } }]);
    expect(res.body.conflicts).to.deep.equal([now]);
    expect((await serverDoc(app, t, 'items', item.id))!.quantity).to.equal(null);
  });

  it('applies REST rules: a foreign store is rejected store_not_found and reverted; a member cannot change sections', async () => {
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    const foreignStore = (
      await request(app, 'POST', '/api/stores', { token: b.admin.token, body: { name: 'B store' } })
    ).body;
    const list = listDoc({ storeId: foreignStore.id });
    let res = await push(app, a.admin.token, 'lists', [{ newDocumentState: list }]);
    expect(res.body.rejected).to.deep.equal([
      { id: list.id, code: 'store_not_found', message: res.body.rejected[0]!.message },
    ]);
    expect(res.body.conflicts).to.deep.equal([{ ...list, _deleted: true }]);
    // An update of a real list to a foreign store reverts to the server state.
    const own = listDoc();
    await push(app, a.admin.token, 'lists', [{ newDocumentState: own }]);
    const server = (await serverDoc(app, a.admin.token, 'lists', own.id))!;
    res = await push(app, a.admin.token, 'lists', [
      { assumedMasterState: server, newDocumentState: { ...server, storeId: foreignStore.id } },
    ]);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal(['store_not_found']);
    expect(res.body.conflicts).to.deep.equal([server]);

    const member = await makeMember(app, a);
    const store = (await request(app, 'POST', '/api/stores', { token: a.admin.token, body: { name: 'A store' } })).body;
    const sections = (await pullAll(app, member.token, 'sections')).docs;
    const first = [...sections.values()].find((s) => s.storeId === store.id && s.position === 0)!;
    res = await push(app, member.token, 'sections', [
      { assumedMasterState: first, newDocumentState: { ...first, name: 'Fruit & veg' } },
    ]);
    expect(res.body.rejected).to.deep.equal([
      { id: first.id, code: 'forbidden', message: 'Only a family admin can change store sections' },
    ]);
    expect(res.body.conflicts).to.deep.equal([first]);
    const added = sectionDoc(store.id);
    res = await push(app, member.token, 'sections', [{ newDocumentState: added }]);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal(['forbidden']);
    expect(res.body.conflicts).to.deep.equal([{ ...added, _deleted: true }]);
    // The admin may.
    res = await push(app, a.admin.token, 'sections', [
      { assumedMasterState: first, newDocumentState: { ...first, name: 'Fruit & veg' } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
  });

  it('applies section memory to a pushed item and remembers a pushed placement', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const product = (await request(app, 'POST', '/api/products', { token: t, body: { name: `Basil ${uuid()}` } })).body;
    const store = (await request(app, 'POST', '/api/stores', { token: t, body: { name: 'Market' } })).body;
    const list = listDoc({ storeId: store.id });
    await push(app, t, 'lists', [{ newDocumentState: list }]);
    const herbs = store.sections[0].id;
    const placed = itemDoc(list.id, { name: 'Basil', familyProductId: product.id, sectionId: herbs });
    expect((await push(app, t, 'items', [{ newDocumentState: placed }])).body.rejected).to.deep.equal([]);
    const memory = [...(await pullAll(app, t, 'sectionMemory')).docs.values()];
    expect(memory.map((m) => [m.storeId, m.familyProductId, m.sectionId])).to.deep.equal([
      [store.id, product.id, herbs],
    ]);
    const again = itemDoc(list.id, { name: 'Basil again', familyProductId: product.id });
    const events = await eventsDuring(app, family.familyId, async () => {
      await push(app, t, 'items', [{ newDocumentState: again }]);
    });
    const sectionEvent: FamilyEvent | undefined = events.find((e) => e.type === 'ItemAdded');
    expect((sectionEvent as any).item.sectionId).to.equal(herbs);
    expect((await serverDoc(app, t, 'items', again.id))!.sectionId).to.equal(herbs);
  });

  it('rolls back a failing row alone: the others commit, its events are dropped', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    await push(app, t, 'lists', [{ newDocumentState: list }]);
    const good1 = itemDoc(list.id, { name: 'ok 1' });
    const bad = itemDoc(list.id, { name: 'bad', unitOfMeasureId: uuid() });
    const invalid = { ...itemDoc(list.id), name: '' };
    const good2 = itemDoc(list.id, { name: 'ok 2' });
    let res: Awaited<ReturnType<typeof push>> | undefined;
    const events = await eventsDuring(app, family.familyId, async () => {
      res = await push(
        app,
        t,
        'items',
        [good1, bad, invalid, good2].map((d) => ({ newDocumentState: d })),
      );
    });
    expect(res!.body.rejected.map((r) => [r.id, r.code])).to.deep.equal([
      [bad.id, 'unit_not_found'],
      [invalid.id, 'validation_failed'],
    ]);
    expect(res!.body.conflicts).to.deep.equal([
      { ...bad, _deleted: true },
      { ...invalid, _deleted: true },
    ]);
    const added = events.filter((e) => e.type === 'ItemAdded').map((e: any) => e.item.name);
    expect(added).to.deep.equal(['ok 1', 'ok 2']);
    expect(events.filter((e) => e.type === 'ListProgress')).to.deep.equal([
      { type: 'ListProgress', listId: list.id, itemCount: 2, checkedCount: 0 },
    ]);
    expect(events.filter((e) => e.type === 'Changed')).to.have.length(1);
    const names = (await itemRows(app, family.familyId)).map((r: any) => r.name).sort();
    expect(names).to.deep.equal(['ok 1', 'ok 2']);
  });

  it('rejects a row whose text holds the NUL character (the database cannot store it) as validation_failed; the others commit', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    const bad = listDoc({ name: 'Week\u0000ly' });
    const res = await push(app, t, 'lists', [{ newDocumentState: list }, { newDocumentState: bad }]);
    expect(res.status).to.equal(200);
    expect(res.body.rejected.map((r) => [r.id, r.code])).to.deep.equal([[bad.id, 'validation_failed']]);
    expect(res.body.rejected[0].message).to.match(/newDocumentState\.name/);
    expect(res.body.conflicts).to.deep.equal([{ ...bad, _deleted: true }]);
    const ids = (await app.deps.db('shopping_lists').where({ family_id: family.familyId })).map((r: any) => r.id);
    expect(ids).to.deep.equal([list.id]);
  });

  it('keeps a pushed removal time exactly, early years included (the same on every database)', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    await push(app, t, 'lists', [{ newDocumentState: list }]);
    const times = [
      '0001-01-01T00:00:00.000Z',
      '0049-06-30T12:34:56.789Z',
      '0099-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
    ];
    const items = times.map((removedAt) => itemDoc(list.id, { removedAt }));
    const res = await push(
      app,
      t,
      'items',
      items.map((d) => ({ newDocumentState: d })),
    );
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    const pulled = (await pullAll(app, t, 'items')).docs;
    expect(items.map((d) => pulled.get(d.id)?.removedAt)).to.deep.equal(times);
  });

  it('keeps a pushed archive time: a list created archived, and re-archived at another time by a second device', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const T1 = '2026-03-01T09:00:00.000Z';
    const T2 = '2026-03-02T18:30:00.000Z';
    const list = listDoc({ archivedAt: T1 });
    expect((await push(app, t, 'lists', [{ newDocumentState: list }])).body).to.deep.equal({
      conflicts: [],
      rejected: [],
    });
    const server = (await serverDoc(app, t, 'lists', list.id))!;
    expect(server.archivedAt).to.equal(T1);
    // Another device archived it offline too, at T2; after its conflict it pushes its time again.
    const res = await push(app, t, 'lists', [
      { assumedMasterState: server, newDocumentState: { ...server, archivedAt: T2 } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect((await serverDoc(app, t, 'lists', list.id))!.archivedAt).to.equal(T2);
    const summaries = (await request(app, 'GET', '/api/lists?archived=true', { token: t })).body as any[];
    expect(summaries.find((l) => l.id === list.id)).to.include({ archivedAt: T2 });
  });

  it('rejects a time the database cannot hold (year 0, a far offset) as validation_failed; the others commit', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const good = listDoc({ name: 'Fine' });
    const year0 = listDoc({ name: 'Year zero', archivedAt: '0000-01-01T00:00:00Z' });
    const res = await push(app, t, 'lists', [{ newDocumentState: year0 }, { newDocumentState: good }]);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.rejected.map((r: any) => [r.id, r.code])).to.deep.equal([[year0.id, 'validation_failed']]);
    expect(res.body.conflicts.map((d: any) => [d.id, d._deleted])).to.deep.equal([[year0.id, true]]);
    expect((await serverDoc(app, t, 'lists', good.id))?.name).to.equal('Fine');
    expect(await serverDoc(app, t, 'lists', year0.id)).to.equal(undefined);
    const item = itemDoc(good.id, { name: 'Late', removedAt: '9999-12-31T23:59:59-14:00' });
    const r2 = await push(app, t, 'items', [{ newDocumentState: item }]);
    expect(r2.status, r2.text).to.equal(200);
    expect(r2.body.rejected.map((r: any) => r.code)).to.deep.equal(['validation_failed']);
  });

  it('rejects rows naming another family’s data (ids, list, store, unit, product) and changes nothing', async () => {
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    const ta = a.admin.token;
    const tb = b.admin.token;
    const bList = listDoc();
    await push(app, tb, 'lists', [{ newDocumentState: bList }]);
    const bItem = itemDoc(bList.id, { name: 'B item' });
    await push(app, tb, 'items', [{ newDocumentState: bItem }]);
    const bStore = (await request(app, 'POST', '/api/stores', { token: tb, body: { name: 'B store' } })).body;
    const bUnit = (
      await request(app, 'POST', '/api/units', {
        token: tb,
        body: { name: 'B unit', abbreviation: `b${uuid().slice(0, 6)}`, category: 'Count' },
      })
    ).body;
    const bProduct = (await request(app, 'POST', '/api/products', { token: tb, body: { name: `B product ${uuid()}` } }))
      .body;
    const bVersion = await familyVersion(app, b.familyId);
    const bItems = await itemRows(app, b.familyId);

    const aList = listDoc();
    await push(app, ta, 'lists', [{ newDocumentState: aList }]);
    const bServerItem = (await serverDoc(app, tb, 'items', bItem.id))!;
    const rows = [
      { newDocumentState: { ...bItem, name: 'hijack' } },
      { assumedMasterState: bServerItem, newDocumentState: { ...bServerItem, name: 'hijack' } },
      { assumedMasterState: bServerItem, newDocumentState: { ...bServerItem, _deleted: true } },
      { newDocumentState: itemDoc(bList.id) },
      { newDocumentState: itemDoc(aList.id, { familyUnitOfMeasureId: bUnit.id }) },
      { newDocumentState: itemDoc(aList.id, { familyProductId: bProduct.id }) },
    ];
    const res = await push(app, ta, 'items', rows);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal([
      'not_found',
      'not_found',
      'not_found',
      'list_not_found',
      'unit_not_found',
      'product_not_found',
    ]);
    // Each is reverted with a tombstone of exactly what the client sent: nothing of B's leaks.
    expect(res.body.conflicts).to.deep.equal(rows.map((r) => ({ ...r.newDocumentState, _deleted: true })));
    const listRes = await push(app, ta, 'lists', [
      { newDocumentState: listDoc({ storeId: bStore.id }) },
      { newDocumentState: { ...bList, name: 'mine now' } },
    ]);
    expect(listRes.body.rejected.map((r) => r.code)).to.deep.equal(['store_not_found', 'not_found']);
    const productRes = await push(app, ta, 'products', [
      {
        newDocumentState: {
          id: bProduct.id,
          kind: 'family',
          name: 'mine',
          unitCategoryFlags: [],
          overridden: false,
          createdAt: bProduct.createdAt,
          updatedAt: bProduct.updatedAt,
          _deleted: false,
        },
      },
    ]);
    expect(productRes.body.rejected.map((r) => r.code)).to.deep.equal(['not_found']);
    const unitRes = await push(app, ta, 'units', [
      {
        newDocumentState: {
          id: bUnit.id,
          kind: 'family',
          code: null,
          name: 'mine',
          abbreviation: 'zz',
          category: 'Count',
          createdAt: bUnit.createdAt,
          updatedAt: bUnit.updatedAt,
          _deleted: false,
        },
      },
    ]);
    expect(unitRes.body.rejected.map((r) => r.code)).to.deep.equal(['not_found']);
    expect(await familyVersion(app, b.familyId)).to.equal(bVersion);
    expect(await itemRows(app, b.familyId)).to.deep.equal(bItems);
  });

  it('keeps sectionMemory and global units read-only; a global product doc sets and clears the family override; family catalog rows are writable', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const units = (await pullAll(app, t, 'units', null, 1000)).docs;
    const each = [...units.values()].find((u) => u.code === 'each')!;
    let res = await push(app, t, 'units', [{ assumedMasterState: each, newDocumentState: { ...each, name: 'Piece' } }]);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal(['read_only']);
    expect(res.body.conflicts).to.deep.equal([each]);
    const memory = {
      id: uuid(),
      storeId: uuid(),
      productId: uuid(),
      familyProductId: null,
      sectionId: uuid(),
      updatedAt: new Date().toISOString(),
      _deleted: false,
    };
    res = await push(app, t, 'sectionMemory', [{ newDocumentState: memory }]);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal(['read_only']);

    const unit = {
      id: uuid(),
      kind: 'family',
      code: null,
      name: 'Tray',
      abbreviation: `tr${uuid().slice(0, 5)}`,
      category: 'Count',
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      _deleted: false,
    };
    res = await push(app, t, 'units', [{ newDocumentState: unit }]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect((await request(app, 'GET', '/api/units', { token: t })).body.some((u: any) => u.id === unit.id)).to.equal(
      true,
    );

    const gid = await insertGlobalProductRow(app, { name: 'Sugar' });
    const products = (await pullAll(app, t, 'products', null, 1000)).docs;
    const sugar = products.get(gid)!;
    res = await push(app, t, 'products', [
      { assumedMasterState: sugar, newDocumentState: { ...sugar, name: 'Cane sugar' } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    const overridden = (await serverDoc(app, t, 'products', gid))!;
    expect(overridden).to.include({ name: 'Cane sugar', overridden: true, kind: 'global', _deleted: false });
    res = await push(app, t, 'products', [
      { assumedMasterState: overridden, newDocumentState: { ...overridden, name: 'Sugar' } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect(await serverDoc(app, t, 'products', gid)).to.include({ name: 'Sugar', overridden: false });
    res = await push(app, t, 'products', [
      { assumedMasterState: overridden, newDocumentState: { ...sugar, _deleted: true } },
    ]);
    expect(res.body.rejected.length + res.body.conflicts.length).to.be.greaterThan(0);
    const own = {
      id: uuid(),
      kind: 'family',
      name: `Own ${uuid()}`,
      englishName: null,
      unitCategoryFlags: ['Weight'],
      category: null,
      overridden: false,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      _deleted: false,
    };
    res = await push(app, t, 'products', [{ newDocumentState: own }]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect(await serverDoc(app, t, 'products', own.id)).to.include({ kind: 'family', name: own.name });
  });

  it('an item deleted by push no longer counts on its list, checked or not', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const api = (method: string, path: string, body?: unknown) =>
      request(app, method, `/api${path}`, { token: t, body });
    const list = (await api('POST', '/lists', { name: 'Counted' })).body;
    const names = ['Keep', 'Drop', 'Checked drop'];
    const ids: string[] = [];
    for (const name of names) ids.push((await api('POST', `/lists/${list.id}/items`, { name })).body.id);
    await api('POST', `/lists/${list.id}/items/${ids[2]}/toggle`);
    const docs = (await pullAll(app, t, 'items')).docs;
    const res = await push(
      app,
      t,
      'items',
      [ids[1]!, ids[2]!].map((id) => ({
        assumedMasterState: docs.get(id)!,
        newDocumentState: { ...docs.get(id)!, _deleted: true },
      })),
    );
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    const summary = (await api('GET', '/lists')).body.find((l: any) => l.id === list.id);
    expect(summary).to.include({ itemCount: 1, checkedCount: 0 });
    const detail = (await api('GET', `/lists/${list.id}`)).body;
    expect(detail.groups.flatMap((g: any) => g.items.map((i: any) => i.name))).to.deep.equal(['Keep']);
  });

  it('keeps a pushed item’s creation time from the device when it is earlier; a later one takes the write’s', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc({ name: 'Offline adds' });
    expect((await push(app, t, 'lists', [{ newDocumentState: list }])).body.rejected).to.deep.equal([]);
    const earlier = '2026-01-02T03:04:05.678Z';
    const later = new Date(Date.now() + 3_600_000).toISOString();
    // One row (row by row) and two rows in one push (the bulk path).
    const pushes = [
      [itemDoc(list.id, { name: 'One', createdAt: earlier })],
      [itemDoc(list.id, { name: 'Two', createdAt: earlier }), itemDoc(list.id, { name: 'Later', createdAt: later })],
    ];
    for (const docs of pushes) {
      const res = await push(
        app,
        t,
        'items',
        docs.map((d) => ({ newDocumentState: d })),
      );
      expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    }
    const before = Date.now();
    const items = (await request(app, 'GET', `/api/lists/${list.id}`, { token: t })).body.groups[0].items;
    const created = Object.fromEntries(items.map((i: any) => [i.name, i.createdAt]));
    expect(created.One).to.equal(earlier);
    expect(created.Two).to.equal(earlier);
    expect(Date.parse(created.Later)).to.be.below(before + 1); // the write's time, not the device's
  });

  it('creates a pushed store with the default sections as REST does, for a member too; an admin adds sections by push', async () => {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const t = family.admin.token;
    const store = storeDoc();
    expect((await push(app, member.token, 'stores', [{ newDocumentState: store }])).body).to.deep.equal({
      conflicts: [],
      rejected: [],
    });
    const defaults = (await request(app, 'GET', `/api/stores/${store.id}/sections`, { token: t })).body;
    const rest = (await request(app, 'POST', '/api/stores', { token: member.token, body: { name: 'Made by REST' } }))
      .body;
    expect(defaults.map((s: any) => s.name)).to.deep.equal(rest.sections.map((s: any) => s.name));
    expect(defaults).to.have.length(11);
    const pulled = [...(await pullAll(app, member.token, 'sections')).docs.values()].filter(
      (d) => d.storeId === store.id,
    );
    expect(pulled.map((d) => d.id).sort()).to.deep.equal(defaults.map((s: any) => s.id).sort());
    const extra = sectionDoc(store.id, { position: 11 });
    expect((await push(app, t, 'sections', [{ newDocumentState: extra }])).body.rejected).to.deep.equal([]);
    const sections = (await request(app, 'GET', `/api/stores/${store.id}/sections`, { token: t })).body;
    expect(sections.map((s: any) => s.name)).to.deep.equal([...defaults.map((s: any) => s.name), 'Aisle 9']);
    const tooMany = Array.from({ length: 501 }, () => ({ newDocumentState: storeDoc() }));
    const big = await push(app, t, 'stores', tooMany);
    expect([big.status, big.body.code]).to.deep.equal([400, 'validation_failed']);
    expect(
      (
        await request(app, 'POST', `/api/sync/stores/push?schema=${SCHEMA_VERSION}`, {
          token: t,
          body: { not: 'an array' },
        })
      ).status,
    ).to.equal(400);
    expect((await push(app, t, 'nope', [])).status).to.equal(404);
    expect((await pull(app, t, 'stores')).status).to.equal(200);
  });
});
