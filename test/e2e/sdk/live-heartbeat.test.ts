// Client liveness (api-contract §7): once authenticated the SDK pings; a quiet but healthy socket
// is kept (Pong is a frame), a silent one (a dead zone: packets dropped, nothing closed) is
// noticed within the heartbeat timeout, given up and reopened, and once the network heals the
// device catches up on what was written meanwhile, without a manual sync().
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import type { ClientState } from '@family-shopping/client';
import { localDoc, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';
import { startDeadZoneProxy } from './dead-zone-proxy.js';

const HEARTBEAT_MS = 2_000;

describe('e2e SDK: live heartbeat', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  it('a dead zone is noticed within the heartbeat timeout; once healed the device catches up by itself', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const api = restAs(sdk.app, member.token);
    const list = await api('POST', '/api/lists', { name: 'Groceries' });
    const proxy = sdk.track(await startDeadZoneProxy(sdk.app));
    const c = sdk.track(
      await signedInClient({ url: proxy.url }, family.admin, {
        heartbeatTimeoutMs: HEARTBEAT_MS,
        backoff: { baseMs: 50, maxMs: 500 },
      }),
    );
    const states: ClientState[] = [];
    c.state$.subscribe((s) => states.push(s));
    await c.start();
    await waitFor(
      async () => (await localDoc(c, 'lists', list.id)) && c.state === 'idle' && c.online,
      'in sync and online',
    );

    // Quiet but healthy: three timeouts without a single write, the socket stays (its Pings are
    // answered, and an answer is a frame).
    states.length = 0;
    await new Promise((r) => setTimeout(r, 3 * HEARTBEAT_MS));
    expect(states, 'no state change while quiet').to.not.include('offline');
    expect(c.online).to.equal(true);

    // The dead zone: nothing closes, nothing arrives. Another member writes meanwhile.
    proxy.stall();
    const stalledAt = Date.now();
    const eggs = await api('POST', `/api/lists/${list.id}/items`, { name: 'Eggs' });
    await waitFor(() => !c.online, 'the device notices', 4 * HEARTBEAT_MS + 5_000);
    const noticedMs = Date.now() - stalledAt;
    expect(noticedMs).to.be.at.most(4 * HEARTBEAT_MS + 5_000);
    expect(await localDoc(c, 'items', eggs.id)).to.equal(undefined);

    // Healed: the device reconnects and pulls what it missed; no sync() is called.
    proxy.heal();
    await waitFor(() => c.online, 'online again', 20_000);
    expect(await waitFor(() => localDoc(c, 'items', eggs.id), 'Eggs caught up', 20_000)).to.include({ name: 'Eggs' });

    // And the live channel works again: the next write arrives on its own too.
    const milk = await api('POST', `/api/lists/${list.id}/items`, { name: 'Milk' });
    await waitFor(() => localDoc(c, 'items', milk.id), 'Milk', 20_000);
  });
});
