// A member signs in through the SDK and starts it: the local database fills with the family's
// data (lists, items, stores with their default sections, the units and products catalogs).
import { expect } from 'chai';
import { makeFamily } from '../../helpers/factories.js';
import { FamilyApiError } from '@family-shopping/client';
import { request } from '../../helpers/app.js';
import { has, recordEvents, sdkSuite, signedInClient, waitFor } from './helpers.js';

describe('e2e SDK: sign in and initial sync', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('logs in, starts, and the local database holds the family data', async () => {
    const family = await makeFamily(sdk.app);
    const token = family.admin.token;
    const rest = async (method: string, path: string, body?: unknown) => {
      const r = await request(sdk.app, method, path, { token, body });
      expect(r.status, r.text).to.be.below(300);
      return r.body;
    };
    const store = await rest('POST', '/api/stores', { name: 'Corner shop' });
    const list = await rest('POST', '/api/lists', { name: 'Weekly', storeId: store.id });
    const milk = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Milk', quantity: 2 });
    const product = await rest('POST', '/api/products', { name: 'Family granola' });
    const units = await rest('GET', '/api/units');

    const sessions: unknown[] = [];
    const client = sdk.track(await signedInClient(sdk.app, family.admin, { onSession: (s) => sessions.push(s) }));
    expect(client.auth.session).to.include.keys('accessToken', 'refreshToken');
    expect(client.auth.session!.family.id).to.equal(family.familyId);
    expect(sessions).to.have.length(1);
    const events = recordEvents(client);
    await client.start();
    await client.awaitInSync();
    const c = client;
    await waitFor(async () => (await c.db.items.findByIds([milk.id]).exec()).has(milk.id), 'the item');

    const lists = await c.db.lists.find().exec();
    expect(lists.map((l) => l.name)).to.deep.equal(['Weekly']);
    const item = (await c.db.items.findByIds([milk.id]).exec()).get(milk.id)!;
    expect(item.toJSON()).to.include({ name: 'Milk', quantity: 2, listId: list.id, checked: false });
    const stores = await c.db.stores.find().exec();
    expect(stores.map((s) => s.name)).to.deep.equal(['Corner shop']);
    const sections = await c.db.sections.find({ selector: { storeId: store.id }, sort: [{ position: 'asc' }] }).exec();
    expect(sections.map((s) => s.name)).to.deep.equal([
      'Produce',
      'Bakery',
      'Meat & Seafood',
      'Deli',
      'Dairy & Eggs',
      'Frozen',
      'Pantry',
      'Snacks',
      'Beverages',
      'Household',
      'Personal Care',
    ]);
    expect(await c.db.units.count().exec()).to.equal(units.length);
    expect(units.length).to.be.greaterThan(0);
    const each = await c.db.units.findOne({ selector: { code: 'each' } }).exec();
    expect(each?.kind).to.equal('global');
    const granola = (await c.db.products.findByIds([product.id]).exec()).get(product.id);
    expect(granola?.toJSON()).to.include({ name: 'Family granola', kind: 'family' });
    await waitFor(() => c.state === 'idle', 'idle state');
    expect(has(events, 'online')).to.equal(true);
  });

  it('REST errors are FamilyApiErrors from problem+json; a database holding one family refuses to replicate another', async () => {
    const first = await makeFamily(sdk.app);
    const second = await makeFamily(sdk.app);
    const c = sdk.track(await signedInClient(sdk.app, first.admin));
    const err = await c.rest('POST', '/api/lists', { name: '' }).catch((e) => e);
    expect(err).to.be.instanceOf(FamilyApiError);
    expect(err).to.include({ status: 400, code: 'validation_failed' });
    expect(err.title).to.be.a('string');
    expect(err.errors.map((e: { path: string }) => e.path)).to.include('body.name');
    const missing = await c.rest('GET', `/api/lists/${crypto.randomUUID()}`).catch((e) => e);
    expect(missing).to.include({ status: 404, code: 'not_found' });

    await c.start();
    await c.awaitInSync();
    await c.auth.logout();
    await waitFor(() => c.state === 'stopped', 'stopped after logout');
    await c.auth.login(second.admin.email, second.admin.password);
    const refused = await c.start().catch((e) => e);
    expect(refused).to.include({ name: 'FamilyClientError', code: 'database_of_another_family' });
    expect(c.state).to.equal('stopped');
  });
});
