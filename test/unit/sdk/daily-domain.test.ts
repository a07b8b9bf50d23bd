// The SDK's domain layer for the daily loop (api-contract §10), offline on RxDB's memory storage
// with no server: placement of new items (explicit → remembered → by category → none, memory
// written by an explicit placement only), categories of default and added sections and of
// products (a global product's override too), `suggestions$` as it changes, clear checked and
// restore many, recipe copies scaled and merged. That the server answers the same is the
// parity property test (test/e2e/sdk/parity.test.ts).
import { expect } from 'chai';
import crypto from 'node:crypto';
import { firstValueFrom } from 'rxjs';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { FamilyClientError, newDoc } from '@family-shopping/client';
import {
  DEFAULT_SECTIONS,
  DEFAULT_SECTION_CATEGORIES,
  RefusedRows,
  type Suggestion,
} from '@family-shopping/client/protocol';
import { openFamilyDatabase, type FamilyDatabase } from '../../../client-sdk/src/database.js';
import { createDomain, type Domain } from '../../../client-sdk/src/domain/index.js';

const USER = '00000000-0000-4000-8000-0000000000a1';

/** Resolves once `condition` holds (RxDB's query results arrive asynchronously); fails after 5 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; condition() === false; i++) {
    if (i > 500) throw new Error('the observable never emitted the expected value');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function refusal(p: Promise<unknown>): Promise<FamilyClientError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof FamilyClientError) return err;
    throw err;
  }
  throw new Error('expected a FamilyClientError');
}

describe('SDK domain: the daily loop offline', () => {
  let db: FamilyDatabase;
  let d: Domain;

  beforeEach(async () => {
    db = await openFamilyDatabase(
      `daily-${crypto.randomUUID().slice(0, 8)}`,
      getRxStorageMemory(),
      new RefusedRows(),
      false,
    );
    d = createDomain(db, () => ({ userId: USER, role: 'admin' }));
  });
  afterEach(async () => {
    await db.remove();
  });

  const memoryRows = async () => (await db.sectionMemory.find().exec()).length;

  it('gives a new store’s default sections their categories, and places items by them', async () => {
    const store = await d.stores.create({ name: 'Corner shop' });
    const own = (await db.sections.find({ selector: { storeId: store.id } }).exec())
      .map((s) => s.toJSON())
      .sort((a, b) => a.position - b.position);
    expect(own.map((s) => [s.name, s.category])).to.deep.equal(
      DEFAULT_SECTIONS.map((name, i) => [name, DEFAULT_SECTION_CATEGORIES[i]]),
    );
    const dairy = own.find((s) => s.category === 'dairy')!;
    const produce = own.find((s) => s.category === 'produce')!;

    const milk = await d.products.create({ name: 'Milk', category: 'dairy' });
    const stone = await d.products.create({ name: 'Stone' });
    const list = await d.lists.create({ name: 'Weekly', storeId: store.id });
    const loose = await d.lists.create({ name: 'No store' });

    // By category: no memory written.
    expect((await d.items.add(list.id, { familyProductId: milk.id })).sectionId).to.equal(dairy.id);
    expect(await memoryRows()).to.equal(0);
    // No category, no store, no product: none.
    expect((await d.items.add(list.id, { familyProductId: stone.id })).sectionId).to.equal(null);
    expect((await d.items.add(loose.id, { familyProductId: milk.id })).sectionId).to.equal(null);
    expect((await d.items.add(list.id, { name: 'Milk' })).sectionId).to.equal(null);

    // A section of the same category first in walking order takes the next one.
    const fridge = await d.sections.add(store.id, { name: 'Fridge', position: 0, category: 'dairy' });
    expect(fridge.category).to.equal('dairy');
    expect((await d.items.add(list.id, { familyProductId: milk.id })).sectionId).to.equal(fridge.id);
    // Recategorised: the placement follows.
    await d.sections.update(store.id, fridge.id, { category: null });
    expect((await d.items.add(list.id, { familyProductId: milk.id })).sectionId).to.equal(dairy.id);
    expect(await memoryRows()).to.equal(0);

    // Explicit: remembered, and the memory wins over the category from then on.
    expect((await d.items.add(list.id, { familyProductId: milk.id, sectionId: produce.id })).sectionId).to.equal(
      produce.id,
    );
    expect(await memoryRows()).to.equal(1);
    expect((await d.items.add(list.id, { familyProductId: milk.id })).sectionId).to.equal(produce.id);

    // The product's category follows its update.
    await d.products.update(stone.id, { category: 'produce' });
    expect((await d.items.add(list.id, { familyProductId: stone.id })).sectionId).to.equal(produce.id);
    expect(await memoryRows()).to.equal(1);
  });

  it('accepts a section’s name, category or both, and refuses neither', async () => {
    const store = await d.stores.create({ name: 'Market' });
    const s = await d.sections.add(store.id, { name: 'Aisle 9' });
    expect(s.category).to.equal(null);
    expect((await d.sections.update(store.id, s.id, { category: 'snacks' })).category).to.equal('snacks');
    const both = await d.sections.update(store.id, s.id, { name: 'Treats', category: 'pantry' });
    expect([both.name, both.category]).to.deep.equal(['Treats', 'pantry']);
    expect((await d.sections.rename(store.id, s.id, 'Sweets')).category).to.equal('pantry');
    const err = await refusal(d.sections.update(store.id, s.id, {}));
    expect(err.code).to.equal('validation_failed');
    expect(
      (await refusal(d.sections.update(store.id, s.id, { category: 'toys' as never }))).errors?.[0]?.path,
    ).to.equal('category');
  });

  it('overrides a global product’s category, and drops the override when it matches again', async () => {
    const global = newDoc('products', { kind: 'global', name: 'Butter', category: 'dairy' });
    await db.products.insert(global);
    const changed = await d.products.update(global.id, { category: 'frozen' });
    expect([changed.category, changed.overridden]).to.deep.equal(['frozen', true]);
    const back = await d.products.update(global.id, { category: 'dairy' });
    expect([back.category, back.overridden]).to.deep.equal(['dairy', false]);
  });

  it('suggests what the family added recently and is not on the list, as the items change', async () => {
    const bread = await d.products.create({ name: 'Bread', category: 'bakery' });
    const week1 = await d.lists.create({ name: 'Week 1' });
    const week2 = await d.lists.create({ name: 'Week 2' });
    await d.items.add(week1.id, { familyProductId: bread.id, quantity: 1 });
    await d.items.add(week1.id, { name: 'Eggs', quantity: 6 });
    const late = await d.items.add(week1.id, { name: ' eggs ', quantity: 12, quantityNote: 'large' });
    await d.items.remove(week1.id, late.id); // removed items count too

    // One subscription sees every change of the items.
    const emitted: Suggestion[][] = [];
    const sub = d.lists.suggestions$(week2.id).subscribe((v) => emitted.push(v));
    const next = (names: string[]) => until(() => emitted.some((v) => v.map((x) => x.name).join() === names.join()));
    try {
      await next(['eggs', 'Bread']);
      expect(emitted.at(-1)!.map((s) => [s.name, s.count, s.quantity, s.quantityNote])).to.deep.equal([
        ['eggs', 2, 12, 'large'],
        ['Bread', 1, 1, null],
      ]);
      await d.items.add(week2.id, { name: 'EGGS' });
      await next(['Bread']);
      await d.items.add(week2.id, { familyProductId: bread.id });
      await next([]);
    } finally {
      sub.unsubscribe();
    }
    expect((await firstValueFrom(d.lists.suggestions$(week1.id, { limit: 1 }))).length).to.equal(0);
    expect(await firstValueFrom(d.lists.suggestions$('00000000-0000-4000-8000-000000000000'))).to.deep.equal([]);
    for (const limit of [0, 51, 1.5])
      expect(() => d.lists.suggestions$(week2.id, { limit })).to.throw(FamilyClientError);
  });

  it('clears the checked items and restores them in one call; a foreign id restores nothing', async () => {
    const list = await d.lists.create({ name: 'Shop' });
    const other = await d.lists.create({ name: 'Other' });
    const [a, b, c] = [
      await d.items.add(list.id, { name: 'A' }),
      await d.items.add(list.id, { name: 'B' }),
      await d.items.add(list.id, { name: 'C' }),
    ];
    const foreign = await d.items.add(other.id, { name: 'F' });
    await d.items.toggle(list.id, a!.id);
    await d.items.toggle(list.id, c!.id);
    await d.items.toggle(other.id, foreign.id);

    const cleared = await d.lists.clearChecked(list.id);
    expect(cleared.map((i) => i.id)).to.deep.equal([a!.id, c!.id]);
    for (const i of cleared)
      expect([i.removedByUserId, i.removedAt != null, i.checked]).to.deep.equal([USER, true, true]);
    expect(await d.lists.clearChecked(list.id)).to.deep.equal([]);
    expect((await db.items.findOne(foreign.id).exec())!.removedAt).to.equal(null);

    const err = await refusal(d.items.restoreMany(list.id, [a!.id, foreign.id]));
    expect([err.code, err.errors?.[0]?.path]).to.deep.equal(['validation_failed', 'itemIds.1']);
    expect((await db.items.findOne(a!.id).exec())!.removedAt).to.not.equal(null);
    expect((await refusal(d.items.restoreMany(list.id, []))).code).to.equal('validation_failed');

    const untouched = (await db.items.findOne(b!.id).exec())!.toJSON();
    const restored = await d.items.restoreMany(list.id, [c!.id, b!.id, a!.id]);
    expect(restored.map((i) => [i.id, i.removedAt, i.removedByUserId])).to.deep.equal([
      [c!.id, null, null],
      [b!.id, null, null],
      [a!.id, null, null],
    ]);
    expect(restored[1]!.updatedAt, 'an active item stays unchanged').to.equal(untouched.updatedAt);
  });

  it('copies a recipe scaled and merged; refuses servings of a recipe without', async () => {
    const onion = await d.products.create({ name: 'Onion', category: 'produce' });
    const stock = await d.products.create({ name: 'Stock' });
    const unit = await d.units.create({ name: 'Litre', abbreviation: 'lt', category: 'Volume' });
    const store = await d.stores.create({ name: 'Shop' });
    const list = await d.lists.create({ name: 'Dinner', storeId: store.id });
    const soup = await d.recipes.create({
      name: 'Soup',
      servings: 4,
      ingredients: [
        { familyProductId: onion.id, quantity: 1 },
        { familyProductId: stock.id, quantity: 0.333, familyUnitOfMeasureId: unit.id },
        { familyProductId: onion.id, quantity: 2, isApproximate: true },
        { name: 'Salt' },
      ],
    });
    const plain = await d.recipes.create({ name: 'Toast', ingredients: [{ name: 'Bread', quantity: 2 }] });

    // Nothing earlier on the list: two ingredients of one product make two items (no merge into
    // an item the copy added); scaled from 4 to 6 servings, half-up to 3 decimals.
    const first = await d.recipes.copyToList(soup.id, { listId: list.id, servings: 6, merge: true });
    expect(first.merged).to.deep.equal([]);
    expect(first.items.map((i) => [i.name, i.quantity, i.isApproximate])).to.deep.equal([
      ['Onion', 1.5, false],
      ['Stock', 0.5, false],
      ['Onion', 3, true],
      ['Salt', null, false],
    ]);
    const produce = (await db.sections.find({ selector: { storeId: store.id, category: 'produce' } }).exec())[0]!;
    expect(first.items[0]!.sectionId, 'placed by category').to.equal(produce.id);

    // Merged into the earlier items: both onions into the oldest one, stock into its own.
    const second = await d.recipes.copyToList(soup.id, { listId: list.id, merge: true });
    expect(second.items.map((i) => i.name)).to.deep.equal(['Salt']);
    expect(second.merged.map((i) => [i.id, i.quantity, i.isApproximate])).to.deep.equal([
      [first.items[0]!.id, 4.5, true],
      [first.items[1]!.id, 0.833, false],
    ]);
    // A checked item is no target: the next oldest onion is; merge: false adds.
    await d.items.toggle(list.id, first.items[0]!.id);
    const onionIngredient = (await db.ingredients.find({ selector: { recipeId: soup.id, position: 0 } }).exec())[0]!;
    const third = await d.recipes.copyToList(soup.id, {
      listId: list.id,
      merge: true,
      ingredientIds: [onionIngredient.id],
    });
    expect(third.items).to.deep.equal([]);
    expect(third.merged.map((i) => [i.id, i.quantity])).to.deep.equal([[first.items[2]!.id, 4]]);
    const fourth = await d.recipes.copyToList(soup.id, { listId: list.id, ingredientIds: [onionIngredient.id] });
    expect([fourth.items.length, fourth.merged.length]).to.deep.equal([1, 0]);
    const count = (await db.items.find().exec()).length;

    const err = await refusal(d.recipes.copyToList(plain.id, { listId: list.id, servings: 2 }));
    expect([err.code, err.errors?.[0]?.path]).to.deep.equal(['recipe_servings_unset', 'servings']);
    expect((await db.items.find().exec()).length, 'nothing written').to.equal(count);
    expect((await d.recipes.copyToList(plain.id, { listId: list.id })).items[0]!.quantity).to.equal(2);
    expect((await refusal(d.recipes.copyToList(soup.id, { listId: list.id, servings: 101 }))).code).to.equal(
      'validation_failed',
    );

    // Quantities over the limit refuse the whole copy, nothing written (REST: one transaction).
    const big = await d.recipes.create({
      name: 'Feast',
      servings: 1,
      ingredients: [
        { familyProductId: stock.id, quantity: 1, familyUnitOfMeasureId: unit.id },
        { name: 'Rice', quantity: 999_999_999 },
      ],
    });
    const party = await d.lists.create({ name: 'Party' });
    await d.items.add(party.id, { familyProductId: stock.id, quantity: 999_999_999, familyUnitOfMeasureId: unit.id });
    const before = (await db.items.find().exec()).map((i) => i.toJSON());
    const over = await refusal(d.recipes.copyToList(big.id, { listId: party.id, servings: 2 }));
    expect([over.code, over.errors?.[0]?.path]).to.deep.equal(['validation_failed', 'servings']);
    const sum = await refusal(d.recipes.copyToList(big.id, { listId: party.id, merge: true }));
    expect([sum.code, sum.errors?.[0]?.path]).to.deep.equal(['validation_failed', 'merge']);
    expect(
      (await db.items.find().exec()).map((i) => i.toJSON()),
      'nothing written',
    ).to.deep.equal(before);
  });
});
