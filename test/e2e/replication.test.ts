// RxDB itself (memory storage, replicateRxCollection) against the running server: offline edits
// on two replicas converge to the server's state; removal wins against a concurrent edit but the
// edit is kept; a restore by a replica that saw the removal restores the item.
import { expect } from 'chai';
import { testApp } from '../helpers/app.js';
import { makeFamily, makeMember } from '../helpers/factories.js';
import { itemDoc, listDoc, nowIso } from '../integration/sync/helpers.js';
import { converge, openReplica, serverDocs, type Replica } from './replicas.js';

/** The replica's document, read by primary key. (A cached findOne() query can return a stale
 *  null while replication writes pulled batches concurrently, so it is not used here.) */
async function docOf(r: Replica, c: 'lists' | 'items', id: string) {
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
    await (await docOf(a, 'items', chips.id)).incrementalPatch({ name: 'Salted chips', quantity: 3, updatedAt: nowIso() });
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
});
