import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { captureEvents, client, seedFamilyProduct, seedGlobalProduct } from './helpers.js';

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const api = client(app, family.admin);
  const store = (await api('POST', '/stores', { name: 'Main' })).body;
  const list = (await api('POST', '/lists', { name: 'Weekly', storeId: store.id })).body;
  const section = (name: string) => store.sections.find((s: any) => s.name === name).id as string;
  return { app, family, api, store, list, section, items: `/lists/${list.id}/items` };
}

describe('section memory', () => {
  it('remembers where a product was placed and assigns it to the next item of that product (with ItemSectionChanged)', async () => {
    const { app, family, api, list, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Milk');
    await api('POST', items, { name: 'Milk', productId, sectionId: section('Dairy & Eggs') });
    // A second list for the same store gets the section too.
    const other = (await api('POST', '/lists', { name: 'Party', storeId: list.storeId })).body;
    const events = captureEvents(app, family.familyId);
    try {
      const again = await api('POST', `/lists/${other.id}/items`, { name: 'Milk (2l)', productId });
      expect(again.status).to.equal(201);
      expect(again.body.sectionId).to.equal(section('Dairy & Eggs'));
      expect((events.of('ItemAdded')[0] as any).item.sectionId).to.equal(section('Dairy & Eggs'));
      expect(events.of('ItemSectionChanged')[0]).to.include({
        itemId: again.body.id,
        sectionId: section('Dairy & Eggs'),
        previousSectionId: null,
      });
    } finally {
      events.stop();
    }
    // Items without a product never get a remembered section.
    expect((await api('POST', items, { name: 'Milk' })).body.sectionId).to.equal(null);
  });

  it('the last placement wins, by create or by a later edit; an explicit section beats the remembered one', async () => {
    const { app, api, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Cheese');
    await api('POST', items, { name: 'Cheese', productId, sectionId: section('Dairy & Eggs') });
    const explicit = await api('POST', items, { name: 'Cheese', productId, sectionId: section('Deli') });
    expect(explicit.body.sectionId).to.equal(section('Deli'));
    expect((await api('POST', items, { name: 'Cheese', productId })).body.sectionId).to.equal(section('Deli'));

    const moved = await api('PATCH', `${items}/${explicit.body.id}`, { sectionId: section('Frozen') });
    expect(moved.body.sectionId).to.equal(section('Frozen'));
    expect((await api('POST', items, { name: 'Cheese', productId })).body.sectionId).to.equal(section('Frozen'));
    // Explicitly no section on create is not a placement, and gets the remembered one.
    expect((await api('POST', items, { name: 'Cheese', productId, sectionId: null })).body.sectionId).to.equal(
      section('Frozen'),
    );
  });

  it('works for family products too, and when a product is set later on an item without a section', async () => {
    const { app, family, api, items, section } = await setup();
    const familyProductId = await seedFamilyProduct(app, family.familyId, 'Homemade jam');
    await api('POST', items, { name: 'Jam', familyProductId, sectionId: section('Pantry') });
    expect((await api('POST', items, { name: 'Jam', familyProductId })).body.sectionId).to.equal(section('Pantry'));
    const plain = (await api('POST', items, { name: 'jam' })).body;
    expect(plain.sectionId).to.equal(null);
    const linked = await api('PATCH', `${items}/${plain.id}`, { familyProductId });
    expect(linked.body.sectionId).to.equal(section('Pantry'));
    // A global product with the same name is a different product.
    const globalJam = await seedGlobalProduct(app, 'Homemade jam');
    expect((await api('POST', items, { name: 'Jam', productId: globalJam })).body.sectionId).to.equal(null);
  });

  it('is per store: another store of the family does not inherit it', async () => {
    const { app, api, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Bananas');
    await api('POST', items, { name: 'Bananas', productId, sectionId: section('Produce') });
    const store2 = (await api('POST', '/stores', { name: 'Second' })).body;
    const list2 = (await api('POST', '/lists', { name: 'Other', storeId: store2.id })).body;
    const there = await api('POST', `/lists/${list2.id}/items`, { name: 'Bananas', productId });
    expect(there.body.sectionId).to.equal(null);
    // Placing it in the second store does not change the first store's memory.
    await api('PATCH', `/lists/${list2.id}/items/${there.body.id}`, { sectionId: store2.sections[6].id });
    expect((await api('POST', items, { name: 'Bananas', productId })).body.sectionId).to.equal(section('Produce'));
    expect((await api('POST', `/lists/${list2.id}/items`, { name: 'Bananas', productId })).body.sectionId).to.equal(
      store2.sections[6].id,
    );
    // A list without a store remembers nothing.
    const loose = (await api('POST', '/lists', { name: 'Loose' })).body;
    expect((await api('POST', `/lists/${loose.id}/items`, { name: 'Bananas', productId })).body.sectionId).to.equal(
      null,
    );
    // Moving a list to a store applies that store's memory to its items.
    const moved = await api('PATCH', `/lists/${loose.id}`, { storeId: store2.id });
    expect(moved.status).to.equal(200);
    const detail = (await api('GET', `/lists/${loose.id}`)).body;
    expect(detail.groups.map((g: any) => g.sectionId)).to.deep.equal([store2.sections[6].id]);
  });

  it('moving a list to another store re-sections every item, removed ones too, telling only the items that move', async () => {
    const { app, family, api, list, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Pears');
    const second = (await api('POST', '/stores', { name: 'Second' })).body;
    const there = (await api('POST', '/lists', { name: 'There', storeId: second.id })).body;
    // The second store remembers Pears in its 7th section.
    await api('POST', `/lists/${there.id}/items`, { name: 'Pears', productId, sectionId: second.sections[6].id });
    const pears = (await api('POST', items, { name: 'Pears', productId, sectionId: section('Produce') })).body;
    const gone = (await api('POST', items, { name: 'Pears', productId })).body;
    expect(gone.sectionId).to.equal(section('Produce'));
    await api('DELETE', `${items}/${gone.id}`);
    const soap = (await api('POST', items, { name: 'Soap', sectionId: section('Household') })).body;
    const loose = (await api('POST', items, { name: 'Loose' })).body;
    const events = captureEvents(app, family.familyId);
    try {
      expect((await api('PATCH', `/lists/${list.id}`, { storeId: second.id })).status).to.equal(200);
      const moved = events.of('ItemSectionChanged').map((e: any) => [e.itemId, e.previousSectionId, e.sectionId]);
      expect(moved).to.have.deep.members([
        [pears.id, section('Produce'), second.sections[6].id],
        [gone.id, section('Produce'), second.sections[6].id],
        [soap.id, section('Household'), null],
      ]);
      expect(moved).to.have.length(3); // Loose had no section and has none: nothing to tell
    } finally {
      events.stop();
    }
    const detail = (await api('GET', `/lists/${list.id}`)).body;
    const where = Object.fromEntries(detail.groups.flatMap((g: any) => g.items.map((i: any) => [i.id, g.sectionId])));
    expect(where).to.deep.equal({ [pears.id]: second.sections[6].id, [soap.id]: null, [loose.id]: null });
    // The removed item moved too: restored, it is in the second store's section.
    await api('POST', `/lists/${list.id}/restore-items`, { itemIds: [gone.id] });
    const restored = (await api('GET', `/lists/${list.id}`)).body.groups.find(
      (g: any) => g.sectionId === second.sections[6].id,
    );
    expect(restored.items.map((i: any) => i.id)).to.have.members([pears.id, gone.id]);
  });

  it('an explicit section beats the remembered one on PATCH too, and becomes the memory', async () => {
    const { app, api, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Butter');
    await api('POST', items, { name: 'Butter', productId, sectionId: section('Dairy & Eggs') });
    const plain = (await api('POST', items, { name: 'butter' })).body;
    const linked = await api('PATCH', `${items}/${plain.id}`, { productId, sectionId: section('Bakery') });
    expect(linked.status).to.equal(200);
    expect(linked.body).to.include({ productId, sectionId: section('Bakery') });
    expect((await api('POST', items, { name: 'Butter', productId })).body.sectionId).to.equal(section('Bakery'));
    // Clearing an item's section is not a placement: the memory stays.
    expect((await api('PATCH', `${items}/${plain.id}`, { sectionId: null })).body.sectionId).to.equal(null);
    expect((await api('POST', items, { name: 'Butter', productId })).body.sectionId).to.equal(section('Bakery'));
  });

  it('linking a product to an item that already sits in a section places the product there', async () => {
    const { app, api, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Yoghurt');
    await api('POST', items, { name: 'Yoghurt', productId, sectionId: section('Dairy & Eggs') });
    // Shelved by hand first, linked to the product later: the store now remembers that shelf.
    const shelved = (await api('POST', items, { name: 'yoghurt', sectionId: section('Deli') })).body;
    const linked = await api('PATCH', `${items}/${shelved.id}`, { productId });
    expect(linked.status).to.equal(200);
    expect(linked.body).to.include({ productId, sectionId: section('Deli') });
    expect((await api('POST', items, { name: 'Yoghurt', productId })).body.sectionId).to.equal(section('Deli'));
    // Re-sending the same product is no new placement: a later move elsewhere stays the memory.
    await api('PATCH', `${items}/${shelved.id}`, { sectionId: section('Frozen') });
    await api('PATCH', `${items}/${shelved.id}`, { productId, name: 'Greek yoghurt' });
    expect((await api('POST', items, { name: 'Yoghurt', productId })).body.sectionId).to.equal(section('Frozen'));
  });

  it('applies through recipe copy per store, with the last placement winning', async () => {
    const { app, api, list, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Oats');
    const recipe = (
      await api('POST', '/recipes', { name: 'Porridge', ingredients: [{ name: 'Oats', productId }, { name: 'Water' }] })
    ).body;
    const copy = async (listId: string) =>
      (await api('POST', `/recipes/${recipe.id}/copy-to-list`, { listId })).body.items as any[];

    expect((await copy(list.id)).map((i) => i.sectionId)).to.deep.equal([null, null]);
    await api('POST', `/lists/${list.id}/items`, { name: 'Oats', productId, sectionId: section('Pantry') });
    const first = await copy(list.id);
    expect(first.map((i) => i.sectionId)).to.deep.equal([section('Pantry'), null]);
    // Moving a copied item is a placement: the next copy follows it.
    await api('PATCH', `/lists/${list.id}/items/${first[0].id}`, { sectionId: section('Snacks') });
    expect((await copy(list.id)).map((i) => i.sectionId)).to.deep.equal([section('Snacks'), null]);
    // A list of another store of the family does not inherit it.
    const other = (await api('POST', '/stores', { name: 'Corner shop' })).body;
    const otherList = (await api('POST', '/lists', { name: 'Corner', storeId: other.id })).body;
    expect((await copy(otherList.id)).map((i) => i.sectionId)).to.deep.equal([null, null]);
  });

  it('keeps one live memory row per store and product, version-stamped', async () => {
    const { app, family, api, store, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Rice');
    await api('POST', items, { name: 'Rice', productId, sectionId: section('Pantry') });
    await api('POST', items, { name: 'Rice', productId, sectionId: section('Snacks') });
    const live = () =>
      app.deps.db('product_store_sections').where({ family_id: family.familyId, store_id: store.id, deleted: false });
    const [moved] = await live();
    // Placed where the store already remembers it: the memory is left as it is (not re-stamped).
    await api('POST', items, { name: 'Rice', productId, sectionId: section('Snacks') });
    const rows = await live();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ product_id: productId, section_id: section('Snacks') });
    expect(Number(rows[0].version)).to.be.greaterThan(0);
    expect(rows[0]).to.deep.equal(moved);
  });

  it('a memory forgotten with its section comes back, version-stamped, when the product is placed again', async () => {
    const { app, family, api, store, items, section } = await setup();
    const productId = await seedGlobalProduct(app, 'Oat milk');
    const deli = section('Deli');
    await api('POST', items, { name: 'Oat milk', productId, sectionId: deli });
    // Another product's memory, which nothing below may touch.
    const riceId = await seedGlobalProduct(app, 'Rice');
    await api('POST', items, { name: 'Rice', productId: riceId, sectionId: section('Pantry') });
    const rice = () =>
      app.deps.db('product_store_sections').where({ family_id: family.familyId, product_id: riceId }).first();
    const riceBefore = await rice();
    const [before] = await app.deps
      .db('product_store_sections')
      .where({ family_id: family.familyId, store_id: store.id, product_id: productId });
    // Deleting the section forgets the placement: the next item of that product has none.
    expect((await api('DELETE', `/stores/${store.id}/sections/${deli}`)).status).to.equal(204);
    const forgotten = await api('POST', items, { name: 'Oat milk', productId });
    expect(forgotten.body.sectionId).to.equal(null);
    // Placed again: the same memory document (its id is derived from store and product, as the
    // SDK derives it offline) comes back with a newer version, and the next item follows it.
    await api('PATCH', `${items}/${forgotten.body.id}`, { sectionId: section('Frozen') });
    const rows = await app.deps
      .db('product_store_sections')
      .where({ family_id: family.familyId, store_id: store.id, product_id: productId });
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ id: before.id, section_id: section('Frozen'), deleted: false });
    expect(Number(rows[0].version)).to.be.greaterThan(Number(before.version));
    expect((await api('POST', items, { name: 'Oat milk', productId })).body.sectionId).to.equal(section('Frozen'));
    expect(await rice()).to.deep.equal(riceBefore);
  });
});
