// 410 checkpoint_expired: a device that was away longer than the server keeps tombstones
// re-syncs from scratch. What it had of records deleted meanwhile is dropped; its unpushed
// local changes stay and are pushed.
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { purgeTombstones } from '../../../server/sync/purge.js';
import { newDoc } from '@family-shopping/client';
import { fetchAs, localDoc, recordEvents, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

describe('e2e SDK: expired checkpoint (410)', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('re-syncs from scratch: deleted records vanish locally, unpushed local edits and inserts reach the server', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const rest = restAs(sdk.app, member.token);
    const old = await rest('POST', '/api/lists', { name: 'Old list' });
    const oldItem = await rest('POST', `/api/lists/${old.id}/items`, { name: 'Old item' });
    const kept = await rest('POST', '/api/lists', { name: 'Kept list' });

    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => localDoc(c, 'items', oldItem.id), 'the first sync');
    await c.awaitInSync(); // every collection, the lists too (each pulls on its own)
    await c.stop();

    // Away: a local edit and a local insert; on the server a delete whose tombstone is purged.
    await (await c.db.lists.findOne(kept.id).exec())!.incrementalPatch({ name: 'Kept list (edited offline)' });
    const fresh = await c.db.lists.insert(newDoc('lists', { name: 'New offline list' }));
    await rest('DELETE', `/api/lists/${old.id}`);
    const purged = await purgeTombstones(sdk.app.deps, { retentionMs: 0, familyIds: [family.familyId] });
    expect(purged.rows).to.be.greaterThan(0);

    await c.start();
    await waitFor(() => events.some((e) => e.type === 'checkpoint_expired' && e.collection === 'lists'), 'the 410');
    await waitFor(
      async () => !(await localDoc(c, 'lists', old.id)) && !(await localDoc(c, 'items', oldItem.id)),
      'the deleted list and its item gone locally',
    );
    await waitFor(async () => {
      const lists = await rest('GET', '/api/lists');
      const names = new Map(lists.map((l: any) => [l.id, l.name]));
      return names.get(kept.id) === 'Kept list (edited offline)' && names.get(fresh.id) === 'New offline list';
    }, 'the offline edit and insert on the server');
    expect(await localDoc(c, 'lists', kept.id)).to.include({ name: 'Kept list (edited offline)' });
    expect(await localDoc(c, 'lists', fresh.id)).to.include({ name: 'New offline list' });
  });

  it('a collection empty on both sides answers 410 once, not on every pull after it', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const rest = restAs(sdk.app, member.token);
    const list = await rest('POST', '/api/lists', { name: 'Groceries' });
    const soup = await rest('POST', '/api/recipes', { name: 'Soup' });
    const gone: string[] = [];
    const base = fetchAs();
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        fetch: async (input, init) => {
          const res = await base(input, init);
          const m = /\/api\/sync\/(\w+)\/pull/.exec(input);
          if (m && res.status === 410) gone.push(m[1]!);
          return res;
        },
      }),
    );
    await c.start();
    await waitFor(() => localDoc(c, 'recipes', soup.id), 'the recipe');
    await rest('DELETE', `/api/recipes/${soup.id}`);
    await waitFor(async () => !(await localDoc(c, 'recipes', soup.id)), 'the recipe gone');
    await c.sync();
    // A later delete elsewhere: its tombstone, purged too, lifts the horizon past the recipes'
    // checkpoint (that collection has had nothing newer to pull).
    const temp = await rest('POST', '/api/lists', { name: 'Temp' });
    await rest('DELETE', `/api/lists/${temp.id}`);
    await c.sync();
    await c.stop();
    await purgeTombstones(sdk.app.deps, { retentionMs: 0, familyIds: [family.familyId] });

    await c.start();
    await waitFor(() => gone.includes('recipes'), 'the 410 for recipes');
    await c.sync();
    // Writes elsewhere nudge the client; the recipes pulls no longer hit the expired checkpoint.
    for (const name of ['Tea', 'Coffee']) {
      const item = await rest('POST', `/api/lists/${list.id}/items`, { name });
      await waitFor(() => localDoc(c, 'items', item.id), name);
    }
    await c.sync();
    expect(gone.filter((x) => x === 'recipes')).to.deep.equal(['recipes']);
  });
});
