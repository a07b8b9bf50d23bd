// Reachability without the live channel (client/connectivity.ts), as the app sees it through
// `online`, `state` and the requests its `fetch` is asked for:
// - a request that gets no answer turns `online` false; a cheap request now and then (the
//   probe) finds out when the server answers again, with nothing else being sent, and a write
//   queued meanwhile then goes at once instead of after its retry wait;
// - a stopped client sends no probe.
import { expect } from 'chai';
import { makeFamily, type TestUser } from '../../helpers/factories.js';
import { FamilyApiError, newDoc, type FetchLike } from '@family-shopping/client';
import { fetchAs, restAs, sdkSuite, signedInClient, waitFor, type ClientOptions } from './helpers.js';
import { startProxy } from './proxy.js';

/** A fetch that counts what the client sends. */
function countingFetch(): { fetch: FetchLike; sent: () => number } {
  const base = fetchAs();
  let n = 0;
  return {
    fetch: (input, init) => {
      n++;
      return base(input, init);
    },
    sent: () => n,
  };
}

describe('e2e SDK: reachability without the live channel', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  /** A signed-in client without the live channel behind a cuttable proxy, counting its requests. */
  async function behindProxy(user: TestUser, options: ClientOptions) {
    const proxy = sdk.track(await startProxy(sdk.app));
    const counted = countingFetch();
    const c = sdk.track(
      await signedInClient({ url: proxy.url }, user, { realtime: false, fetch: counted.fetch, ...options }),
    );
    return { proxy, counted, c };
  }

  it('a failed request turns online false; the probe finds the server again and a queued write goes unasked', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Probe' });
    // RxDB's own retry would come long after the deadline below: only a wakeup sends the write.
    const { proxy, counted, c } = await behindProxy(family.admin, {
      retryTime: 600_000,
      backoff: { baseMs: 20, maxMs: 300 },
    });
    await c.start();
    await c.awaitInSync();
    expect(c.online).to.equal(true);

    await proxy.cut();
    const err = await c.rest('GET', '/api/lists').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(FamilyApiError);
    expect(err).to.include({ code: 'network_error' });
    expect(c.online).to.equal(false);
    const item = newDoc('items', { listId: list.id, name: 'Queued while cut' });
    await c.db.items.insert(item);
    await waitFor(() => c.state === 'offline', 'offline with the write queued');
    // Nothing but the probe is sent now: it keeps asking.
    const sent = counted.sent();
    await waitFor(() => counted.sent() > sent + 1, 'the probe asks again while cut');

    await proxy.restore();
    await waitFor(() => c.online, 'online again, with no call of the app');
    await waitFor(
      async () => JSON.stringify(await rest('GET', `/api/lists/${list.id}`)).includes('Queued while cut'),
      'the queued write on the server',
    );
    await waitFor(() => c.state === 'idle', 'idle');

    // Online and idle: no probe goes (many probe intervals of at most 300 ms pass).
    const idle = counted.sent();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(counted.sent(), 'requests while online and idle').to.equal(idle);

    // A second loss is found out and ended the same way.
    await proxy.cut();
    await c.rest('GET', '/api/lists').catch(() => undefined);
    expect(c.online).to.equal(false);
    await proxy.restore();
    await waitFor(() => c.online, 'online again after the second loss');
  });

  it('a stopped client sends no probe, and starts reachable again', async () => {
    const family = await makeFamily(sdk.app);
    const { proxy, counted, c } = await behindProxy(family.admin, { backoff: { baseMs: 20, maxMs: 100 } });
    await c.start();
    await c.awaitInSync();
    await proxy.cut();
    await c.rest('GET', '/api/lists').catch(() => undefined);
    expect(c.online).to.equal(false);
    await c.stop();
    expect(c.online).to.equal(false);
    const sent = counted.sent();
    // Many probe intervals (at most 100 ms each) go by.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(counted.sent(), 'requests after stop()').to.equal(sent);

    await proxy.restore();
    await c.start();
    expect(c.online, 'a start takes the server as reachable').to.equal(true);
    await c.awaitInSync();
    expect(c.state).to.equal('idle');
  });
});
