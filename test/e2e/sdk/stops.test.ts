// The server ends replication: a member removed from the family gets `removed` (live close
// 4403) and the client stops; a client speaking an outdated schema gets `schema_outdated` (426)
// and stops, its local data kept.
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { request } from '../../helpers/app.js';
import { FamilyClientError, MIN_SCHEMA_VERSION, newDoc } from '@family-shopping/client';
import { fetchAs, localDoc, recordEvents, sdkSuite, signedInClient, waitFor } from './helpers.js';

describe('e2e SDK: the server stops the replication', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('a member removed from the family gets `removed`, stops replicating and loses the session', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const sessions: unknown[] = [];
    const c = sdk.track(await signedInClient(sdk.app, member, { onSession: (s) => sessions.push(s) }));
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => c.state === 'idle', 'online and idle');

    const r = await request(sdk.app, 'DELETE', `/api/family/members/${member.userId}`, { token: family.admin.token });
    expect(r.status).to.equal(204);
    await waitFor(() => events.some((e) => e.type === 'removed'), 'the removed event');
    await waitFor(() => c.state === 'stopped', 'stopped');
    expect(c.online).to.equal(false);
    expect(c.auth.session).to.equal(null);
    expect(sessions.at(-1)).to.equal(null);
    // start() now needs a new sign-in.
    const err = await c.start().catch((e) => e);
    expect(err).to.include({ status: 401, code: 'unauthenticated' });
  });

  it('a client with a schema older than the oldest served gets `schema_outdated`, stops, and keeps its local data', async () => {
    const family = await makeFamily(sdk.app);
    const c = sdk.track(await signedInClient(sdk.app, family.admin, { schemaVersion: MIN_SCHEMA_VERSION - 1 }));
    const events = recordEvents(c);
    const draft = await c.db.lists.insert(newDoc('lists', { name: 'Written before the upgrade' }));
    await c.start();
    await waitFor(() => events.some((e) => e.type === 'schema_outdated'), 'the schema_outdated event');
    await waitFor(() => c.state === 'stopped', 'stopped');
    expect(events.filter((e) => e.type === 'schema_outdated')).to.have.length(1); // nine pulls, one report
    expect(await localDoc(c, 'lists', draft.id)).to.include({ name: 'Written before the upgrade' });
    expect(c.auth.session).to.not.equal(null); // still signed in: REST keeps working
    expect(await c.rest('GET', '/api/me')).to.deep.include({ role: 'admin' });
    const lists = await c.rest<any[]>('GET', '/api/lists');
    expect(lists.map((l) => l.id)).to.not.include(draft.id);
  });

  it('a sync() waiting while offline settles when the client stops: it rejects with `stopped`', async () => {
    const family = await makeFamily(sdk.app);
    let online = true; // to sign in
    const base = fetchAs();
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        realtime: false,
        backoff: { baseMs: 20, maxMs: 100 },
        // In the supermarket: no request gets through.
        fetch: (input, init) => (online ? base(input, init) : Promise.reject(new TypeError('fetch failed'))),
      }),
    );
    online = false;
    await c.start();
    const outcome = c.sync().then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 200));
    await c.stop();
    const err = await outcome;
    expect(err).to.be.instanceOf(FamilyClientError);
    expect(err).to.include({ code: 'stopped' });
    // Started again with a network, it syncs as usual.
    online = true;
    await c.start();
    await c.sync();
    expect(c.state).to.equal('idle');
  });
});
