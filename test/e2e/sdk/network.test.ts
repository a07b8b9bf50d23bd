// The truth about the network, through the SDK against the real app: requests have a deadline,
// `online` follows whether requests reach the server (not whether a socket looks open), and
// sync() starts a retry that is waiting out its backoff at once.
import { expect } from 'chai';
import { makeFamily } from '../../helpers/factories.js';
import { newDoc, FamilyApiError } from '@family-shopping/client';
import { restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';
import { startProxy } from './proxy.js';
import { startSilentProxy } from './silent-proxy.js';

describe('e2e SDK: network truth', function () {
  this.timeout(120_000);
  const sdk = sdkSuite();

  it('a request that gets no answer fails as network_error after requestTimeoutMs, and online turns false while the socket still looks open', async () => {
    const family = await makeFamily(sdk.app);
    const silent = sdk.track(await startSilentProxy(sdk.app));
    const c = sdk.track(await signedInClient({ url: silent.url }, family.admin, { requestTimeoutMs: 1500 }));
    await c.start();
    await waitFor(() => c.state === 'idle' && c.online, 'online and idle');

    silent.silence();
    const t0 = Date.now();
    const err = await c.rest('GET', '/api/lists').then(
      () => null,
      (e: unknown) => e,
    );
    const took = Date.now() - t0;
    expect(err).to.be.instanceOf(FamilyApiError);
    expect((err as FamilyApiError).code).to.equal('network_error');
    expect(took).to.be.within(1400, 10_000);
    // The socket has not noticed anything; requests do not reach the server: not online.
    expect(c.online).to.equal(false);
    expect(c.state).to.equal('offline');

    // The path works again: a probe (nothing else is being sent) finds it out.
    silent.speak();
    await waitFor(() => c.online && c.state === 'idle', 'online again', 30_000);
  });

  it('sync() starts a push that waits out a long backoff at once when the network is back', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Backoff' });
    const proxy = sdk.track(await startProxy(sdk.app));
    // No live channel (nothing else wakes the retry) and backoff waits of up to a minute.
    const c = sdk.track(
      await signedInClient({ url: proxy.url }, family.admin, {
        realtime: false,
        backoff: { baseMs: 60_000, maxMs: 60_000 },
      }),
    );
    await c.start();
    await c.awaitInSync();

    await proxy.cut();
    const item = newDoc('items', { listId: list.id, name: 'Queued' });
    await c.db.items.insert(item);
    await waitFor(() => c.state === 'offline', 'offline (the push failed)');
    await new Promise((r) => setTimeout(r, 300)); // the push now waits out its backoff
    await proxy.restore();

    const t0 = Date.now();
    await c.sync();
    const took = Date.now() - t0;
    console.log(`      sync() after the network returned: ${took} ms (the retry's backoff: up to 60 s)`);
    const onServer = await rest('GET', `/api/lists/${list.id}`);
    expect(JSON.stringify(onServer)).to.include('Queued');
    expect(took).to.be.below(20_000);
  });

  it('pending$ counts local changes until the server acknowledged them; awaitInSync() pulls back what the server stamped', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Pending' });
    const proxy = sdk.track(await startProxy(sdk.app));
    const c = sdk.track(await signedInClient({ url: proxy.url }, family.admin));
    const pending: number[] = [];
    c.pending$.subscribe((n) => pending.push(n));
    const progress: { collection: string; pulled: number; done: boolean }[] = [];
    c.progress$.subscribe((p) => progress.push(p));
    await c.start();
    await c.awaitInSync();
    expect(progress.some((p) => p.collection === 'lists' && p.pulled >= 1 && p.done)).to.equal(true);
    expect(progress.some((p) => p.collection === 'units' && p.pulled > 0)).to.equal(true);

    await proxy.cut();
    await waitFor(() => c.state === 'offline', 'offline');
    const items = ['A', 'B', 'C'].map((name) => newDoc('items', { listId: list.id, name }));
    await c.db.items.bulkInsert(items);
    await (await c.db.lists.findOne(list.id).exec())!.incrementalPatch({ name: 'Pending (renamed)' });
    await waitFor(() => pending.at(-1) === 4, `pending 4 (saw ${pending.join(',')})`);

    await proxy.restore();
    await c.sync();
    expect(pending.at(-1)).to.equal(0);

    // What the server stamped on its side (updatedAt of its write) is in the local copies.
    const detail = await rest('GET', `/api/lists/${list.id}`);
    const serverItems = detail.groups.flatMap((g: { items: any[] }) => g.items);
    for (const doc of items) {
      const server = serverItems.find((i: { id: string }) => i.id === doc.id);
      const local = (await c.db.items.findOne(doc.id).exec())!.toJSON();
      expect(local.updatedAt, doc.name).to.equal(server.updatedAt);
    }
  });
});
