// The contract's live events produced by real writes and received on real sockets: two members
// of a family, one writes over REST, the other (joined to the list) sees every step; the family
// overview sees list progress; another family's socket sees nothing and cannot join. A refused
// request emits nothing, and a replication push produces the same events as REST.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily, makeMember, type TestUser } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { serverFrameSchema } from '@family-shopping/client/protocol';
import { TestSocket, type Frame } from './client.js';
import { familyVersion, itemDoc, listDoc, push } from '../sync/helpers.js';

function as(app: RunningServer, user: TestUser) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await request(app, method, `/api${path}`, { token: user.token, body });
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 299);
    return res.body;
  };
}

/** Every frame a socket received must be a valid frame of the wire contract. */
function expectContractFrames(s: TestSocket) {
  for (const f of s.frames) {
    const parsed = serverFrameSchema.safeParse(f);
    expect(parsed.success, `${JSON.stringify(f)}: ${parsed.success ? '' : parsed.error.message}`).to.equal(true);
  }
}

describe('realtime: events of REST writes', function () {
  let app: RunningServer;
  const sockets: TestSocket[] = [];
  before(async () => {
    app = await testApp();
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });

  it('a list member sees ItemAdded with the remembered section, the move, removal and restore; the overview sees progress; another family sees none', async () => {
    const family = await makeFamily(app);
    const shopper = await makeMember(app, family); // writes over REST
    const watcher = family.admin; // joined to the list
    const stranger = (await makeFamily(app)).admin;
    const api = as(app, shopper);

    const store = await api('POST', '/stores', { name: 'Corner shop' });
    const [produce, dairy] = [store.sections[0], store.sections[4]];
    const product = await api('POST', '/products', { name: `Oat milk ${Date.now()}` });
    // Memory: last week the product was placed in Dairy at this store.
    const lastWeek = await api('POST', '/lists', { name: 'Last week', storeId: store.id });
    await api('POST', `/lists/${lastWeek.id}/items`, {
      name: 'Oat milk',
      familyProductId: product.id,
      sectionId: dairy.id,
    });
    const list = await api('POST', '/lists', { name: 'This week', storeId: store.id });

    const watching = await TestSocket.connect(app, watcher.token);
    const overview = await TestSocket.connect(app, shopper.token); // overview only, not joined
    const outsider = await TestSocket.connect(app, stranger.token);
    sockets.push(watching, overview, outsider);
    expect(await watching.join(list.id, 'w1')).to.deep.equal({ type: 'JoinedList', listId: list.id, requestId: 'w1' });
    expect(await outsider.join(list.id, 'o1')).to.deep.include({ type: 'Error', code: 'not_found', requestId: 'o1' });

    // Add: no sectionId sent, the store remembers Dairy for the product.
    const item = await api('POST', `/lists/${list.id}/items`, {
      name: 'Oat milk',
      familyProductId: product.id,
      quantity: 2,
    });
    expect(item.sectionId).to.equal(dairy.id);
    const added = await watching.next((f) => f.type === 'ItemAdded');
    expect(added).to.deep.equal({ type: 'ItemAdded', listId: list.id, item });
    expect(added.item.sectionId).to.equal(dairy.id);
    expect(await watching.next((f) => f.type === 'ItemSectionChanged')).to.deep.equal({
      type: 'ItemSectionChanged',
      listId: list.id,
      itemId: item.id,
      sectionId: dairy.id,
      previousSectionId: null,
    });
    const progress1 = await overview.next((f) => f.type === 'ListProgress' && f.listId === list.id);
    expect(progress1).to.deep.equal({ type: 'ListProgress', listId: list.id, itemCount: 1, checkedCount: 0 });
    await overview.next((f) => f.type === 'Changed');

    // Move it to Produce.
    await api('PATCH', `/lists/${list.id}/items/${item.id}`, { sectionId: produce.id });
    expect(await watching.next((f) => f.type === 'ItemSectionChanged')).to.deep.equal({
      type: 'ItemSectionChanged',
      listId: list.id,
      itemId: item.id,
      sectionId: produce.id,
      previousSectionId: dairy.id,
    });

    // Check it: ItemChecked to the list, progress to the overview.
    await api('POST', `/lists/${list.id}/items/${item.id}/toggle`);
    expect(await watching.next((f) => f.type === 'ItemChecked')).to.deep.equal({
      type: 'ItemChecked',
      listId: list.id,
      itemId: item.id,
      checked: true,
    });
    expect(await overview.next((f) => f.type === 'ListProgress')).to.include({ itemCount: 1, checkedCount: 1 });

    // Remove, then restore.
    await api('DELETE', `/lists/${list.id}/items/${item.id}`);
    expect(await watching.next((f) => f.type === 'ItemRemoved')).to.deep.equal({
      type: 'ItemRemoved',
      listId: list.id,
      itemId: item.id,
      removedByUserId: shopper.userId,
    });
    expect(await overview.next((f) => f.type === 'ListProgress')).to.include({ itemCount: 0, checkedCount: 0 });
    const restoredItem = await api('POST', `/lists/${list.id}/items/${item.id}/restore`);
    const restored = await watching.next((f) => f.type === 'ItemRestored');
    expect(restored).to.deep.equal({ type: 'ItemRestored', listId: list.id, item: restoredItem });
    expect(restored.item.removedAt).to.equal(null);
    expect(await overview.next((f) => f.type === 'ListProgress')).to.include({ itemCount: 1, checkedCount: 1 });

    // Archive and create are overview events too.
    await api('POST', `/lists/${list.id}/archive`);
    expect(await overview.next((f) => f.type === 'ListArchived')).to.deep.equal({
      type: 'ListArchived',
      listId: list.id,
    });
    const another = await api('POST', '/lists', { name: 'Party' });
    expect((await overview.next((f) => f.type === 'ListCreated')).list).to.include({ id: another.id, name: 'Party' });

    // The overview-only socket got no list-group event; the outsider got nothing at all.
    await overview.sync();
    await outsider.sync();
    const listEvents = (s: TestSocket) => s.frames.filter((f: Frame) => f.type.startsWith('Item'));
    expect(listEvents(overview)).to.have.length(0);
    expect(outsider.frames.map((f) => f.type)).to.deep.equal(['Authenticated', 'Error', 'Error']);
    // Every Changed carries a growing family version.
    const versions = watching.ofType('Changed').map((f) => f.version as number);
    expect(versions.length).to.be.greaterThan(4);
    expect([...versions].sort((a, b) => a - b)).to.deep.equal(versions);
    for (const s of [watching, overview, outsider]) expectContractFrames(s);
  });

  it('the other events over real sockets: ItemUpdated (also when a deleted product unlinks an item), ListUpdated, ListDeleted; a refused request emits nothing', async () => {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const api = as(app, family.admin);
    const store = await api('POST', '/stores', { name: 'Market' });
    const list = await api('POST', '/lists', { name: 'Saturday' });
    const item = await api('POST', `/lists/${list.id}/items`, { name: 'Apples' });
    const s = await TestSocket.connect(app, member.token);
    sockets.push(s);
    await s.join(list.id, 'j');
    const seen = s.frames.length;

    // Refused writes (400, 404) change nothing and emit nothing, not even Changed.
    const refused = [
      await request(app, 'POST', `/api/lists/${list.id}/items`, {
        token: family.admin.token,
        body: { name: 'Pears', sectionId: store.sections[0].id },
      }),
      await request(app, 'PATCH', `/api/lists/${list.id}/items/${item.id}`, {
        token: family.admin.token,
        body: { quantity: -1 },
      }),
      await request(app, 'PATCH', `/api/lists/${list.id}`, {
        token: family.admin.token,
        body: { storeId: '00000000-0000-4000-8000-000000000001' },
      }),
    ];
    expect(refused.map((r) => r.status)).to.deep.equal([400, 400, 400]);
    await s.sync();
    expect(s.frames.slice(seen).map((f) => f.type)).to.deep.equal(['Error']);

    const edited = await api('PATCH', `/lists/${list.id}/items/${item.id}`, { name: 'Green apples', quantity: 6 });
    expect(await s.next((f) => f.type === 'ItemUpdated')).to.deep.equal({
      type: 'ItemUpdated',
      listId: list.id,
      item: edited,
    });

    // Deleting a family product unlinks the items of it: the list hears each change.
    const product = await api('POST', '/products', { name: `Cider ${list.id.slice(0, 6)}` });
    const cider = await api('POST', `/lists/${list.id}/items`, { name: 'Cider', familyProductId: product.id });
    await s.next((f) => f.type === 'ItemAdded' && f.item.id === cider.id);
    await api('DELETE', `/products/${product.id}`);
    const unlinked = await s.next((f) => f.type === 'ItemUpdated' && f.item.id === cider.id);
    expect(unlinked.item).to.include({ id: cider.id, name: 'Cider', familyProductId: null });

    const renamed = await api('PATCH', `/lists/${list.id}`, { name: 'Sunday' });
    expect((await s.next((f) => f.type === 'ListUpdated')).list).to.include({
      id: list.id,
      name: 'Sunday',
      updatedAt: renamed.updatedAt,
    });

    await api('DELETE', `/lists/${list.id}`);
    expect(await s.next((f) => f.type === 'ListDeleted')).to.deep.equal({ type: 'ListDeleted', listId: list.id });
    const changed = await s.next((f) => f.type === 'Changed');
    expect(changed.version).to.equal(await familyVersion(app, family.familyId));
    // The deleted list's group is gone and cannot be joined again.
    expect(await s.join(list.id, 'again')).to.deep.include({ type: 'Error', code: 'not_found', requestId: 'again' });
    expectContractFrames(s);
  });

  it('a replication push reaches the sockets with the same events as REST', async () => {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const overview = await TestSocket.connect(app, member.token);
    const watching = await TestSocket.connect(app, member.token);
    sockets.push(overview, watching);

    const list = listDoc({ name: 'Pushed offline' });
    expect((await push(app, family.admin.token, 'lists', [{ newDocumentState: list }])).body).to.deep.equal({
      conflicts: [],
      rejected: [],
    });
    expect((await overview.next((f) => f.type === 'ListCreated')).list).to.include({
      id: list.id,
      name: 'Pushed offline',
    });
    expect((await overview.next((f) => f.type === 'Changed')).version).to.equal(
      await familyVersion(app, family.familyId),
    );

    await watching.join(list.id, 'j');
    const item = itemDoc(list.id, { name: 'Eggs', quantity: 12 });
    expect((await push(app, family.admin.token, 'items', [{ newDocumentState: item }])).body).to.deep.equal({
      conflicts: [],
      rejected: [],
    });
    const added = await watching.next((f) => f.type === 'ItemAdded');
    expect(added.listId).to.equal(list.id);
    expect(added.item).to.include({ id: item.id, name: 'Eggs', quantity: 12, sectionId: null });
    expect(await overview.next((f) => f.type === 'ListProgress')).to.deep.equal({
      type: 'ListProgress',
      listId: list.id,
      itemCount: 1,
      checkedCount: 0,
    });

    const base = { ...item, ...added.item, _deleted: false };
    await push(app, family.admin.token, 'items', [
      { assumedMasterState: base, newDocumentState: { ...base, checked: true } },
    ]);
    expect(await watching.next((f) => f.type === 'ItemChecked')).to.deep.equal({
      type: 'ItemChecked',
      listId: list.id,
      itemId: item.id,
      checked: true,
    });
    expect(await overview.next((f) => f.type === 'ListProgress')).to.include({ itemCount: 1, checkedCount: 1 });
    await overview.sync();
    expect(overview.ofType('ItemAdded')).to.have.length(0);
    for (const s of [overview, watching]) expectContractFrames(s);
  });
});
