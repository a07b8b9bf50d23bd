// Live patches and client liveness (api-contract §7): `Changed { version, previous, collections,
// docs? }` carries the committed docs of a small commit, exactly what a pull from `previous`
// returns (documents and checkpoint); above 100 docs or 64 KiB it carries none; catalog
// collections are never patched. `Ping` is answered with `Pong`.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { seedGlobalProduct } from '../lists/helpers.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import {
  CATALOG_COLLECTIONS,
  CLOSE_CODES,
  COLLECTIONS,
  LIVE_PATCH_MAX_DOCS,
  LIVE_PATCH_MAX_FRAME_BYTES,
  checkpointAtVersion,
  serverFrameSchema,
} from '@family-shopping/client/protocol';
import { TestSocket, type Frame } from './client.js';
import { familyVersion, itemDoc, listDoc, pull, push } from '../sync/helpers.js';

describe('realtime: live patches and Ping', function () {
  this.timeout(30_000);
  let app: RunningServer;
  const sockets: TestSocket[] = [];
  before(async () => {
    app = await testApp();
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });

  async function watched() {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const socket = await TestSocket.connect(app, family.admin.token);
    sockets.push(socket);
    return { family, member, socket };
  }

  /** A pull from the end of `previous`: what the frame's docs must equal. */
  async function pullFrom(token: string, collection: string, previous: number) {
    const r = await pull(app, token, collection, checkpointAtVersion(previous), 1000);
    expect(r.status, r.text).to.equal(200);
    return r.body;
  }

  /** A REST write that must succeed, and the socket's `Changed` frame of its commit. */
  async function committed(
    socket: TestSocket,
    familyId: string,
    token: string,
    method: string,
    path: string,
    body?: unknown,
  ) {
    const res = await request(app, method, `/api${path}`, { token, body });
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 299);
    const version = await familyVersion(app, familyId);
    const frame = await socket.next((f) => f.type === 'Changed' && f.version === version);
    return { body: res.body, frame };
  }

  /** A commit's frame against a pull of every family collection from its previous: it names
   *  exactly the collections that have docs there, and patches each with those docs. */
  function expectNamesWhatChanged(token: string, frame: Frame) {
    return Promise.all(
      COLLECTIONS.filter((c) => !(CATALOG_COLLECTIONS as readonly string[]).includes(c)).map(async (c) => {
        const pulled = await pullFrom(token, c, frame.previous);
        expect(frame.collections.includes(c), `${c} named`).to.equal(pulled.documents.length > 0);
        if (pulled.documents.length > 0) expect(frame.docs[c], c).to.deep.equal(pulled);
      }),
    );
  }

  function expectContract(f: Frame) {
    const parsed = serverFrameSchema.safeParse(f);
    expect(parsed.success, parsed.success ? '' : parsed.error.message).to.equal(true);
  }

  it('a REST write: Changed carries previous and the committed docs, equal to a pull from previous', async () => {
    const { family, member, socket } = await watched();
    const list = (await request(app, 'POST', '/api/lists', { token: member.token, body: { name: 'Weekly' } })).body;
    const first = await socket.next((f) => f.type === 'Changed');
    expectContract(first);
    expect(first.version).to.equal(await familyVersion(app, family.familyId));
    expect(first.previous).to.equal(first.version - 1);
    expect(first.collections).to.deep.equal(['lists']);
    expect(first.docs.lists).to.deep.equal(await pullFrom(member.token, 'lists', first.previous));
    expect(first.docs.lists.documents.map((d: { id: string }) => d.id)).to.deep.equal([list.id]);

    // The next commit's previous is this one's version: the chain a client follows.
    const item = (
      await request(app, 'POST', `/api/lists/${list.id}/items`, { token: member.token, body: { name: 'Milk' } })
    ).body;
    const second = await socket.next((f) => f.type === 'Changed');
    expectContract(second);
    expect(second.previous).to.equal(first.version);
    expect(second.version).to.equal(first.version + 1);
    expect(Object.keys(second.docs).sort()).to.deep.equal([...second.collections].sort());
    expect(second.docs.items).to.deep.equal(await pullFrom(member.token, 'items', second.previous));
    expect(second.docs.items.documents).to.have.length(1);
    expect(second.docs.items.documents[0]).to.include({ id: item.id, name: 'Milk', _deleted: false });
    expect(second.docs.items.checkpoint).to.deep.equal(checkpointAtVersion(second.version));

    // A deletion travels as a tombstone, exactly as the pull has it.
    await request(app, 'DELETE', `/api/lists/${list.id}`, { token: member.token });
    const third = await socket.next((f) => f.type === 'Changed');
    expect(third.previous).to.equal(second.version);
    expect(third.docs.lists.documents).to.have.length(1);
    expect(third.docs.lists.documents[0]).to.include({ id: list.id, _deleted: true });
    for (const c of third.collections)
      expect(third.docs[c], c).to.deep.equal(await pullFrom(member.token, c, third.previous));
  });

  it(`a push of exactly ${LIVE_PATCH_MAX_DOCS} docs is patched; ${LIVE_PATCH_MAX_DOCS + 1} docs, or ${LIVE_PATCH_MAX_DOCS} over 64 KiB, are not`, async () => {
    const { member, socket } = await watched();
    const list = listDoc();
    expect((await push(app, member.token, 'lists', [{ newDocumentState: list }])).status).to.equal(200);
    await socket.next((f) => f.type === 'Changed');
    const rows = (n: number, name = 'Tea') =>
      Array.from({ length: n }, () => ({ newDocumentState: itemDoc(list.id, { name }) }));

    expect((await push(app, member.token, 'items', rows(LIVE_PATCH_MAX_DOCS))).body.rejected).to.deep.equal([]);
    const atBound = await socket.next((f) => f.type === 'Changed');
    expectContract(atBound);
    expect(atBound.docs.items.documents).to.have.length(LIVE_PATCH_MAX_DOCS);
    expect(atBound.docs.items).to.deep.equal(await pullFrom(member.token, 'items', atBound.previous));

    expect((await push(app, member.token, 'items', rows(LIVE_PATCH_MAX_DOCS + 1))).body.rejected).to.deep.equal([]);
    const overCount = await socket.next((f) => f.type === 'Changed');
    expect(overCount).to.deep.equal({
      type: 'Changed',
      version: atBound.version + 1,
      previous: atBound.version,
      collections: ['items'],
    });

    // 100 docs of 500-character names: more than 64 KiB in all.
    expect(
      (await push(app, member.token, 'items', rows(LIVE_PATCH_MAX_DOCS, 'x'.repeat(500)))).body.rejected,
    ).to.deep.equal([]);
    const raw: string[] = [];
    socket.ws.on('message', (d) => raw.push(String(d)));
    const overSize = await socket.next((f) => f.type === 'Changed');
    expect(overSize).to.deep.equal({
      type: 'Changed',
      version: overCount.version + 1,
      previous: overCount.version,
      collections: ['items'],
    });
    expect((await pullFrom(member.token, 'items', overSize.previous)).documents).to.have.length(LIVE_PATCH_MAX_DOCS);
    // Every frame the socket got stays within the bound.
    await socket.sync();
    for (const text of raw) expect(Buffer.byteLength(text)).to.be.at.most(LIVE_PATCH_MAX_FRAME_BYTES);
  });

  it('catalog collections are named but never patched; a mixed commit patches only the family collections', async () => {
    const { member, socket } = await watched();
    const product = (
      await request(app, 'POST', '/api/products', { token: member.token, body: { name: `Oat milk ${Date.now()}` } })
    ).body;
    const onlyCatalog = await socket.next((f) => f.type === 'Changed');
    expect(onlyCatalog.collections).to.deep.equal(['products']);
    expect(onlyCatalog).to.not.have.property('docs');

    // Deleting a family product an item uses: products and items in one commit.
    const list = (await request(app, 'POST', '/api/lists', { token: member.token, body: { name: 'L' } })).body;
    await socket.next((f) => f.type === 'Changed');
    const added = await request(app, 'POST', `/api/lists/${list.id}/items`, {
      token: member.token,
      body: { name: 'Oat milk', familyProductId: product.id },
    });
    expect(added.status, added.text).to.equal(201);
    await socket.next((f) => f.type === 'Changed');
    const del = await request(app, 'DELETE', `/api/products/${product.id}`, { token: member.token });
    expect(del.status, del.text).to.be.within(200, 299);
    const mixed = await socket.next((f) => f.type === 'Changed');
    expectContract(mixed);
    expect(mixed.collections).to.include.members(['items', 'products']);
    expect(mixed.docs).to.not.have.property('products');
    expect(mixed.docs.items).to.deep.equal(await pullFrom(member.token, 'items', mixed.previous));
  });

  it('a cascading write names every collection it changed, each patched as a pull from previous has it', async () => {
    const { family, member, socket } = await watched();
    const admin = family.admin.token;
    const write = (method: string, path: string, body?: unknown) =>
      committed(socket, family.familyId, admin, method, path, body);
    const call = async (method: string, path: string, body?: unknown) => (await write(method, path, body)).body;
    const expectComplete = (frame: Frame) => expectNamesWhatChanged(member.token, frame);
    const store = await call('POST', '/stores', { name: 'Corner shop' });
    const dairy = store.sections.find((s: { name: string }) => s.name === 'Dairy & Eggs').id;
    const list = await call('POST', '/lists', { name: 'Weekly', storeId: store.id });
    const productId = await seedGlobalProduct(app, `Milk ${Date.now()}`);
    // Placed in Dairy: the store remembers the product there.
    const milk = await call('POST', `/lists/${list.id}/items`, { name: 'Milk', productId, sectionId: dairy });
    // A deleted list's item in Dairy: a tombstone, which no later change of Dairy touches.
    const party = await call('POST', '/lists', { name: 'Party', storeId: store.id });
    await call('POST', `/lists/${party.id}/items`, { name: 'Cheese', sectionId: dairy });
    await call('DELETE', `/lists/${party.id}`);

    // A section inserted first moves every other section down one.
    const { frame: inserted } = await write('POST', `/stores/${store.id}/sections`, { name: 'Flowers', position: 0 });
    expect(inserted.docs.sections.documents).to.have.length(store.sections.length + 1);
    await expectComplete(inserted);

    // An empty section's deletion changes the sections alone.
    const frozen = store.sections.find((s: { name: string }) => s.name === 'Frozen').id;
    const { frame: empty } = await write('DELETE', `/stores/${store.id}/sections/${frozen}`);
    expect(empty.collections).to.deep.equal(['sections']);
    await expectComplete(empty);

    // Deleting Dairy clears the live item's section and forgets the memory: three collections.
    const { frame: deleted } = await write('DELETE', `/stores/${store.id}/sections/${dairy}`);
    expect([...deleted.collections].sort()).to.deep.equal(['items', 'sectionMemory', 'sections']);
    expect(
      deleted.docs.items.documents.map((d: { id: string; sectionId: string | null }) => [d.id, d.sectionId]),
    ).to.deep.equal([[milk.id, null]]);
    await expectComplete(deleted);
  });

  it("a section's deletion leaves memory already forgotten (with its product) as it was", async () => {
    const { family, socket } = await watched();
    const write = (method: string, path: string, body?: unknown) =>
      committed(socket, family.familyId, family.admin.token, method, path, body);
    const store = (await write('POST', '/stores', { name: 'Baker' })).body;
    const bakery = store.sections.find((s: { name: string }) => s.name === 'Bakery').id;
    const list = (await write('POST', '/lists', { name: 'L', storeId: store.id })).body;
    const product = (await write('POST', '/products', { name: `Rye ${Date.now()}` })).body;
    await write('POST', `/lists/${list.id}/items`, { name: 'Rye', familyProductId: product.id, sectionId: bakery });
    // Deleting the product forgets where the store kept it.
    await write('DELETE', `/products/${product.id}`);
    const { frame: deleted } = await write('DELETE', `/stores/${store.id}/sections/${bakery}`);
    expect(deleted.collections).to.not.include('sectionMemory');
  });

  it('a delete whose cascades find nothing names only the collection it deleted from', async () => {
    const { family, member, socket } = await watched();
    const write = (method: string, path: string, body?: unknown) =>
      committed(socket, family.familyId, family.admin.token, method, path, body);
    const list = (await write('POST', '/lists', { name: 'Never used' })).body;
    const recipe = (await write('POST', '/recipes', { name: 'Toast' })).body;
    const store = (await write('POST', '/stores', { name: 'Kiosk' })).body;
    const product = (await write('POST', '/products', { name: `Jam ${Date.now()}` })).body;
    // No items, no ingredients, no lists at the store, no item or memory of the product.
    const deletes: Array<[string, string[]]> = [
      [`/lists/${list.id}`, ['lists']],
      [`/recipes/${recipe.id}`, ['recipes']],
      [`/stores/${store.id}`, ['sections', 'stores']],
      [`/products/${product.id}`, ['products']],
    ];
    for (const [path, named] of deletes) {
      const { frame } = await write('DELETE', path);
      expect([...frame.collections].sort(), path).to.deep.equal(named);
      await expectNamesWhatChanged(member.token, frame);
    }
  });

  it('Ping is answered with Pong (requestId echoed); as a first frame it is refused with 4401', async () => {
    const { socket } = await watched();
    socket.send({ type: 'Ping', requestId: 'p1' });
    expect(await socket.next((f) => f.type === 'Pong')).to.deep.equal({ type: 'Pong', requestId: 'p1' });
    socket.send({ type: 'Ping', requestId: 7 });
    expect(await socket.next((f) => f.type === 'Pong')).to.deep.equal({ type: 'Pong', requestId: 7 });
    socket.send({ type: 'Ping' });
    expect(await socket.next((f) => f.type === 'Pong')).to.deep.equal({ type: 'Pong' });

    const early = await TestSocket.open(app.url);
    sockets.push(early);
    early.send({ type: 'Ping', requestId: 'too-early' });
    expect((await early.closed).code).to.equal(CLOSE_CODES.UNAUTHENTICATED);
  });
});
