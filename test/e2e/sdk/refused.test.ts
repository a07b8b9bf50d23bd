// A change the server refuses (a rule or a role): the SDK reports it once and the local copy goes
// back to the server's state, instead of keeping the refused change and pushing it again.
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { request } from '../../helpers/app.js';
import { newDoc } from '@family-shopping/client';
import { localDoc, recordEvents, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

describe('e2e SDK: refused changes', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  const familyVersion = async (familyId: string) =>
    Number((await sdk.app.deps.db('family_counters').where({ family_id: familyId }).first('version')).version);

  it('a member renaming a section (admin only) gets one `rejected` event, the section reverts, and nothing is pushed again', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const store = (
      await request(sdk.app, 'POST', '/api/stores', { token: member.token, body: { name: 'Bakery lane' } })
    ).body;
    const section = store.sections[1];
    const c = sdk.track(await signedInClient(sdk.app, member, { retryTime: 50 }));
    const events = recordEvents(c);
    await c.start();
    await waitFor(
      async () => (await localDoc(c, 'sections', section.id))?.name === section.name,
      'the section locally',
    );

    const doc = await c.db.sections.findOne(section.id).exec();
    await doc!.incrementalPatch({ name: 'Bread & cakes' });
    await waitFor(() => events.some((e) => e.type === 'rejected'), 'the rejected event');
    await waitFor(
      async () => (await localDoc(c, 'sections', section.id))?.name === section.name,
      'the section reverted',
    );
    await c.sync();

    const rejected = events.filter((e) => e.type === 'rejected');
    expect(rejected).to.have.length(1);
    expect(rejected[0]).to.deep.include({ collection: 'sections' });
    expect((rejected[0] as any).rows.map((r: any) => [r.id, r.code])).to.deep.equal([[section.id, 'forbidden']]);
    // Settled: later sync rounds push nothing, so the family version stays put.
    const settled = await familyVersion(family.familyId);
    await new Promise((r) => setTimeout(r, 500));
    await c.sync();
    expect(await familyVersion(family.familyId)).to.equal(settled);
    expect(events.filter((e) => e.type === 'rejected')).to.have.length(1);
    const server = (await request(sdk.app, 'GET', `/api/stores/${store.id}/sections`, { token: member.token })).body;
    expect(server.find((s: any) => s.id === section.id).name).to.equal(section.name);
  });

  it('an item on a list whose insert was refused is reverted too, and the items keep syncing', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const rest = (token: string, method: string, path: string, body?: unknown) =>
      restAs(sdk.app, token)(method, path, body);
    const groceries = await rest(member.token, 'POST', '/api/lists', { name: 'Groceries' });
    const milk = await rest(member.token, 'POST', `/api/lists/${groceries.id}/items`, { name: 'Milk' });
    const store = await rest(family.admin.token, 'POST', '/api/stores', { name: 'Corner shop' });
    const c = sdk.track(await signedInClient(sdk.app, member, { retryTime: 50, backoff: { baseMs: 20, maxMs: 200 } }));
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => localDoc(c, 'stores', store.id), 'the store locally');
    await c.stop();

    // Offline: a list for the corner shop and an item on it; meanwhile the admin deletes the shop.
    await rest(family.admin.token, 'DELETE', `/api/stores/${store.id}`);
    const list = await c.db.lists.insert(newDoc('lists', { name: 'For the corner shop', storeId: store.id }));
    const bread = await c.db.items.insert(newDoc('items', { listId: list.id, name: 'Bread' }));
    await c.start();

    // The list is refused (its store is gone) and reverted; the item, whose list now exists
    // nowhere, is reverted too instead of waiting for ever.
    await waitFor(
      async () => !(await localDoc(c, 'lists', list.id)) && !(await localDoc(c, 'items', bread.id)),
      'both reverted',
    );
    const rejected = events.filter((e) => e.type === 'rejected') as any[];
    expect(rejected.map((e) => [e.collection, e.rows.map((r: any) => [r.id, r.code])])).to.deep.equal([
      ['lists', [[list.id, 'store_not_found']]],
      ['items', [[bread.id, 'parent_missing']]],
    ]);

    // The items collection still replicates both ways.
    await (await c.db.items.findOne(milk.id).exec())!.incrementalPatch({ name: 'Oat milk' });
    const eggs = await rest(family.admin.token, 'POST', `/api/lists/${groceries.id}/items`, { name: 'Eggs' });
    await waitFor(() => localDoc(c, 'items', eggs.id), "another member's new item");
    await c.sync();
    const detail = await rest(member.token, 'GET', `/api/lists/${groceries.id}`);
    expect(detail.groups.flatMap((g: any) => g.items.map((i: any) => i.name)).sort()).to.deep.equal([
      'Eggs',
      'Oat milk',
    ]);
  });
});
