// GET /api/lists/{id} is built by the database (lists/queries.ts `listDetailJson`), the SQL twin
// of the protocol's `listDetail`. Both must give the same bytes: the same shape, key order, group
// and item order, time format and numbers, on the hard cases (ties on position and time down to
// the microsecond, sections that are not the store's, early years, escapes, decimals).
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { insertVersioned, updateVersioned } from '../../helpers/versioned.js';
import { newId } from '../../../server/db/ids.js';
import { takeFamilyVersion } from '../../../server/db/family-write.js';
import { itemRows, listDetailJson, listRow } from '../../../server/lists/queries.js';
import { toItem, toList } from '../../../server/lists/records.js';
import { sectionRows } from '../../../server/stores/queries.js';
import { toSection } from '../../../server/stores/records.js';
import { familyDoc } from '../../../server/sync/docs.js';
import { itemDocsJsonAfter } from '../../../server/sync/queries.js';
import { listDetail, listDetailSchema } from '@family-shopping/client/protocol';

type App = Awaited<ReturnType<typeof testApp>>;

/** The detail as the protocol's pure function builds it from the rows. */
async function reference(app: App, familyId: string, listId: string): Promise<string> {
  const db = app.deps.db;
  const list = (await listRow(db, familyId, listId))!;
  const items = (await itemRows(db, familyId, listId)).map(toItem);
  const sections = list.store_id ? (await sectionRows(db, familyId, [String(list.store_id)])).map(toSection) : [];
  return JSON.stringify(listDetail(toList(list), sections, items));
}

async function expectSame(app: App, familyId: string, token: string, listId: string) {
  const sql = await listDetailJson(app.deps.db, familyId, listId);
  const expected = await reference(app, familyId, listId);
  expect(sql).to.equal(expected);
  // PGlite: the same statement as a database function (what the service calls there).
  if (app.deps.statementFunctions)
    expect(await listDetailJson(app.deps.db, familyId, listId, { viaFunction: true })).to.equal(expected);
  const res = await request(app, 'GET', `/api/lists/${listId}`, { token });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  expect(res.text).to.equal(expected);
  listDetailSchema.parse(res.body);
  return JSON.parse(expected) as {
    groups: Array<{ sectionId: string | null; name: string; items: Array<{ id: string }> }>;
  };
}

/** Every item row of the family (removed and deleted ones too) keeps `toItem`'s bytes in its
 *  stored record JSON (the column both the detail and the pull page read), and a pull page of
 *  them is the docs `familyDoc` makes, in order. */
async function expectStoredRecords(app: App, familyId: string): Promise<number> {
  const db = app.deps.db;
  const rows = (await db('shopping_list_items').where({ family_id: familyId }).orderBy(['version', 'id'])) as Array<
    Record<string, unknown>
  >;
  for (const row of rows) expect(`${String(row.record_json_open)}}`).to.equal(JSON.stringify(toItem(row)));
  const page = await itemDocsJsonAfter(db, familyId, null, rows.length + 1);
  expect(page.json).to.equal(JSON.stringify(rows.map((r) => familyDoc('items', r))));
  return rows.length;
}

