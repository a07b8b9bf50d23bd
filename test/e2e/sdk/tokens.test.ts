// Access tokens: with a short ACCESS_TOKEN_TTL the client refreshes ahead of expiry (rotating
// the refresh token, reported through onSession), re-authenticates its live socket and keeps
// syncing; a refused access token is refreshed once (single-flight) and the requests retried; a
// refused refresh token ends the session with an `unauthenticated` event.
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { request } from '../../helpers/app.js';
import { newDoc, type Session } from '@family-shopping/client';
import {
  fetchAs,
  localDoc,
  loginSession,
  newClient,
  recordEvents,
  sdkSuite,
  signedInClient,
  tamperedToken,
  waitFor,
} from './helpers.js';

describe('e2e SDK: access-token expiry and refresh', function () {
  this.timeout(90_000);
  const sdk = sdkSuite({ ACCESS_TOKEN_TTL: '6s' });

  it('refreshes before expiry, keeps its live socket and keeps syncing both ways', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const sessions: (Session | null)[] = [];
    const c = sdk.track(await signedInClient(sdk.app, family.admin, { onSession: (s) => sessions.push(s) }));
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => c.state === 'idle', 'online and idle');
    // Two refreshes: each a new access token and a new (rotated) refresh token.
    await waitFor(() => sessions.length >= 3, 'two refreshes', 30_000);
    const tokens = sessions.map((s) => s!.accessToken);
    expect(new Set(tokens).size).to.equal(tokens.length);
    expect(new Set(sessions.map((s) => s!.refreshToken)).size).to.equal(sessions.length);
    expect(c.auth.session).to.equal(sessions.at(-1));

    // Still syncing: another member's write arrives (through the nudge on the same socket), a
    // local write reaches the server.
    const list = (
      await request(sdk.app, 'POST', '/api/lists', { token: member.token, body: { name: 'After refresh' } })
    ).body;
    await waitFor(() => localDoc(c, 'lists', list.id), 'the list written after the refreshes');
    const tea = await c.db.items.insert(newDoc('items', { listId: list.id, name: 'Tea' }));
    await waitFor(async () => {
      const detail = (await request(sdk.app, 'GET', `/api/lists/${list.id}`, { token: member.token })).body;
      return detail.groups.some((g: any) => g.items.some((i: any) => i.id === tea.id));
    }, 'the local item on the server');
    // The live socket was never dropped for an expired token: online once, never offline.
    expect(events.filter((e) => e.type === 'online' || e.type === 'offline').map((e) => e.type)).to.deep.equal([
      'online',
    ]);
    expect(events.map((e) => e.type)).to.not.include('unauthenticated');
  });

  it('a refused access token is refreshed once for all concurrent requests, which are retried', async () => {
    const family = await makeFamily(sdk.app);
    const session = await loginSession(sdk.app, family.admin);
    const list = (
      await request(sdk.app, 'POST', '/api/lists', { token: family.admin.token, body: { name: 'Stored session' } })
    ).body;
    let refreshCalls = 0;
    const base = fetchAs();
    const sessions: (Session | null)[] = [];
    const c = sdk.track(
      await newClient(sdk.app, {
        session: { ...session, accessToken: tamperedToken(session.accessToken) },
        onSession: (s) => sessions.push(s),
        fetch: (input, init) => {
          if (input.endsWith('/api/auth/refresh')) refreshCalls++;
          return base(input, init);
        },
      }),
    );
    const events = recordEvents(c);
    // Nine collections pull at once with the refused token: one refresh serves them all (a
    // second use of the same refresh token would revoke the user's sessions).
    await c.start();
    await waitFor(() => localDoc(c, 'lists', list.id), 'the list');
    expect(refreshCalls).to.equal(1);
    expect(sessions).to.have.length(1);
    expect(sessions[0]!.refreshToken).to.not.equal(session.refreshToken);
    expect(await c.rest('GET', '/api/me')).to.deep.include({ role: 'admin' });
    expect(events.map((e) => e.type)).to.not.include('unauthenticated');
  });

  it('a refused refresh token ends the session: unauthenticated, session null, stopped; REST calls then fail with 401', async () => {
    const family = await makeFamily(sdk.app);
    const session = await loginSession(sdk.app, family.admin);
    const sessions: (Session | null)[] = [];
    const c = sdk.track(
      await newClient(sdk.app, {
        session: { ...session, accessToken: tamperedToken(session.accessToken), refreshToken: 'not-a-refresh-token' },
        onSession: (s) => sessions.push(s),
      }),
    );
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => events.some((e) => e.type === 'unauthenticated'), 'the unauthenticated event');
    await waitFor(() => c.state === 'stopped', 'stopped');
    expect(c.auth.session).to.equal(null);
    expect(sessions).to.deep.equal([null]);
    const err = await c.rest('GET', '/api/me').catch((e) => e);
    expect(err).to.include({ name: 'FamilyApiError', status: 401, code: 'unauthenticated' });
  });
});
