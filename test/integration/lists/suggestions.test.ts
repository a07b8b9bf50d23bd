// GET /api/lists/{listId}/suggestions (api-contract §10): the family's items of the last 180 days
// (removed ones too) grouped by product or by trimmed case-insensitive name, without the groups
// that have an active item on the list, most often added first. Items are made over REST; their
// `createdAt` is then set in the database to put them at known times (no endpoint backdates).
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember, type TestFamily } from '../../helpers/factories.js';
import { updateVersioned } from '../../helpers/versioned.js';
import type { RunningServer } from '../../../server/server.js';
import { client, globalUnitId, seedFamilyUnit, seedGlobalProduct, uuid, type Call } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;
const SUGGESTION_KEYS = [
  'name',
  'productId',
  'familyProductId',
  'quantity',
  'unitOfMeasureId',
  'familyUnitOfMeasureId',
  'isApproximate',
  'quantityNote',
  'count',
  'lastAddedAt',
];

interface World {
  app: RunningServer;
  family: TestFamily;
  api: Call;
  list: { id: string };
  other: { id: string };
  /** Adds an item to `listId` over REST and sets its createdAt to `at` (and the columns of `raw`). */
  add(listId: string, body: Record<string, unknown>, at: Date, raw?: Record<string, unknown>): Promise<any>;
  suggestions(query?: string): Promise<any>;
}

