// Another member's REST write reaches the local database within moments, because the live
// channel's `Changed` nudge makes the replication pull: RxDB has no polling interval, so without
// the nudge nothing is pulled until the app asks.
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { request } from '../../helpers/app.js';
import { fetchAs, localDoc, recordEvents, sdkSuite, signedInClient, waitFor } from './helpers.js';
import { startProxy } from './proxy.js';

describe('e2e SDK: live nudge', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  async function familyWithList() {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const list = (await request(sdk.app, 'POST', '/api/lists', { token: member.token, body: { name: 'Groceries' } }))
      .body;
    return { family, member, list };
  }

  it('a REST write by another member appears locally after a Changed nudge, with no pull before it', async () => {
    const { family, member, list } = await familyWithList();
    // Every pull request and every nudge, in the order they happen.
    const timeline: string[] = [];
    const base = fetchAs();
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        fetch: (input, init) => {
          const m = /\/api\/sync\/(\w+)\/pull/.exec(input);
          if (m) timeline.push(`pull ${m[1]}`);
          return base(input, init);
        },
      }),
    );
    c.on('changed', (e) => timeline.push(`changed ${e.version}`));
    await c.start();
    await waitFor(
      async () => (await localDoc(c, 'lists', list.id)) && c.state === 'idle',
      'initial sync, online and idle',
    );
    await c.sync(); // the catch-up pull of the socket's connect is done too
    timeline.length = 0;

    const r = await request(sdk.app, 'POST', `/api/lists/${list.id}/items`, {
      token: member.token,
      body: { name: 'Apples', quantity: 6 },
    });
    expect(r.status).to.equal(201);
    const apples = await waitFor(() => localDoc(c, 'items', r.body.id), 'the item in the local database');
    expect(apples).to.include({ name: 'Apples', quantity: 6, listId: list.id });
    // The pull that brought it came after the nudge; nothing pulled on its own before. (The
    // device has never pulled an item, so its items checkpoint is not at the frame's `previous`
    // and the live patch in the frame is not taken: live-patches.test.ts.)
    expect(timeline[0]).to.match(/^changed \d+$/);
    expect(timeline).to.include('pull items');

    // A burst of writes: every one arrives.
    const ids: string[] = [];
    for (const name of ['Pears', 'Plums', 'Figs']) {
      ids.push(
        (await request(sdk.app, 'POST', `/api/lists/${list.id}/items`, { token: member.token, body: { name } })).body
          .id,
      );
    }
    await request(sdk.app, 'PATCH', `/api/lists/${list.id}`, { token: member.token, body: { name: 'Fruit' } });
    await waitFor(
      async () => (await Promise.all(ids.map((id) => localDoc(c, 'items', id)))).every(Boolean),
      'the burst',
    );
    await waitFor(async () => (await localDoc(c, 'lists', list.id))?.name === 'Fruit', 'the renamed list');
  });

  it('joinList brings the list events as frame events, again after a reconnect; leaveList stops them', async () => {
    const { family, member, list } = await familyWithList();
    const proxy = sdk.track(await startProxy(sdk.app));
    const c = sdk.track(
      await signedInClient({ url: proxy.url }, family.admin, { backoff: { baseMs: 20, maxMs: 200 } }),
    );
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => c.online, 'online');
    c.joinList(list.id);
    const joins = () =>
      events.filter(
        (e) => e.type === 'frame' && e.frame.type === 'JoinedList' && e.frame.requestId === `join:${list.id}`,
      ).length;
    await waitFor(() => joins() === 1, 'JoinedList');
    const add = async (name: string) =>
      (await request(sdk.app, 'POST', `/api/lists/${list.id}/items`, { token: member.token, body: { name } })).body
        .id as string;
    const added = (id: string) =>
      events.some((e) => e.type === 'frame' && e.frame.type === 'ItemAdded' && (e.frame as any).item.id === id);

    const pears = await add('Pears');
    await waitFor(() => added(pears), 'ItemAdded for Pears');

    // The network drops and comes back: the client joins the list again by itself.
    await proxy.cut();
    await waitFor(() => !c.online, 'offline');
    await proxy.restore();
    await waitFor(() => c.online, 'online again');
    await waitFor(() => joins() === 2, 'joined again');
    const plums = await add('Plums');
    await waitFor(() => added(plums), 'ItemAdded for Plums after the reconnect');

    c.leaveList(list.id);
    // A list that is not the family's is refused (and forgotten). Frames are handled in order,
    // so once its answer is here the LeaveList before it is done too.
    const stranger = await makeFamily(sdk.app);
    const theirs = (
      await request(sdk.app, 'POST', '/api/lists', { token: stranger.admin.token, body: { name: 'Theirs' } })
    ).body;
    c.joinList(theirs.id);
    await waitFor(
      () =>
        events.some((e) => e.type === 'frame' && e.frame.type === 'Error' && e.frame.requestId === `join:${theirs.id}`),
      'not_found for a foreign list',
    );
    const figs = await add('Figs');
    await waitFor(() => localDoc(c, 'items', figs), 'Figs replicated (the overview nudge still works)');
    expect(added(figs)).to.equal(false);
  });

  it('a nudge pulls the collections the write touched, not all nine', async () => {
    const { family, member, list } = await familyWithList();
    const pulls: string[] = [];
    const base = fetchAs();
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        fetch: (input, init) => {
          const m = /\/api\/sync\/(\w+)\/pull/.exec(input);
          if (m) pulls.push(m[1]!);
          return base(input, init);
        },
      }),
    );
    await c.start();
    await waitFor(async () => (await localDoc(c, 'lists', list.id)) && c.state === 'idle', 'initial sync');
    await c.sync();
    await waitFor(() => c.state === 'idle', 'idle');
    pulls.length = 0;
    const r = await request(sdk.app, 'POST', `/api/lists/${list.id}/items`, {
      token: member.token,
      body: { name: 'Cocoa' },
    });
    await waitFor(() => localDoc(c, 'items', r.body.id), 'Cocoa');
    await waitFor(() => c.state === 'idle', 'idle again');
    expect([...new Set(pulls)]).to.deep.equal(['items']);

    pulls.length = 0;
    await request(sdk.app, 'PATCH', `/api/lists/${list.id}`, { token: member.token, body: { name: 'Pantry' } });
    await waitFor(async () => (await localDoc(c, 'lists', list.id))?.name === 'Pantry', 'the renamed list');
    await waitFor(() => c.state === 'idle', 'idle once more');
    // Now the lists checkpoint stands at the frame's `previous`: the live patch applies it, and
    // nothing but lists would be pulled otherwise.
    expect(pulls.filter((c) => c !== 'lists')).to.deep.equal([]);
  });

  it('without the live channel a REST write is not pulled until the app asks (sync())', async () => {
    const { family, member, list } = await familyWithList();
    const c = sdk.track(await signedInClient(sdk.app, family.admin, { realtime: false }));
    const events = recordEvents(c);
    await c.start();
    await c.awaitInSync();
    expect(await localDoc(c, 'lists', list.id)).to.include({ name: 'Groceries' });

    const r = await request(sdk.app, 'POST', `/api/lists/${list.id}/items`, {
      token: member.token,
      body: { name: 'Bread' },
    });
    expect(r.status).to.equal(201);
    await c.awaitInSync();
    expect(await localDoc(c, 'items', r.body.id)).to.equal(undefined);
    expect(events.filter((e) => e.type === 'changed')).to.deep.equal([]);

    await c.sync();
    expect(await localDoc(c, 'items', r.body.id)).to.include({ name: 'Bread' });
  });
});
