// RxDB itself (memory storage, replicateRxCollection) against the running server: offline edits
// on two replicas converge to the server's state; removal wins against a concurrent edit but the
// edit is kept; a restore by a replica that saw the removal restores the item.
import { expect } from 'chai';
import { testApp } from '../helpers/app.js';
import { makeFamily, makeMember } from '../helpers/factories.js';
import { request } from '../helpers/app.js';
import { itemDoc, listDoc, nowIso, uuid } from '../integration/sync/helpers.js';
import { converge, openReplica, serverDocs, type Replica, type ReplicaCollections } from './replicas.js';
import { COLLECTIONS } from '@family-shopping/client/protocol';

/** The replica's document, read by primary key. (A cached findOne() query can return a stale
 *  null while replication writes pulled batches concurrently, so it is not used here.) */
async function docOf(r: Replica, c: ReplicaCollections, id: string) {
  const doc = (await r.collections[c].findByIds([id]).exec()).get(id);
  if (!doc) throw new Error(`${r.name} has no ${c} doc ${id}`);
  return doc;
}

const strip = ({ _deleted, ...rest }: Record<string, unknown>) => rest;

describe('e2e: RxDB replicas against the server', function () {
  this.timeout(60_000);
  let replicas: Replica[] = [];

  afterEach(async () => {
    for (const r of replicas) await r.remove();
    replicas = [];
  });

  async function twoReplicas() {
    const app = await testApp();
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const a = await openReplica(app, family.admin.token, 'a');
    const b = await openReplica(app, member.token, 'b');
    replicas = [a, b];
    return { app, family, member, a, b, token: family.admin.token };
  }

  it('two replicas edit offline, reconnect and converge to the server state (one-side changes on both sides kept)', async () => {
    const { app, a, b, token } = await twoReplicas();
    const list = listDoc({ name: 'Weekend' });
    await a.collections.lists.insert(strip(list));
    const milk = itemDoc(list.id, { name: 'Milk' });
    const bread = itemDoc(list.id, { name: 'Bread' });
    await a.collections.items.bulkInsert([strip(milk), strip(bread)]);
    await a.sync();
    await converge(app, token, [a, b]);
    expect((await b.docs('items')).get(milk.id)).to.include({ name: 'Milk' });

    await a.goOffline();
    await b.goOffline();
    await (await docOf(a, 'items', milk.id)).incrementalPatch({ name: 'Oat milk', updatedAt: nowIso() });
    await (await docOf(b, 'items', milk.id)).incrementalPatch({ quantity: 2, updatedAt: nowIso() });
    await (await docOf(b, 'items', bread.id)).incrementalPatch({ checked: true, updatedAt: nowIso() });
    const eggs = itemDoc(list.id, { name: 'Eggs' });
    await b.collections.items.insert(strip(eggs));
    await (await docOf(a, 'lists', list.id)).incrementalPatch({ name: 'Weekend shop', updatedAt: nowIso() });

    await a.goOnline();
    await b.goOnline();
    await converge(app, token, [a, b]);
    const server = await serverDocs(app, token, 'items');
    expect(server.get(milk.id)).to.include({ name: 'Oat milk', quantity: 2 });
    expect(server.get(bread.id)).to.include({ checked: true });
    expect(server.get(eggs.id)).to.include({ name: 'Eggs' });
    expect((await serverDocs(app, token, 'lists')).get(list.id)).to.include({ name: 'Weekend shop' });
  });

  it('a removal on one replica and an edit of the same item on the other: the item ends removed and the edit is kept; a restore by a replica that saw the removal restores it', async () => {
    const { app, member, a, b, token, family } = await twoReplicas();
    const list = listDoc({ name: 'Party' });
    await a.collections.lists.insert(strip(list));
    const chips = itemDoc(list.id, { name: 'Chips' });
    await a.collections.items.insert(strip(chips));
    await a.sync();
    await converge(app, token, [a, b]);

    await a.goOffline();
    await b.goOffline();
    // B removes it (soft removal), A edits it, both offline.
    await (await docOf(b, 'items', chips.id)).incrementalPatch({ removedAt: nowIso(), updatedAt: nowIso() });
    await (
      await docOf(a, 'items', chips.id)
    ).incrementalPatch({ name: 'Salted chips', quantity: 3, updatedAt: nowIso() });
    await b.goOnline();
    await a.goOnline();
    await converge(app, token, [a, b]);
    const removed = (await serverDocs(app, token, 'items')).get(chips.id)!;
    expect(removed.removedAt).to.be.a('string');
    expect(removed.removedByUserId).to.equal(member.userId);
    expect(removed).to.include({ name: 'Salted chips', quantity: 3 });
    expect((await a.docs('items')).get(chips.id)!.removedAt).to.be.a('string');

    // A (which has pulled the removal) restores it.
    await (await docOf(a, 'items', chips.id)).incrementalPatch({ removedAt: null, updatedAt: nowIso() });
    await a.sync();
    await converge(app, token, [a, b]);
    const restored = (await serverDocs(app, token, 'items')).get(chips.id)!;
    expect(restored).to.include({ removedAt: null, removedByUserId: null, name: 'Salted chips' });
    expect((await b.docs('items')).get(chips.id)).to.include({ removedAt: null });
    expect(family.familyId).to.be.a('string');
  });

  it('an offline restore by a replica that did not see a newer removal does not undo it; a rejected push reverts the replica', async () => {
    const { app, a, b, token } = await twoReplicas();
    const list = listDoc();
    await a.collections.lists.insert(strip(list));
    const tea = itemDoc(list.id, { name: 'Tea' });
    await a.collections.items.insert(strip(tea));
    await a.sync();
    await converge(app, token, [a, b]);
    // A removes and restores offline; meanwhile B removes it online.
    await a.goOffline();
    await (await docOf(a, 'items', tea.id)).incrementalPatch({ removedAt: nowIso() });
    await (await docOf(a, 'items', tea.id)).incrementalPatch({ removedAt: null });
    await (await docOf(b, 'items', tea.id)).incrementalPatch({ removedAt: nowIso() });
    await b.sync();
    await a.goOnline();
    await converge(app, token, [a, b]);
    expect((await serverDocs(app, token, 'items')).get(tea.id)!.removedAt).to.be.a('string');

    // An item pointing at a unit that does not exist is rejected and the replica drops it.
    const bogus = itemDoc(list.id, { name: 'Bogus', unitOfMeasureId: crypto.randomUUID() });
    await b.collections.items.insert(strip(bogus));
    await b.sync();
    await converge(app, token, [a, b]);
    expect((await b.docs('items')).has(bogus.id)).to.equal(false);
  });

  it('a refused edit of an existing doc (a foreign store, a section of another store) reverts the replica and is not pushed again', async () => {
    const { app, a, b, token } = await twoReplicas();
    const rest = async (t: string, method: string, path: string, body?: unknown) => {
      const r = await request(app, method, path, { token: t, body });
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    const store = await rest(token, 'POST', '/api/stores', { name: 'Corner shop' });
    const other = await rest(token, 'POST', '/api/stores', { name: 'Big market' });
    const stranger = await makeFamily(app);
    const foreign = await rest(stranger.admin.token, 'POST', '/api/stores', { name: 'Not ours' });
    const list = listDoc({ name: 'Errands', storeId: store.id });
    await a.collections.lists.insert(strip(list));
    const soap = itemDoc(list.id, { name: 'Soap', sectionId: store.sections[9].id });
    await a.collections.items.insert(strip(soap));
    await a.sync();
    await converge(app, token, [a, b]);

    // B (the member) edits both docs in ways the server refuses.
    await (await docOf(b, 'lists', list.id)).incrementalPatch({ storeId: foreign.id, name: 'Errands!' });
    await (await docOf(b, 'items', soap.id)).incrementalPatch({ sectionId: other.sections[0].id });
    await b.sync();
    await converge(app, token, [a, b]);
    // Reverted to the server's state: the refused change is gone, not kept as a local edit.
    expect((await b.docs('lists')).get(list.id)).to.include({ storeId: store.id, name: 'Errands' });
    expect((await b.docs('items')).get(soap.id)).to.include({ sectionId: store.sections[9].id });
    expect((await serverDocs(app, token, 'lists')).get(list.id)).to.include({ storeId: store.id, name: 'Errands' });

    // And it stays settled: no further pushes of those docs (RxDB retries every 100 ms here).
    const settled = b.pushes.length;
    await new Promise((r) => setTimeout(r, 600));
    await b.sync();
    expect(b.pushes.slice(settled)).to.deep.equal([]);
  });

  it('replicates all nine collections: a replica offline with a REST writer online converges in every one, section memory derived from its pushed item', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const token = family.admin.token;
    const rest = async (method: string, path: string, body?: unknown) => {
      const r = await request(app, method, path, { token: member.token, body });
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    const store = await rest('POST', '/api/stores', { name: 'Market' });
    const product = await rest('POST', '/api/products', { name: `Basil ${uuid().slice(0, 6)}` });
    const unit = await rest('POST', '/api/units', {
      name: 'Bunch',
      abbreviation: `bn${uuid().slice(0, 5)}`,
      category: 'Count',
    });
    const recipe = await rest('POST', '/api/recipes', { name: 'Pesto', ingredients: [{ name: 'Basil', quantity: 2 }] });
    // One replica of all nine collections (the admin's device) in this process.
    const a = await openReplica(app, token, 'all', [...COLLECTIONS]);
    replicas = [a];
    await converge(app, token, [a]);
    expect((await a.docs('sections')).size).to.equal(11);

    await a.goOffline();
    const herbs = store.sections[0];
    const list = listDoc({ name: 'Market day', storeId: store.id });
    await a.collections.lists.insert(strip(list));
    const basil = itemDoc(list.id, {
      name: 'Basil',
      familyProductId: product.id,
      familyUnitOfMeasureId: unit.id,
      quantity: 1,
      sectionId: herbs.id,
    });
    await a.collections.items.insert(strip(basil));
    await (await docOf(a, 'sections', herbs.id)).incrementalPatch({ name: 'Herbs & greens' });
    await (await docOf(a, 'recipes', recipe.id)).incrementalPatch({ servings: 4 });
    await (await docOf(a, 'ingredients', recipe.ingredients[0].id)).incrementalPatch({ quantity: 3 });
    await (await docOf(a, 'products', product.id)).incrementalPatch({ unitCategoryFlags: ['Count'] });
    await (await docOf(a, 'units', unit.id)).incrementalPatch({ name: 'Bundle' });
    // Meanwhile, online, another member changes other fields and records.
    await rest('PATCH', `/api/stores/${store.id}`, { name: 'Farmers market' });
    await rest('PATCH', `/api/recipes/${recipe.id}`, { instructions: 'Blend.' });
    const drink = await rest('POST', '/api/products', { name: `Oat drink ${uuid().slice(0, 6)}` });

    await a.goOnline();
    await converge(app, token, [a]);
    expect(a.errors.filter((e) => !String(e).includes('waiting for referenced records'))).to.deep.equal([]);
    const server = async (c: ReplicaCollections, id: string) => (await serverDocs(app, token, c)).get(id);
    expect(await server('items', basil.id)).to.include({
      name: 'Basil',
      sectionId: herbs.id,
      familyProductId: product.id,
      familyUnitOfMeasureId: unit.id,
    });
    expect(await server('sections', herbs.id)).to.include({ name: 'Herbs & greens' });
    expect(await server('recipes', recipe.id)).to.include({ servings: 4, instructions: 'Blend.' });
    expect(await server('ingredients', recipe.ingredients[0].id)).to.include({ quantity: 3 });
    expect(await server('products', product.id)).to.deep.include({ unitCategoryFlags: ['Count'] });
    expect(await server('units', unit.id)).to.include({ name: 'Bundle' });
    expect((await a.docs('stores')).get(store.id)).to.include({ name: 'Farmers market' });
    expect((await a.docs('products')).has(drink.id)).to.equal(true);
    const memory = [...(await a.docs('sectionMemory')).values()];
    expect(memory.map((m) => [m.storeId, m.familyProductId, m.sectionId])).to.deep.equal([
      [store.id, product.id, herbs.id],
    ]);
  });
});
