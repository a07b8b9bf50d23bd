// Section memory and cascades over replication: a device holding the checkpoint from just before
// a write pulls every row that write changed, the ones it changed on the side included (the
// remembered section of a product, items re-sectioned or unsectioned by a section delete, a
// store delete or a list's store change).
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';
import type { Checkpoint, CollectionName } from '@family-shopping/client/protocol';
import { pullAll, type AnyDoc } from './helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

const WATCHED = ['stores', 'sections', 'lists', 'items', 'sectionMemory'] as const satisfies readonly CollectionName[];
type Watched = (typeof WATCHED)[number];

/** A device: the checkpoint of each collection it holds. */
async function device(app: App, token: string) {
  const cps = {} as Record<Watched, Checkpoint | null>;
  for (const c of WATCHED) cps[c] = (await pullAll(app, token, c, null, 1000)).checkpoint;
  return {
    /** Pulls every collection from the held checkpoints (and moves them on). */
    async pull(): Promise<Record<Watched, Map<string, AnyDoc>>> {
      const out = {} as Record<Watched, Map<string, AnyDoc>>;
      for (const c of WATCHED) {
        const r = await pullAll(app, token, c, cps[c], 2);
        out[c] = r.docs;
        cps[c] = r.checkpoint;
      }
      return out;
    },
  };
}

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const t = family.admin.token;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await request(app, method, `/api${path}`, { token: t, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const section = (store: any, name: string) => (store.sections as AnyDoc[]).find((s) => s.name === name)!.id as string;
  return { app, t, api, section };
}

describe('sync: section memory and cascades reach a device pulling from the checkpoint before the write', () => {
  it('placing an item: the item and the section memory doc (created, then moved)', async () => {
    const { app, t, api, section } = await setup();
    const store = await api('POST', '/stores', { name: 'Main' });
    const list = await api('POST', '/lists', { name: 'Weekly', storeId: store.id });
    const milk = await insertGlobalProductRow(app, { name: `Milk ${Date.now()}` });
    const d = await device(app, t);

    const item = await api('POST', `/lists/${list.id}/items`, {
      name: 'Milk',
      productId: milk,
      sectionId: section(store, 'Dairy & Eggs'),
    });
    let got = await d.pull();
    expect(got.items.get(item.id)).to.include({ sectionId: section(store, 'Dairy & Eggs') });
    const memory = [...got.sectionMemory.values()];
    expect(memory).to.have.length(1);
    expect(memory[0]).to.deep.include({
      storeId: store.id,
      productId: milk,
      sectionId: section(store, 'Dairy & Eggs'),
      _deleted: false,
    });

    // Moving the item moves the memory: an update of the memory row, pulled as such.
    await api('PATCH', `/lists/${list.id}/items/${item.id}`, { sectionId: section(store, 'Frozen') });
    got = await d.pull();
    expect(got.items.get(item.id)).to.include({ sectionId: section(store, 'Frozen') });
    expect(got.sectionMemory.get(memory[0]!.id)).to.deep.include({
      sectionId: section(store, 'Frozen'),
      _deleted: false,
    });
    expect(got.sectionMemory.size).to.equal(1);
  });

  it('deleting a section: the section tombstone, its items (removed ones too) without a section, its memory forgotten', async () => {
    const { app, t, api, section } = await setup();
    const store = await api('POST', '/stores', { name: 'Main' });
    const list = await api('POST', '/lists', { name: 'Weekly', storeId: store.id });
    const bread = await insertGlobalProductRow(app, { name: `Bread ${Date.now()}` });
    const bakery = section(store, 'Bakery');
    const item = await api('POST', `/lists/${list.id}/items`, { name: 'Bread', productId: bread, sectionId: bakery });
    const removed = await api('POST', `/lists/${list.id}/items`, { name: 'Buns', sectionId: bakery });
    await api('DELETE', `/lists/${list.id}/items/${removed.id}`);
    const elsewhere = await api('POST', `/lists/${list.id}/items`, {
      name: 'Apples',
      sectionId: section(store, 'Produce'),
    });
    const d = await device(app, t);

    await api('DELETE', `/stores/${store.id}/sections/${bakery}`);
    const got = await d.pull();
    expect(got.sections.get(bakery)).to.include({ _deleted: true });
    expect(got.items.get(item.id)).to.include({ sectionId: null, _deleted: false });
    expect(got.items.get(removed.id)).to.include({ sectionId: null, _deleted: false });
    expect(got.items.get(removed.id)!.removedAt).to.be.a('string');
    expect(got.items.has(elsewhere.id), 'an item the delete did not touch').to.equal(false);
    const memory = [...got.sectionMemory.values()];
    expect(memory.map((m) => [m.productId, m.sectionId, m._deleted])).to.deep.equal([[bread, bakery, true]]);
  });

  it('changing a list’s store: the list and its items re-sectioned from the new store’s memory (or none)', async () => {
    const { app, t, api, section } = await setup();
    const first = await api('POST', '/stores', { name: 'First' });
    const second = await api('POST', '/stores', { name: 'Second' });
    const cheese = await insertGlobalProductRow(app, { name: `Cheese ${Date.now()}` });
    // The second store remembers cheese in its deli.
    const other = await api('POST', '/lists', { name: 'Other', storeId: second.id });
    await api('POST', `/lists/${other.id}/items`, {
      name: 'Cheese',
      productId: cheese,
      sectionId: section(second, 'Deli'),
    });
    const list = await api('POST', '/lists', { name: 'Weekly', storeId: first.id });
    const known = await api('POST', `/lists/${list.id}/items`, {
      name: 'Cheese',
      productId: cheese,
      sectionId: section(first, 'Dairy & Eggs'),
    });
    const plain = await api('POST', `/lists/${list.id}/items`, {
      name: 'Soap',
      sectionId: section(first, 'Household'),
    });
    const d = await device(app, t);

    await api('PATCH', `/lists/${list.id}`, { storeId: second.id });
    const got = await d.pull();
    expect(got.lists.get(list.id)).to.include({ storeId: second.id });
    expect(got.items.get(known.id)).to.include({ sectionId: section(second, 'Deli') });
    expect(got.items.get(plain.id)).to.include({ sectionId: null });
    expect(got.sectionMemory.size, 'recalling a section writes no memory').to.equal(0);
  });

  it('deleting a store: its lists unlinked, their items unsectioned, its sections and memory tombstoned', async () => {
    const { app, t, api, section } = await setup();
    const store = await api('POST', '/stores', { name: 'Doomed' });
    const kept = await api('POST', '/stores', { name: 'Kept' });
    const eggs = await insertGlobalProductRow(app, { name: `Eggs ${Date.now()}` });
    const a = await api('POST', '/lists', { name: 'A', storeId: store.id });
    const b = await api('POST', '/lists', { name: 'B', storeId: store.id });
    const c = await api('POST', '/lists', { name: 'C', storeId: kept.id });
    const ia = await api('POST', `/lists/${a.id}/items`, {
      name: 'Eggs',
      productId: eggs,
      sectionId: section(store, 'Dairy & Eggs'),
    });
    const ib = await api('POST', `/lists/${b.id}/items`, { name: 'Tea', sectionId: section(store, 'Beverages') });
    const ic = await api('POST', `/lists/${c.id}/items`, {
      name: 'Eggs',
      productId: eggs,
      sectionId: section(kept, 'Dairy & Eggs'),
    });
    const d = await device(app, t);

    await api('DELETE', `/stores/${store.id}`);
    const got = await d.pull();
    expect(got.stores.get(store.id)).to.include({ _deleted: true });
    expect(got.stores.has(kept.id)).to.equal(false);
    expect(
      [...got.sections.values()]
        .filter((s) => s._deleted)
        .map((s) => s.id)
        .sort(),
    ).to.deep.equal((store.sections as AnyDoc[]).map((s) => s.id).sort());
    expect(got.sections.size).to.equal(11);
    expect(got.lists.get(a.id)).to.include({ storeId: null, _deleted: false });
    expect(got.lists.get(b.id)).to.include({ storeId: null, _deleted: false });
    expect(got.lists.has(c.id)).to.equal(false);
    expect(got.items.get(ia.id)).to.include({ sectionId: null, _deleted: false });
    expect(got.items.get(ib.id)).to.include({ sectionId: null, _deleted: false });
    expect(got.items.has(ic.id)).to.equal(false);
    const memory = [...got.sectionMemory.values()];
    expect(memory.map((m) => [m.storeId, m.productId, m._deleted])).to.deep.equal([[store.id, eggs, true]]);
  });
});