describe('list detail built by the database agrees with the protocol’s listDetail', () => {
  let app: App;
  before(async () => {
    app = await testApp();
  });

  it('gives the same bytes on ties, foreign and deleted sections, early years, escapes and decimals', async () => {
    const family = await makeFamily(app);
    const f = family.familyId;
    const t = family.admin.token;
    const api = async (method: string, path: string, body?: unknown) =>
      (await request(app, method, `/api${path}`, { token: t, body })).body;
    const store = await api('POST', '/stores', { name: 'Main' });
    const other = await api('POST', '/stores', { name: 'Other' });
    const list = await api('POST', '/lists', { name: 'Weekly "big" shop \\ ✓ 🍞', storeId: store.id });
    await api('POST', `/lists`, { name: 'Another list', storeId: store.id });

    // Sections tied on position, and on createdAt down to the millisecond (not the microsecond).
    const tied = [newId(), newId(), newId()];
    await insertVersioned(app, f, 'store_sections', [
      {
        id: tied[0],
        store_id: store.id,
        name: 'Tied A',
        position: 3,
        created_at: new Date('2026-01-01T00:00:00.123Z'),
      },
      {
        id: tied[1],
        store_id: store.id,
        name: 'Tied B',
        position: 3,
        created_at: new Date('2026-01-01T00:00:00.123Z'),
      },
    ]);
    await app.deps.db.transaction(async (trx) => {
      // A microsecond the driver's Date cannot hold: same millisecond as the two above.
      const version = await takeFamilyVersion(trx, f);
      await trx.raw(
        `INSERT INTO store_sections (id, store_id, name, position, family_id, version, created_at, updated_at)
         VALUES (?, ?, 'Tied C', 3, ?, ?, '2026-01-01T00:00:00.123987Z', now())`,
        [tied[2], store.id, f, version],
      );
    });
    const gone = (store.sections as Array<{ id: string; name: string }>).find((s) => s.name === 'Frozen')!.id;
    const sectionIds = [...(store.sections as Array<{ id: string }>).map((s) => s.id), ...tied];

    const items: Array<Record<string, unknown>> = [];
    const add = (over: Record<string, unknown>) => {
      const row = {
        id: newId(),
        list_id: list.id,
        name: `Item ${items.length}`,
        section_id: null,
        checked: false,
        checked_at: null,
        quantity: null,
        is_approximate: false,
        quantity_note: null,
        removed_at: null,
        deleted: false,
        created_at: new Date(Date.UTC(2026, 0, 3)),
        ...over,
      };
      items.push(row);
      return row;
    };
    const quantities = [null, '0', '0.001', '0.3', '1.5', '100', '999999999.999', '2.250'];
    for (let k = 0; k < 40; k++) {
      add({
        section_id: k % 9 === 8 ? null : sectionIds[k % sectionIds.length],
        checked: k % 3 === 0,
        quantity: quantities[k % quantities.length],
        is_approximate: k % 4 === 0,
        quantity_note: k % 5 === 0 ? `note "${k}"\t\u0001 é` : null,
        // Pairs share a millisecond; a few share it to the microsecond.
        created_at: new Date(Date.UTC(2026, 0, 2, 0, 0, 0, Math.floor(k / 2))),
      });
    }
    add({ name: 'In the other store’s section', section_id: other.sections[0].id });
    add({ name: 'In a section deleted below', section_id: gone });
    add({ name: 'Removed', section_id: sectionIds[0], removed_at: new Date('0001-01-01T00:00:00.000Z') });
    add({
      name: 'Checked long ago',
      section_id: sectionIds[1],
      checked: true,
      checked_at: new Date('0005-03-01T12:34:56.789Z'),
    });
    add({ name: 'Deleted', section_id: sectionIds[0], deleted: true });
    await insertVersioned(app, f, 'shopping_list_items', items);
    // The database's own clock (microseconds), as a row that omits created_at gets it.
    await insertVersioned(app, f, 'shopping_list_items', {
      id: newId(),
      list_id: list.id,
      name: 'Default time',
      section_id: sectionIds[2],
    });
    await insertVersioned(app, f, 'shopping_list_items', {
      id: newId(),
      list_id: list.id,
      name: 'Default time too',
      section_id: sectionIds[2],
    });
    // A section tombstoned behind the item that still names it (no endpoint leaves it so).
    await updateVersioned(app, f, 'store_sections', { id: gone }, { deleted: true });
    await updateVersioned(
      app,
      f,
      'shopping_lists',
      { id: list.id },
      { archived_at: new Date('0099-12-31T23:59:59.999Z') },
    );

    const detail = await expectSame(app, f, t, list.id);
    const all = detail.groups.flatMap((g) => g.items.map((i) => i.id));
    expect(all).to.have.length(items.length - 2 + 2);
    const last = detail.groups[detail.groups.length - 1]!;
    expect([last.sectionId, last.name]).to.deep.equal([null, 'Uncategorized']);
    // Position 3 is shared by Deli and the three tied sections, which are older than Deli and
    // tie on createdAt to the millisecond: id order decides among them.
    const third = detail.groups.slice(3, 6);
    expect(third.map((g) => g.name).sort()).to.deep.equal(['Tied A', 'Tied B', 'Tied C']);
    expect(third.map((g) => g.sectionId)).to.deep.equal([...tied].sort());
    expect(await expectStoredRecords(app, f)).to.equal(items.length + 2);
  });

  it('keeps each item’s stored record JSON through every kind of write', async () => {
    const family = await makeFamily(app);
    const f = family.familyId;
    const t = family.admin.token;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await request(app, method, `/api${path}`, { token: t, body });
      expect(res.status, `${method} ${path}`).to.be.below(300);
      return res.body;
    };
    const store = await api('POST', '/stores', { name: 'Main' });
    const list = await api('POST', '/lists', { name: 'Week', storeId: store.id });
    const product = await api('POST', '/products', { name: 'Oat "milk" 🥛' });
    const a = await api('POST', `/lists/${list.id}/items`, {
      name: 'Apples "green" \\ ✓',
      quantity: 2.5,
      quantityNote: 'ripe\t"ones"',
      sectionId: store.sections[1].id,
    });
    const b = await api('POST', `/lists/${list.id}/items`, { familyProductId: product.id });
    const c = await api('POST', `/lists/${list.id}/items`, { name: 'Bread', sectionId: store.sections[2].id });
    const other = await api('POST', '/lists', { name: 'Deleted below' });
    await api('POST', `/lists/${other.id}/items`, { name: 'Tombstoned with its list' });
    expect(await expectStoredRecords(app, f)).to.equal(4);
    await api('PATCH', `/lists/${list.id}/items/${a.id}`, {
      name: 'Green apples',
      quantity: 0.001,
      isApproximate: true,
    });
    await api('POST', `/lists/${list.id}/items/${a.id}/toggle`);
    await api('DELETE', `/lists/${list.id}/items/${c.id}`);
    await api('DELETE', `/lists/${other.id}`);
    // Cascades written by the server: a section deleted under an item, a family product deleted.
    await api('DELETE', `/stores/${store.id}/sections/${store.sections[2].id}`);
    await api('DELETE', `/products/${product.id}`);
    expect(await expectStoredRecords(app, f)).to.equal(4);
    await api('POST', `/lists/${list.id}/items/${c.id}/restore`);
    await api('POST', `/lists/${list.id}/items/${a.id}/toggle`);
    expect(await expectStoredRecords(app, f)).to.equal(4);
    void b;
  });

  it('gives the same bytes for a list without a store, an empty list, and none for an unknown or deleted one', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const bare = (await request(app, 'POST', '/api/lists', { token: t, body: { name: 'No store' } })).body;
    await expectSame(app, family.familyId, t, bare.id);
    for (const name of ['Milk', 'Bread'])
      await request(app, 'POST', `/api/lists/${bare.id}/items`, { token: t, body: { name } });
    const detail = await expectSame(app, family.familyId, t, bare.id);
    expect(detail.groups.map((g) => g.name)).to.deep.equal(['Uncategorized']);
    expect(await listDetailJson(app.deps.db, family.familyId, newId())).to.equal(undefined);
    await request(app, 'DELETE', `/api/lists/${bare.id}`, { token: t });
    expect(await listDetailJson(app.deps.db, family.familyId, bare.id)).to.equal(undefined);
    expect((await request(app, 'GET', `/api/lists/${bare.id}`, { token: t })).status).to.equal(404);
    // Another family's list is unknown.
    const other = await makeFamily(app);
    const theirs = (await request(app, 'POST', '/api/lists', { token: other.admin.token, body: { name: 'Theirs' } }))
      .body;
    expect(await listDetailJson(app.deps.db, family.familyId, theirs.id)).to.equal(undefined);
    if (app.deps.statementFunctions)
      for (const listId of [newId(), bare.id, theirs.id])
        expect(await listDetailJson(app.deps.db, family.familyId, listId, { viaFunction: true })).to.equal(undefined);
  });
});