async function world(): Promise<World> {
  const app = await testApp();
  const family = await makeFamily(app);
  const api = client(app, await makeMember(app, family));
  const list = (await api('POST', '/lists', { name: 'This week' })).body;
  const other = (await api('POST', '/lists', { name: 'Last week' })).body;
  const add = async (listId: string, body: Record<string, unknown>, at: Date, raw: Record<string, unknown> = {}) => {
    const res = await api('POST', `/lists/${listId}/items`, body);
    expect(res.status, res.text).to.equal(201);
    await updateVersioned(app, family.familyId, 'shopping_list_items', { id: res.body.id }, { ...raw, created_at: at });
    return { ...res.body, createdAt: at.toISOString() };
  };
  const suggestions = async (query = '') => {
    const res = await api('GET', `/lists/${list.id}/suggestions${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  return { app, family, api, list, other, add, suggestions };
}

const ago = (days: number, ms = 0) => new Date(Date.now() - days * DAY - ms);

describe('list suggestions (§10)', () => {
  it('groups by product (either id) and by trimmed case-insensitive name, counts removed items, takes fields from the newest', async () => {
    const { app, family, api, other, add, suggestions } = await world();
    const milk = await seedGlobalProduct(app, `Milk ${uuid()}`);
    const oats = (await api('POST', '/products', { name: `Oats ${uuid()}` })).body.id as string;
    const litre = await globalUnitId(app, 'liter');
    const bag = await seedFamilyUnit(app, family.familyId);

    // Milk (global product): three items, one removed; the newest has every field set.
    await add(other.id, { name: 'Milk', productId: milk, quantity: 1 }, ago(30));
    const removed = await add(other.id, { name: 'milk', productId: milk }, ago(20));
    expect((await api('DELETE', `/lists/${other.id}/items/${removed.id}`)).status).to.equal(200);
    const newestMilk = await add(
      other.id,
      {
        name: 'Milk 2%',
        productId: milk,
        quantity: 2.5,
        unitOfMeasureId: litre,
        isApproximate: true,
        quantityNote: 'the blue one',
      },
      ago(10),
    );
    // Oats (family product): two items; a name-only "Oats" is a group of its own.
    await add(other.id, { familyProductId: oats, name: 'Oats', familyUnitOfMeasureId: bag, quantity: 1 }, ago(5));
    const newestOats = await add(other.id, { familyProductId: oats, name: 'Rolled oats' }, ago(4));
    const oatsByName = await add(other.id, { name: 'Oats' }, ago(3));
    // Bread by name: "  Bread " (REST trims names; a row may hold one untrimmed), "bread" and
    // "BREAD" are one group; the newest spelling wins.
    await add(other.id, { name: 'Bread' }, ago(9), { name: '  Bread ' });
    await add(other.id, { name: 'bread' }, ago(8));
    const newestBread = await add(other.id, { name: 'BREAD' }, ago(7));

    const got = await suggestions();
    for (const s of got) expect(Object.keys(s)).to.deep.equal(SUGGESTION_KEYS);
    expect(got).to.deep.equal([
      // count 3: Bread is newer than Milk.
      {
        name: 'BREAD',
        productId: null,
        familyProductId: null,
        quantity: null,
        unitOfMeasureId: null,
        familyUnitOfMeasureId: null,
        isApproximate: false,
        quantityNote: null,
        count: 3,
        lastAddedAt: newestBread.createdAt,
      },
      {
        name: 'Milk 2%',
        productId: milk,
        familyProductId: null,
        quantity: 2.5,
        unitOfMeasureId: litre,
        familyUnitOfMeasureId: null,
        isApproximate: true,
        quantityNote: 'the blue one',
        count: 3,
        lastAddedAt: newestMilk.createdAt,
      },
      // count 2, then count 1.
      {
        name: 'Rolled oats',
        productId: null,
        familyProductId: oats,
        quantity: null,
        unitOfMeasureId: null,
        familyUnitOfMeasureId: null,
        isApproximate: false,
        quantityNote: null,
        count: 2,
        lastAddedAt: newestOats.createdAt,
      },
      {
        name: 'Oats',
        productId: null,
        familyProductId: null,
        quantity: null,
        unitOfMeasureId: null,
        familyUnitOfMeasureId: null,
        isApproximate: false,
        quantityNote: null,
        count: 1,
        lastAddedAt: oatsByName.createdAt,
      },
    ]);
  });

  it('orders by count, then newest, then name', async () => {
    const { add, other, suggestions } = await world();
    const same = ago(2);
    await add(other.id, { name: 'Cherries' }, same);
    await add(other.id, { name: 'apples' }, same);
    await add(other.id, { name: 'Bananas' }, same);
    await add(other.id, { name: 'Dates' }, ago(1));
    await add(other.id, { name: 'Eggs' }, ago(6));
    await add(other.id, { name: 'Eggs' }, ago(5));
    // Eggs (2); Dates (newest of the ones); then the same time by name (code point order).
    expect((await suggestions()).map((s: any) => [s.name, s.count])).to.deep.equal([
      ['Eggs', 2],
      ['Dates', 1],
      ['Bananas', 1],
      ['Cherries', 1],
      ['apples', 1],
    ]);
  });

  it('leaves out groups with an active item on the list, checked or not; a removed one does not', async () => {
    const { app, api, list, other, add, suggestions } = await world();
    const butter = await seedGlobalProduct(app, `Butter ${uuid()}`);
    const jam = await seedGlobalProduct(app, `Jam ${uuid()}`);
    for (const name of ['Butter', 'Jam', 'Tea', 'Coffee', 'Rice', 'Soap']) {
      const product = name === 'Butter' ? { productId: butter } : name === 'Jam' ? { productId: jam } : {};
      await add(other.id, { name, ...product }, ago(40));
    }
    // On the list: butter under another name (same product), " TEA" (same name), coffee checked,
    // rice removed, and an old soap (active items count whatever their age).
    await api('POST', `/lists/${list.id}/items`, { name: 'Salted butter', productId: butter });
    await api('POST', `/lists/${list.id}/items`, { name: ' TEA' });
    const coffee = (await api('POST', `/lists/${list.id}/items`, { name: 'coffee' })).body;
    expect((await api('POST', `/lists/${list.id}/items/${coffee.id}/toggle`)).body.checked).to.equal(true);
    const rice = (await api('POST', `/lists/${list.id}/items`, { name: 'Rice' })).body;
    await api('DELETE', `/lists/${list.id}/items/${rice.id}`);
    await add(list.id, { name: 'soap' }, ago(400));

    expect((await suggestions()).map((s: any) => [s.name, s.count])).to.deep.equal([
      ['Rice', 2], // the removed item on the list counts and does not hide the group
      ['Jam', 1],
    ]);
    // Another list's suggestions do not mind this list's items (the soap of 400 days ago is
    // too old to count there).
    const third = (await api('POST', '/lists', { name: 'Third' })).body;
    const res = await api('GET', `/lists/${third.id}/suggestions`);
    expect(res.body.map((s: any) => [s.name, s.count])).to.deep.equal([
      ['Rice', 2],
      ['coffee', 2],
      ['TEA', 2],
      ['Salted butter', 2],
      ['Soap', 1],
      ['Jam', 1],
    ]);
  });

  it('reads the last 180 days only, and never a deleted list’s items', async () => {
    const { api, other, add, suggestions } = await world();
    await add(other.id, { name: 'Flour' }, ago(179));
    await add(other.id, { name: 'Flour' }, ago(181));
    await add(other.id, { name: 'Sugar' }, ago(200));
    const gone = (await api('POST', '/lists', { name: 'Gone' })).body;
    await add(gone.id, { name: 'Yeast' }, ago(1));
    await add(gone.id, { name: 'Flour' }, ago(1));
    expect((await suggestions()).map((s: any) => s.name)).to.deep.equal(['Flour', 'Yeast']);
    expect((await api('DELETE', `/lists/${gone.id}`)).status).to.equal(204);
    const after = await suggestions();
    expect(after.map((s: any) => [s.name, s.count])).to.deep.equal([['Flour', 1]]);
    expect(Date.parse(after[0].lastAddedAt)).to.be.below(Date.now() - 178 * DAY);
  });

  it('answers `limit` suggestions: 20 by default, at most 50; another value is 400', async () => {
    const { api, list, other, suggestions } = await world();
    for (let i = 0; i < 52; i++) {
      expect(
        (await api('POST', `/lists/${other.id}/items`, { name: `Thing ${String(i).padStart(2, '0')}` })).status,
      ).to.equal(201);
    }
    expect(await suggestions()).to.have.length(20);
    expect(await suggestions('?limit=1')).to.have.length(1);
    expect(await suggestions('?limit=50')).to.have.length(50);
    for (const bad of ['0', '51', '-1', '1.5', 'ten', '', '20&limit=21']) {
      const res = await api('GET', `/lists/${list.id}/suggestions?limit=${bad}`);
      expect(res.status, bad).to.equal(400);
      expect(res.body.code, bad).to.equal('validation_failed');
      expect(
        res.body.errors.map((e: any) => e.path),
        bad,
      ).to.deep.equal(['query.limit']);
    }
  });

  it("never shows or counts another family's items, and is 404 for a list that is not the family's", async () => {
    const { app, family, api, list, other, add, suggestions } = await world();
    const shared = await seedGlobalProduct(app, `Shared ${uuid()}`);
    const ours = await add(other.id, { name: 'Ours', productId: shared }, ago(3));

    const them = await makeFamily(app);
    const theirs = client(app, them.admin);
    const theirList = (await theirs('POST', '/lists', { name: 'Theirs' })).body;
    for (let i = 0; i < 3; i++)
      await theirs('POST', `/lists/${theirList.id}/items`, { name: 'Theirs', productId: shared });
    await theirs('POST', `/lists/${theirList.id}/items`, { name: 'Only theirs' });

    expect(await suggestions()).to.deep.equal([
      {
        name: 'Ours',
        productId: shared,
        familyProductId: null,
        quantity: null,
        unitOfMeasureId: null,
        familyUnitOfMeasureId: null,
        isApproximate: false,
        quantityNote: null,
        count: 1,
        lastAddedAt: ours.createdAt,
      },
    ]);
    // Their list has their items only (ours never appear there either).
    const theirSuggestions = await theirs('GET', `/lists/${theirList.id}/suggestions`);
    expect(theirSuggestions.body).to.deep.equal([]);
    await theirs('POST', '/lists', { name: 'Another' }).then(async (r) => {
      const names = (await theirs('GET', `/lists/${r.body.id}/suggestions`)).body.map((s: any) => [s.name, s.count]);
      expect(names).to.deep.equal([
        ['Theirs', 3],
        ['Only theirs', 1],
      ]);
    });

    for (const id of [theirList.id, uuid(), 'not-a-uuid']) {
      const res = await api('GET', `/lists/${id}/suggestions`);
      expect(res.status, id).to.equal(404);
      expect(res.body.code).to.equal('not_found');
      if (id !== 'not-a-uuid') expect(res.body.detail).to.equal('List not found');
    }
    // A deleted list is gone too.
    const doomed = (await api('POST', '/lists', { name: 'Doomed' })).body;
    await api('DELETE', `/lists/${doomed.id}`);
    expect((await api('GET', `/lists/${doomed.id}/suggestions`)).status).to.equal(404);
    // Unauthenticated: 401.
    expect(
      (await client(app, { ...family.admin, token: 'nope' })('GET', `/lists/${list.id}/suggestions`)).status,
    ).to.equal(401);
  });
});
