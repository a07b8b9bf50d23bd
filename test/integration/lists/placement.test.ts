// Placement of a new item with a product (api-contract §10), over REST and recipe copy: an
// explicit sectionId → the remembered section → the first section in walking order of the list's
// store whose category is the product's effective category → none. Placement by category writes
// no section memory; items already placed are never re-placed.
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { catalogWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import { pullAll } from '../sync/helpers.js';
import { captureEvents, client } from './helpers.js';

/** A global product of that category (reference data: a catalog write). */
async function globalProduct(
  app: Awaited<ReturnType<typeof testApp>>,
  name: string,
  category: string | null,
): Promise<string> {
  const id = newId();
  await catalogWrite(app.deps, (trx, version) =>
    trx('products').insert({ id, key: `test-${id}`, name, category, catalog_version: version }),
  );
  return id;
}

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const api = client(app, family.admin);
  const store = (await api('POST', '/stores', { name: 'Main' })).body;
  const list = (await api('POST', '/lists', { name: 'Weekly', storeId: store.id })).body;
  const section = (name: string) => store.sections.find((s: any) => s.name === name).id as string;
  const add = async (body: object, listId = list.id) => {
    const r = await api('POST', `/lists/${listId}/items`, body);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const memory = async () =>
    [...(await pullAll(app, family.admin.token, 'sectionMemory')).docs.values()].filter((d) => !d._deleted);
  return { app, family, api, store, list, section, add, memory };
}

describe('item placement (§10)', () => {
  before(async function () {
    this.timeout(120_000); // the shared app's start, on a busy machine
    await testApp();
  });

  it('by category: the first section of the category in walking order, reordered sections too; no memory written', async () => {
    const { app, family, api, store, section, add, memory } = await setup();
    const milk = await globalProduct(app, 'Milk', 'dairy');
    const events = captureEvents(app, family.familyId);
    try {
      const first = await add({ productId: milk });
      expect(first.sectionId).to.equal(section('Dairy & Eggs'));
      expect(events.of('ItemSectionChanged')[0]).to.include({
        itemId: first.id,
        sectionId: section('Dairy & Eggs'),
        previousSectionId: null,
      });
    } finally {
      events.stop();
    }
    expect(await memory()).to.deep.equal([]);

    // A second dairy section, appended: Dairy & Eggs still comes first in walking order.
    const cooler = (await api('POST', `/stores/${store.id}/sections`, { name: 'Cooler', category: 'dairy' })).body;
    expect(cooler.category).to.equal('dairy');
    expect((await add({ productId: milk })).sectionId).to.equal(section('Dairy & Eggs'));
    // Walked first now: it wins.
    const ids = [cooler.id, ...store.sections.map((s: any) => s.id)];
    expect((await api('PUT', `/stores/${store.id}/sections/order`, { sectionIds: ids })).status).to.equal(200);
    expect((await add({ productId: milk })).sectionId).to.equal(cooler.id);
    expect(await memory()).to.deep.equal([]);
  });

  it('explicit section first (remembered), then memory, then category', async () => {
    const { app, section, add, memory } = await setup();
    const cheese = await globalProduct(app, 'Cheese', 'dairy');
    const explicit = await add({ productId: cheese, sectionId: section('Deli') });
    expect(explicit.sectionId).to.equal(section('Deli'));
    const remembered = await memory();
    expect(remembered.map((m) => [m.productId, m.sectionId])).to.deep.equal([[cheese, section('Deli')]]);
    // Memory beats category.
    expect((await add({ productId: cheese })).sectionId).to.equal(section('Deli'));
    // An explicit section beats memory, and is remembered in turn.
    expect((await add({ productId: cheese, sectionId: section('Frozen') })).sectionId).to.equal(section('Frozen'));
    expect((await add({ productId: cheese })).sectionId).to.equal(section('Frozen'));
  });

  it('none: no section of the category, a product without category, no product, a list without a store', async () => {
    const { app, api, store, list, section, add } = await setup();
    const soap = await globalProduct(app, 'Soap', 'household');
    const plain = await globalProduct(app, 'Plain', null);
    // The store's only household section loses its category.
    const patched = await api('PATCH', `/stores/${store.id}/sections/${section('Household')}`, { category: null });
    expect([patched.status, patched.body.category]).to.deep.equal([200, null]);
    expect((await add({ productId: soap })).sectionId).to.equal(null);
    expect((await add({ productId: plain })).sectionId).to.equal(null);
    expect((await add({ name: 'Produce' })).sectionId).to.equal(null);
    const bare = (await api('POST', '/lists', { name: 'No store' })).body;
    const milk = await globalProduct(app, 'Milk', 'dairy');
    expect((await add({ productId: milk }, bare.id)).sectionId).to.equal(null);
    // The same product on the list with a store is placed.
    expect((await add({ productId: milk }, list.id)).sectionId).to.equal(section('Dairy & Eggs'));
  });

  it("family products by their category; a global product by its family's override category", async () => {
    const { app, api, section, add } = await setup();
    const jam = (await api('POST', '/products', { name: 'Jam', category: 'pantry' })).body;
    expect(jam.category).to.equal('pantry');
    expect((await add({ familyProductId: jam.id })).sectionId).to.equal(section('Pantry'));

    const peas = await globalProduct(app, 'Peas', 'produce');
    expect((await add({ productId: peas })).sectionId).to.equal(section('Produce'));
    const override = await api('PUT', `/products/${peas}/override`, { category: 'frozen' });
    expect([override.status, override.body.category, override.body.overridden]).to.deep.equal([200, 'frozen', true]);
    expect((await add({ productId: peas })).sectionId).to.equal(section('Frozen'));
    // Without the override the global category applies again.
    expect((await api('DELETE', `/products/${peas}/override`)).status).to.equal(204);
    expect((await add({ productId: peas })).sectionId).to.equal(section('Produce'));
  });

  it('items already placed are not re-placed when a section gains the category', async () => {
    const { app, api, store, list, add } = await setup();
    const bread = await globalProduct(app, 'Bread', 'bakery');
    const placed = await add({ productId: bread });
    const loose = await add({ name: 'Bread' });
    const extra = (await api('POST', `/stores/${store.id}/sections`, { name: 'Oven', position: 0 })).body;
    expect(extra.category).to.equal(null);
    await api('PATCH', `/stores/${store.id}/sections/${extra.id}`, { category: 'bakery' });
    const items = (await api('GET', `/lists/${list.id}`)).body.groups.flatMap((g: any) => g.items);
    const byId = new Map(items.map((i: any) => [i.id, i.sectionId]));
    expect(byId.get(placed.id)).to.equal(placed.sectionId);
    expect(byId.get(loose.id)).to.equal(null);
    // A new item goes to the section walked first.
    expect((await add({ productId: bread })).sectionId).to.equal(extra.id);
  });

  it('copy-to-list places each ingredient with a product like a new item', async () => {
    const { app, api, list, section, memory } = await setup();
    const butter = await globalProduct(app, 'Butter', 'dairy');
    const flour = await globalProduct(app, 'Flour', 'pantry');
    const recipe = (
      await api('POST', '/recipes', {
        name: 'Shortbread',
        servings: 4,
        ingredients: [{ productId: butter }, { productId: flour }, { name: 'Love' }],
      })
    ).body;
    const copy = await api('POST', `/recipes/${recipe.id}/copy-to-list`, { listId: list.id });
    expect(copy.status, copy.text).to.equal(201);
    expect(copy.body.items.map((i: any) => [i.name, i.sectionId])).to.deep.equal([
      ['Butter', section('Dairy & Eggs')],
      ['Flour', section('Pantry')],
      ['Love', null],
    ]);
    expect(await memory()).to.deep.equal([]);
  });
});
