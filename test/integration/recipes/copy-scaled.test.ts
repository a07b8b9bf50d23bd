// POST /api/recipes/{recipeId}/copy-to-list with `servings` and `merge` (api-contract §10):
// quantities scaled to other servings (half-up to 3 decimals), and ingredients added to the
// matching active unchecked items that were on the list before the copy.
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember, type TestFamily } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import {
  bumps,
  captureEvents,
  client,
  globalUnitId,
  seedFamilyUnit,
  seedGlobalProduct,
  uuid,
  type Call,
} from '../lists/helpers.js';

interface World {
  app: RunningServer;
  family: TestFamily;
  api: Call;
  list: { id: string };
  recipe(servings: number | null, ingredients: Array<Record<string, unknown>>): Promise<any>;
  copy(recipeId: string, body?: Record<string, unknown>): Promise<any>;
  items(): Promise<any[]>;
}

async function world(): Promise<World> {
  const app = await testApp();
  const family = await makeFamily(app);
  const api = client(app, await makeMember(app, family));
  const list = (await api('POST', '/lists', { name: 'Dinner' })).body;
  return {
    app,
    family,
    api,
    list,
    recipe: async (servings, ingredients) => {
      const res = await api('POST', '/recipes', { name: `Recipe ${uuid()}`, servings, ingredients });
      expect(res.status, res.text).to.equal(201);
      return res.body;
    },
    copy: (recipeId, body = {}) => api('POST', `/recipes/${recipeId}/copy-to-list`, { listId: list.id, ...body }),
    // The active items of the list, as its detail shows them.
    items: async () => (await api('GET', `/lists/${list.id}`)).body.groups.flatMap((g: any) => g.items),
  };
}

