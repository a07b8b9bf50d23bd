// Contract §8 used as written there, without `start()`: a client made with a session, domain
// calls, then `awaitInSync()` (or `sync()`) must leave the local views equal to the REST answers
// ("awaitInSync() resolves only once the server's state after the device's own pushes has been
// pulled back"). So a client that was never started starts replicating when asked to sync,
// and one made without a WebSocket (Node 20 has no global one) replicates without the live channel.
// Before that first start, pending$ already counts what waits in a database that never replicated.
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { makeFamily } from '../../helpers/factories.js';
import { loginSession, newClient, restAs, sdkSuite, waitFor } from './helpers.js';

describe('e2e SDK: awaitInSync() and sync() on a client never started', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('awaitInSync() starts replicating, and resolves once the REST answers equal the local views', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await newClient(sdk.app, { session: await loginSession(sdk.app, family.admin) }));

    const list = await c.lists.create({ name: 'Weekly' });
    const milk = await c.items.add(list.id, { name: 'Milk', quantity: 2 });
    await c.items.toggle(list.id, milk.id);
    await c.awaitInSync();

    expect(c.state).to.not.equal('stopped');
    expect(await firstValueFrom(c.lists.detail$(list.id))).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
    expect(await firstValueFrom(c.lists.summaries$())).to.deep.equal(await rest('GET', '/api/lists?archived=false'));
  });

  it('sync() starts replicating too and brings in what the server has', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const onServer = await rest('POST', '/api/lists', { name: 'From the web' });
    const c = sdk.track(await newClient(sdk.app, { session: await loginSession(sdk.app, family.admin) }));

    await c.sync();
    expect(await firstValueFrom(c.lists.summaries$())).to.deep.equal([onServer]);
  });

  it('with only the options the contract names (no WebSocket in Node 20): replicates without the live channel', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(
      await newClient(sdk.app, { session: await loginSession(sdk.app, family.admin), WebSocket: undefined }),
    );
    const list = await c.lists.create({ name: 'From Node' });
    await c.awaitInSync();
    expect(c.online).to.equal(true);
    expect(await firstValueFrom(c.lists.detail$(list.id))).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
    const fromWeb = await rest('POST', '/api/lists', { name: 'From the web' });
    await c.sync();
    expect((await firstValueFrom(c.lists.summaries$())).map((l) => l.id)).to.include(fromWeb.id);
  });

  it('pending$ counts the local changes of a database that never replicated, before any start', async () => {
    const family = await makeFamily(sdk.app);
    const c = sdk.track(await newClient(sdk.app, { session: await loginSession(sdk.app, family.admin) }));
    const seen: number[] = [];
    c.pending$.subscribe((n) => seen.push(n));
    const list = await c.lists.create({ name: 'Weekly' });
    await c.items.add(list.id, { name: 'Milk' });
    await waitFor(() => seen.at(-1) === 2, `pending 2 (saw ${seen.join(',')})`);
    await c.awaitInSync();
    expect(seen.at(-1)).to.equal(0);
  });

  it('an explicit stop() is kept: awaitInSync() does not start the client again', async () => {
    const family = await makeFamily(sdk.app);
    const c = sdk.track(await newClient(sdk.app, { session: await loginSession(sdk.app, family.admin) }));
    await c.start();
    await c.awaitInSync();
    await c.stop();
    await c.lists.create({ name: 'Queued while stopped' });
    await c.awaitInSync();
    expect(c.state).to.equal('stopped');
  });
});
