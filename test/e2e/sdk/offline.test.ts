// Offline edits: a device loses its connection (a proxy in front of the app is cut), edits
// while offline, and reconnects: its edits reach the server and another device (a second SDK
// client in a child process). Both devices edit the same item meanwhile: the merge rules decide
// (a removal wins against an edit, the edit is kept on the removed item).
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { request } from '../../helpers/app.js';
import { newDoc } from '@family-shopping/client';
import { localDoc, recordEvents, sdkSuite, signedInClient, waitFor } from './helpers.js';
import { openDevice } from './device-handle.js';
import { startProxy } from './proxy.js';

describe('e2e SDK: offline edits and two devices', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  it('edits made while the network is cut reach the server and the other device; removal wins against a concurrent edit', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const rest = async (method: string, path: string, body?: unknown) => {
      const r = await request(sdk.app, method, path, { token: member.token, body });
      expect(r.status, r.text).to.be.below(300);
      return r.body;
    };
    const list = await rest('POST', '/api/lists', { name: 'Party' });
    const chips = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Chips' });
    const bread = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Bread' });

    // Device A (this process) talks to the app through a proxy; device B (child process) directly.
    const proxy = sdk.track(await startProxy(sdk.app));
    const a = sdk.track(await signedInClient({ url: proxy.url }, family.admin));
    const eventsA = recordEvents(a);
    await a.start();
    const device = sdk.track(await openDevice(sdk.app, member));
    const b = device;
    await b.call('start');
    await waitFor(async () => (await localDoc(a, 'items', chips.id)) && a.state === 'idle', 'A in sync');
    await waitFor(
      async () => (await b.call('get', { collection: 'items', id: bread.id }))?.name === 'Bread',
      'B in sync',
    );

    // The network of A goes away.
    await proxy.cut();
    await waitFor(() => a.state === 'offline', 'A offline');
    expect(a.online).to.equal(false);

    // Offline on A: rename Bread, edit Chips, add an item, create a list with an item.
    await (await a.db.items.findOne(bread.id).exec())!.incrementalPatch({ name: 'Sourdough' });
    await (await a.db.items.findOne(chips.id).exec())!.incrementalPatch({ name: 'Salted chips', quantity: 3 });
    const eggs = await a.db.items.insert(newDoc('items', { listId: list.id, name: 'Eggs' }));
    const picnic = await a.db.lists.insert(newDoc('lists', { name: 'Picnic' }));
    const rug = await a.db.items.insert(newDoc('items', { listId: picnic.id, name: 'Rug' }));
    // Meanwhile B (online) removes Chips.
    await b.call('patch', { collection: 'items', id: chips.id, patch: { removedAt: new Date().toISOString() } });
    await waitFor(
      async () =>
        (await rest('GET', `/api/lists/${list.id}`)).groups.every((g: any) =>
          g.items.every((i: any) => i.id !== chips.id),
        ),
      'the removal on the server',
    );
    // A still has its own version.
    expect(await localDoc(a, 'items', chips.id)).to.include({ name: 'Salted chips', removedAt: null });

    // The network comes back: A reconnects by itself and pushes.
    await proxy.restore();
    await waitFor(() => a.online, 'A online again');

    const serverItems = async () => {
      const detail = await rest('GET', `/api/lists/${list.id}`);
      return new Map<string, any>(detail.groups.flatMap((g: any) => g.items).map((i: any) => [i.id, i]));
    };
    await waitFor(async () => {
      const items = await serverItems();
      return items.get(bread.id)?.name === 'Sourdough' && items.has(eggs.id);
    }, 'the offline edits on the server');
    await waitFor(
      async () =>
        (await rest('GET', `/api/lists/${picnic.id}`)).groups.some((g: any) =>
          g.items.some((i: any) => i.id === rug.id),
        ),
      'the new list and its item on the server',
    );

    // Chips: removed (B's removal wins), A's edit kept on the removed item, on every side.
    const chipsOf = async (get: () => Promise<any>) =>
      waitFor(async () => {
        const d = await get();
        return d && d.removedAt && d.name === 'Salted chips' ? d : undefined;
      }, 'the merged Chips');
    const onA = await chipsOf(() => localDoc(a, 'items', chips.id));
    const onB = await chipsOf(() => b.call('get', { collection: 'items', id: chips.id }));
    expect(onA).to.include({ quantity: 3, removedByUserId: member.userId });
    expect(onB).to.include({ quantity: 3 });
    expect((await serverItems()).has(chips.id)).to.equal(false); // removed items leave the detail view

    // B has A's offline work.
    await waitFor(
      async () => (await b.call('get', { collection: 'items', id: bread.id }))?.name === 'Sourdough',
      'B sees Sourdough',
    );
    await waitFor(
      async () => (await b.call('get', { collection: 'items', id: eggs.id }))?.name === 'Eggs',
      'B sees Eggs',
    );
    await waitFor(
      async () => (await b.call('get', { collection: 'lists', id: picnic.id }))?.name === 'Picnic',
      'B sees the new list',
    );
    await waitFor(
      async () => (await b.call('get', { collection: 'items', id: rug.id }))?.listId === picnic.id,
      'B sees its item',
    );
    expect(eventsA.filter((e) => e.type === 'rejected')).to.deep.equal([]);
    expect(eventsA.map((e) => e.type)).to.include.members(['offline', 'online']);
  });

  it('stop() keeps local edits queued; start() pushes them and pulls what changed meanwhile', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const list = (await request(sdk.app, 'POST', '/api/lists', { token: member.token, body: { name: 'Hardware' } }))
      .body;
    const a = sdk.track(await signedInClient(sdk.app, family.admin));
    await a.start();
    await waitFor(() => localDoc(a, 'lists', list.id), 'the list');
    await a.stop();
    expect(a.state).to.equal('stopped');

    const nails = await a.db.items.insert(newDoc('items', { listId: list.id, name: 'Nails', quantity: 100 }));
    const glue = (
      await request(sdk.app, 'POST', `/api/lists/${list.id}/items`, { token: member.token, body: { name: 'Glue' } })
    ).body;
    await a.start();
    await waitFor(() => localDoc(a, 'items', glue.id), 'the item written while stopped');
    await waitFor(async () => {
      const detail = (await request(sdk.app, 'GET', `/api/lists/${list.id}`, { token: member.token })).body;
      return detail.groups.some((g: any) => g.items.some((i: any) => i.id === nails.id && i.quantity === 100));
    }, 'the queued item on the server');
  });
});