describe('copy recipe to list: servings and merge (§10)', () => {
  it('scales every quantity to the servings asked, rounded half-up to 3 decimals', async () => {
    const { copy, recipe } = await world();
    const half = await recipe(
      2,
      [0.001, 0.003, 0.005, 1, null, 999.999].map((quantity, i) => ({ name: `Half ${i}`, quantity })),
    );
    let res = await copy(half.id, { servings: 1 });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.merged).to.deep.equal([]);
    // 0.0005 → 0.001, 0.0015 → 0.002, 0.0025 → 0.003 (half-up, not to even), 499.9995 → 500.
    expect(res.body.items.map((i: any) => i.quantity)).to.deep.equal([0.001, 0.002, 0.003, 0.5, null, 500]);

    const thirds = await recipe(
      3,
      [1, 2, 0.1, 1.234].map((quantity, i) => ({ name: `Third ${i}`, quantity })),
    );
    res = await copy(thirds.id, { servings: 1 });
    expect(res.body.items.map((i: any) => i.quantity)).to.deep.equal([0.333, 0.667, 0.033, 0.411]);
    res = await copy(thirds.id, { servings: 100 });
    expect(res.body.items.map((i: any) => i.quantity)).to.deep.equal([33.333, 66.667, 3.333, 41.133]);

    // Decimals binary floating point gets wrong: 0.35 × 6/4 = 0.525, 2.675 × 2/4 = 1.3375 → 1.338.
    const quarter = await recipe(
      4,
      [0.35, 2.675].map((quantity, i) => ({ name: `Quarter ${i}`, quantity })),
    );
    res = await copy(quarter.id, { servings: 6 });
    expect(res.body.items.map((i: any) => i.quantity)).to.deep.equal([0.525, 4.013]);
    res = await copy(quarter.id, { servings: 2 });
    expect(res.body.items.map((i: any) => i.quantity)).to.deep.equal([0.175, 1.338]);
  });

  it('copies verbatim when servings are absent or equal to the recipe’s', async () => {
    const { app, family, copy, recipe } = await world();
    const gram = await globalUnitId(app, 'gram');
    const bag = await seedFamilyUnit(app, family.familyId);
    const flour = await seedGlobalProduct(app, `Flour ${uuid()}`);
    const r = await recipe(4, [
      { name: 'Flour', quantity: 0.333, unitOfMeasureId: gram, productId: flour, quantityNote: 'sifted' },
      { name: 'Nuts', quantity: 2.675, familyUnitOfMeasureId: bag, isApproximate: true },
      { name: 'Salt' },
    ]);
    const fields = (i: any) => [
      i.name,
      i.quantity,
      i.unitOfMeasureId,
      i.familyUnitOfMeasureId,
      i.isApproximate,
      i.quantityNote,
      i.productId,
      i.familyProductId,
    ];
    const expected = r.ingredients.map(fields);
    for (const body of [{}, { servings: 4 }, { servings: 4, merge: false }]) {
      const res = await copy(r.id, body);
      expect(res.status, JSON.stringify(body)).to.equal(201);
      expect(res.body.items.map(fields), JSON.stringify(body)).to.deep.equal(expected);
    }
    // Scaled, every other field stays as it is.
    const scaled = await copy(r.id, { servings: 8 });
    expect(scaled.body.items.map(fields)).to.deep.equal(
      expected.map((f: any[]) => [f[0], f[1] == null ? null : f[1] * 2, ...f.slice(2)]),
    );
  });

  it('refuses servings for a recipe without servings (recipe_servings_unset), and bad servings or merge, changing nothing', async () => {
    const { app, family, api, list, copy, recipe, items } = await world();
    const loose = await recipe(null, [{ name: 'Rice', quantity: 1 }]);
    const holder = (await api('POST', `/lists/${list.id}/items`, { name: 'Rice', quantity: 1 })).body;
    for (const body of [{ servings: 2 }, { servings: 2, merge: true }]) {
      const { result, delta } = await bumps(app, family.familyId, () => copy(loose.id, body));
      expect(result.status).to.equal(400);
      expect(result.body.code).to.equal('recipe_servings_unset');
      expect(result.body.detail).to.equal('The recipe has no servings to scale from');
      expect(result.body.errors).to.deep.equal([
        { path: 'body.servings', message: 'the recipe has no servings to scale from' },
      ]);
      expect(delta).to.equal(0);
    }
    expect(await items()).to.deep.equal([holder]);
    // Without servings it copies as before.
    expect((await copy(loose.id)).body.items.map((i: any) => i.quantity)).to.deep.equal([1]);

    const r = await recipe(2, [{ name: 'Oil', quantity: 1 }]);
    const before = await items();
    for (const [body, field] of [
      [{ servings: 0 }, 'body.servings'],
      [{ servings: 101 }, 'body.servings'],
      [{ servings: 1.5 }, 'body.servings'],
      [{ servings: '2' }, 'body.servings'],
      [{ servings: null }, 'body.servings'],
      [{ merge: 'yes' }, 'body.merge'],
      [{ merge: null }, 'body.merge'],
    ] as const) {
      const { result, delta } = await bumps(app, family.familyId, () => copy(r.id, body));
      expect(result.status, JSON.stringify(body)).to.equal(400);
      expect(result.body.code).to.equal('validation_failed');
      expect(result.body.errors.map((e: any) => e.path)).to.deep.equal([field]);
      expect(delta).to.equal(0);
    }
    expect(await copy(r.id, { servings: 100 })).to.have.property('status', 201);
    expect((await items()).length).to.equal(before.length + 1);

    // A scaled quantity beyond the largest a quantity may be: 400, nothing written.
    const huge = await recipe(1, [{ name: 'Sand', quantity: 999_999_999 }]);
    const after = await items();
    const { result, delta } = await bumps(app, family.familyId, () => copy(huge.id, { servings: 2 }));
    expect(result.status).to.equal(400);
    expect(result.body.code).to.equal('validation_failed');
    expect(result.body.errors.map((e: any) => e.path)).to.deep.equal(['body.servings']);
    expect(delta).to.equal(0);
    expect(await items()).to.deep.equal(after);
  });

  it('merges into active unchecked items of the same product and unit that were on the list before the copy', async () => {
    const { app, family, api, list, copy, recipe } = await world();
    const gram = await globalUnitId(app, 'gram');
    const bag = await seedFamilyUnit(app, family.familyId);
    const [p, q, r, s] = await Promise.all(['P', 'Q', 'R', 'S'].map((n) => seedGlobalProduct(app, `${n} ${uuid()}`)));
    const fp = (await api('POST', '/products', { name: `Family ${uuid()}` })).body.id;
    const add = async (body: Record<string, unknown>) => {
      const res = await api('POST', `/lists/${list.id}/items`, body);
      expect(res.status, res.text).to.equal(201);
      return res.body;
    };
    const x = await add({ name: 'X', productId: p!, unitOfMeasureId: gram, quantity: 1, quantityNote: 'organic' });
    const y = await add({ name: 'Y', productId: p!, quantity: 2 });
    const z = await add({ name: 'Z', productId: q!, unitOfMeasureId: gram });
    const w = await add({ name: 'W', productId: r!, unitOfMeasureId: gram, quantity: 1 });
    await api('POST', `/lists/${list.id}/items/${w.id}/toggle`);
    const v = await add({ name: 'V', productId: s!, unitOfMeasureId: gram, quantity: 1 });
    await api('DELETE', `/lists/${list.id}/items/${v.id}`);
    const t = await add({ name: 'T', familyProductId: fp, unitOfMeasureId: gram, quantity: 1, isApproximate: true });
    const x2 = await add({ name: 'X later', productId: p!, unitOfMeasureId: gram, quantity: 5 });
    const salt = await add({ name: 'Salt', quantity: 1 });
    const before = Object.fromEntries(
      (await api('GET', `/lists/${list.id}`)).body.groups.flatMap((g: any) => g.items).map((i: any) => [i.id, i]),
    );

    const rec = await recipe(2, [
      { name: 'i1', productId: p, unitOfMeasureId: gram, quantity: 2, isApproximate: true }, // → X (the oldest)
      { name: 'i2', productId: p, quantity: 0.5 }, // → Y (no unit = no unit)
      { name: 'i3', productId: p, familyUnitOfMeasureId: bag, quantity: 1 }, // other unit: new
      { name: 'i4', productId: q, unitOfMeasureId: gram, quantity: 1 }, // Z has no quantity: new
      { name: 'i5', productId: r, unitOfMeasureId: gram, quantity: 1 }, // W is checked: new
      { name: 'i6', productId: s, unitOfMeasureId: gram, quantity: 1 }, // V is removed: new
      { name: 'i7', productId: p, unitOfMeasureId: gram, quantity: 1 }, // → X again
      { name: 'Salt', quantity: 1 }, // no product: new
      { name: 'i9', productId: p, unitOfMeasureId: gram }, // no quantity: new
      { name: 'i10', familyProductId: fp, unitOfMeasureId: gram, quantity: 0.5 }, // → T
      { name: 'i11', productId: p, familyUnitOfMeasureId: bag, quantity: 2 }, // not into i3's new item
    ]);
    const events = captureEvents(app, family.familyId);
    let res: any;
    let delta = 0;
    try {
      ({ result: res, delta } = await bumps(app, family.familyId, () => copy(rec.id, { merge: true })));
    } finally {
      events.stop();
    }
    expect(res.status, res.text).to.equal(201);
    expect(delta).to.equal(1);
    expect(Object.keys(res.body)).to.deep.equal(['items', 'merged']);
    expect(res.body.items.map((i: any) => [i.name, i.quantity])).to.deep.equal([
      ['i3', 1],
      ['i4', 1],
      ['i5', 1],
      ['i6', 1],
      ['Salt', 1],
      ['i9', null],
      ['i11', 2],
    ]);
    // One write, one time: the new items follow the recipe's order by createdAt, 1 ms apart, the
    // last at the write's time (its updatedAt); none created after it was updated.
    const created = res.body.items.map((i: any) => Date.parse(i.createdAt));
    expect(created.map((t: number) => t - created.at(-1))).to.deep.equal([-6, -5, -4, -3, -2, -1, 0]);
    for (const i of res.body.items) expect(i.createdAt <= i.updatedAt, i.name).to.equal(true);
    expect(res.body.items.at(-1).createdAt).to.equal(res.body.items.at(-1).updatedAt);
    const merged = res.body.merged;
    expect(merged.map((i: any) => i.id)).to.deep.equal([x.id, y.id, t.id]);
    // Quantity summed, isApproximate true if either is, the item's note and name kept.
    expect(merged[0]).to.deep.equal({
      ...before[x.id],
      quantity: 4,
      isApproximate: true,
      updatedAt: merged[0].updatedAt,
    });
    expect(merged[0]).to.include({ quantityNote: 'organic', name: 'X' });
    expect(merged[1]).to.deep.equal({ ...before[y.id], quantity: 2.5, updatedAt: merged[1].updatedAt });
    expect(merged[2]).to.deep.equal({ ...before[t.id], quantity: 1.5, updatedAt: merged[2].updatedAt });
    expect(merged[2].isApproximate).to.equal(true);

    // The list: the merged items as answered, the others untouched.
    const detail = (await api('GET', `/lists/${list.id}`)).body.groups.flatMap((g: any) => g.items);
    const byId = Object.fromEntries(detail.map((i: any) => [i.id, i]));
    for (const m of merged) expect(byId[m.id]).to.deep.equal(m);
    for (const untouched of [z, w, x2, salt]) expect(byId[untouched.id]).to.deep.equal(before[untouched.id]);
    expect(byId[v.id]).to.equal(undefined); // still removed
    expect(detail).to.have.length(Object.keys(before).length + 7);

    // Events: a merged item is updated as a PATCH updates it (ItemUpdated, each step); new items are added.
    const updated = events.of('ItemUpdated') as any[];
    expect(updated.map((e) => [e.item.id, e.item.quantity])).to.deep.equal([
      [x.id, 3],
      [y.id, 2.5],
      [x.id, 4],
      [t.id, 1.5],
    ]);
    for (const e of updated) expect(Object.keys(e)).to.deep.equal(['type', 'listId', 'item']);
    expect(updated[2]).to.deep.equal({ type: 'ItemUpdated', listId: list.id, item: merged[0] });
    expect((events.of('ItemAdded') as any[]).map((e) => e.item)).to.deep.equal(res.body.items);
    expect(
      events.events.filter((e) => !['ItemUpdated', 'ItemAdded', 'ListProgress', 'Changed'].includes(e.type)),
    ).to.deep.equal([]);
    // A PATCH of the same field gives the same event.
    const patchEvents = captureEvents(app, family.familyId);
    try {
      const patched = (await api('PATCH', `/lists/${list.id}/items/${y.id}`, { quantity: 3 })).body;
      expect(patchEvents.of('ItemUpdated')).to.deep.equal([{ type: 'ItemUpdated', listId: list.id, item: patched }]);
    } finally {
      patchEvents.stop();
    }
  });

  it('merges scaled quantities; without merge (the default) every ingredient is a new item', async () => {
    const { app, family, api, list, copy, recipe } = await world();
    const gram = await globalUnitId(app, 'gram');
    const p = await seedGlobalProduct(app, `P ${uuid()}`);
    const item = (
      await api('POST', `/lists/${list.id}/items`, { name: 'P', productId: p, unitOfMeasureId: gram, quantity: 1 })
    ).body;
    const rec = await recipe(2, [{ name: 'P', productId: p, unitOfMeasureId: gram, quantity: 0.75 }]);

    for (const body of [{}, { merge: false }]) {
      const res = await copy(rec.id, body);
      expect(res.status).to.equal(201);
      expect(res.body.merged).to.deep.equal([]);
      expect(res.body.items).to.have.length(1);
      expect(res.body.items[0].id).to.not.equal(item.id);
    }
    // Two new items are now matching too; the oldest (the first) is the target.
    const res = await copy(rec.id, { merge: true, servings: 3 }); // 0.75 × 3/2 = 1.125
    expect(res.body.items).to.deep.equal([]);
    expect(res.body.merged.map((i: any) => [i.id, i.quantity])).to.deep.equal([[item.id, 2.125]]);

    // Up to the largest quantity, scaled or summed, is fine.
    const most = await recipe(1, [{ name: 'Most', quantity: 999_999_999.999 }]);
    expect((await copy(most.id, { servings: 1 })).body.items.map((i: any) => i.quantity)).to.deep.equal([
      999_999_999.999,
    ]);
    const top = (await api('POST', `/lists/${list.id}/items`, { name: 'Top', productId: p, quantity: 1 })).body;
    const topUp = await recipe(1, [{ name: 'Top', productId: p, quantity: 999_999_998.999 }]);
    const summed = await copy(topUp.id, { merge: true });
    expect(summed.status, summed.text).to.equal(201);
    expect(summed.body.merged.map((i: any) => [i.id, i.quantity])).to.deep.equal([[top.id, 999_999_999.999]]);

    // A sum beyond the largest quantity: 400, nothing changes.
    await api('PATCH', `/lists/${list.id}/items/${item.id}`, { quantity: 999_999_999.5 });
    const before = (await api('GET', `/lists/${list.id}`)).body;
    const { result, delta } = await bumps(app, family.familyId, () => copy(rec.id, { merge: true }));
    expect(result.status).to.equal(400);
    expect(result.body.code).to.equal('validation_failed');
    expect(result.body.errors).to.deep.equal([
      { path: 'body.merge', message: 'the quantity of P would exceed 999999999.999' },
    ]);
    expect(delta).to.equal(0);
    expect((await api('GET', `/lists/${list.id}`)).body).to.deep.equal(before);
  });
});
