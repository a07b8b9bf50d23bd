// The refresh ahead of expiry (client/session-refresh.ts), seen by the app through onSession:
// - only a client that replicates keeps its session fresh; one that was never started (or
//   stopped) refreshes on demand, when a request needs the token;
// - a refresh ahead that fails (no network) is tried again, and succeeds once the network is
//   back, without any call of the app (no live channel and no request to do it instead).
import { expect } from 'chai';
import { makeFamily } from '../../helpers/factories.js';
import { tokenTimes } from '../../../client-sdk/src/session.js';
import type { Session } from '@family-shopping/client';
import { sdkSuite, signedInClient, waitFor } from './helpers.js';
import { startProxy } from './proxy.js';

/** Resolves once this device's clock has passed the token's expiry (plus `extraMs`). */
async function pastExpiry(token: string, extraMs = 0): Promise<void> {
  const t = tokenTimes(token)!;
  const wait = t.expiresAt + extraMs - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

describe('e2e SDK: the session kept fresh while replicating', function () {
  this.timeout(60_000);
  const sdk = sdkSuite({ ACCESS_TOKEN_TTL: '3s' });

  it('a client never started does not refresh ahead: its expired token is refreshed when a request needs it', async () => {
    const family = await makeFamily(sdk.app);
    const sessions: (Session | null)[] = [];
    const c = sdk.track(await signedInClient(sdk.app, family.admin, { onSession: (s) => sessions.push(s) }));
    expect(sessions).to.have.length(1);
    // Past the token's expiry (a replicating client refreshes at three quarters of it).
    await pastExpiry(sessions[0]!.accessToken, 1_500);
    expect(sessions, 'no refresh ahead of a request').to.have.length(1);
    expect(await c.rest('GET', '/api/lists')).to.be.an('array');
    expect(sessions).to.have.length(2);
    expect(sessions[1]!.accessToken).to.not.equal(sessions[0]!.accessToken);
  });

  it('a refresh ahead that fails offline is tried again and succeeds once the network is back, unasked', async () => {
    const family = await makeFamily(sdk.app);
    const proxy = sdk.track(await startProxy(sdk.app));
    const sessions: (Session | null)[] = [];
    // No live channel: nothing but the refresh ahead sends a request while idle.
    const c = sdk.track(
      await signedInClient({ url: proxy.url }, family.admin, { realtime: false, onSession: (s) => sessions.push(s) }),
    );
    await c.start();
    await c.awaitInSync();
    const before = sessions.length;
    await proxy.cut();
    // The refresh was due (three quarters of the lifetime) and failed: the token has expired.
    await pastExpiry(c.auth.session!.accessToken, 500);
    expect(sessions.length, 'no refresh got through while cut').to.equal(before);
    await proxy.restore();
    await waitFor(() => sessions.length > before, 'a refresh after the network came back');
    expect(c.auth.session).to.equal(sessions.at(-1));
    expect(c.auth.session).to.not.equal(null);
  });
});

describe('e2e SDK: the refresh ahead comes when it is due, not sooner', function () {
  this.timeout(60_000);
  const sdk = sdkSuite({ ACCESS_TOKEN_TTL: '8s' });

  it('each token of a replicating client is refreshed at three quarters of its lifetime (the server’s iat shows when)', async () => {
    const family = await makeFamily(sdk.app);
    const sessions: (Session | null)[] = [];
    const c = sdk.track(await signedInClient(sdk.app, family.admin, { onSession: (s) => sessions.push(s) }));
    await c.start();
    await waitFor(() => sessions.length >= 3, 'two refreshes ahead', 30_000);
    const [first, second, third] = sessions.map((s) => tokenTimes(s!.accessToken)!);
    // 8 s tokens: due 2 s before expiry, i.e. 6 s after issue (iat counts whole seconds).
    expect(second!.issuedAt - first!.issuedAt).to.be.at.least(5_000);
    expect(third!.issuedAt - second!.issuedAt).to.be.at.least(5_000);
    expect(second!.issuedAt, 'before the first token expired').to.be.at.most(first!.expiresAt);
  });
});
