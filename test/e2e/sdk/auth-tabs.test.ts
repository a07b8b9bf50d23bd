// The session shared by the tabs of a browser (auth.ts with a SessionShare), against the real
// server, whose refresh tokens work once (a reused one revokes every session of the user). Two
// `Auth`s stand for two tabs; what tabs.ts does in a browser (a store every tab reads, a message
// to the others, a lock for refreshes) is done here by a small shared store, whose writes and
// messages can be held to bring about the orders a browser meets by chance. The rule under
// test: no tab ever refreshes with a token another tab already rotated, so no tab is signed out
// by another's refresh; and a tab takes another's change only when it is newer than its own.
import { expect } from 'chai';
import { Auth } from '../../../client-sdk/src/auth.js';
import { Transport, type FetchLike } from '../../../client-sdk/src/transport.js';
import type { Session, SessionChange, SessionShare, SharedSessionRecord } from '../../../client-sdk/src/session.js';
import { request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { loginSession, sdkSuite } from './helpers.js';

/** What the tabs share: the stored session, the refresh lock, the messages between them. */
class Shared {
  record: SharedSessionRecord | null = null;
  writes: SharedSessionRecord[] = [];
  /** A store write takes this long (ms) before other tabs can read it. */
  writeDelayMs = 0;
  /** The lock passes to the next tab this long (ms) after it is released: messages sent
   *  meanwhile arrive first. */
  handoverMs = 0;
  /** Messages not delivered yet (delivered by `deliver()`), when `holdMessages`. */
  holdMessages = false;
  private held: (() => void)[] = [];
  private lock: Promise<unknown> = Promise.resolve();
  private readonly tabs = new Map<SessionShare, Auth>();

  /** The share of one tab; `attach` names the tab's Auth once made. */
  share(): { share: SessionShare; attach(auth: Auth): void } {
    const share: SessionShare = {
      exclusive: <T>(fn: () => Promise<T>): Promise<T> => {
        const run = this.lock
          .then(() => this.handoverMs && new Promise((r) => setTimeout(r, this.handoverMs)))
          .then(fn);
        this.lock = run.catch(() => undefined);
        return run;
      },
      readSession: async () => (this.record ? structuredClone(this.record) : null),
      writeSession: async (record) => {
        if (this.writeDelayMs) await new Promise((r) => setTimeout(r, this.writeDelayMs));
        this.record = structuredClone(record);
        this.writes.push(this.record);
        for (const [other, auth] of this.tabs) {
          if (other === share) continue;
          const send = () => auth.adopt(structuredClone(record));
          if (this.holdMessages) this.held.push(send);
          else setImmediate(send);
        }
      },
    };
    return { share, attach: (auth) => this.tabs.set(share, auth) };
  }

  deliver(): void {
    for (const send of this.held.splice(0)) send();
  }
}

describe('e2e SDK: the session shared by tabs (auth.ts)', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();
  let refreshes = 0;
  const counting: FetchLike = (input, init) => {
    if (String(input).endsWith('/api/auth/refresh')) refreshes++;
    return fetch(input, init);
  };
  beforeEach(() => {
    refreshes = 0;
  });

  /** A tab: an Auth on the shared store, starting from `session`, its changes recorded. */
  function tab(shared: Shared, session: Session | null) {
    const { share, attach } = shared.share();
    const auth = new Auth(new Transport(sdk.app.url, counting), session, undefined, share);
    attach(auth);
    const changes: SessionChange[] = [];
    auth.subscribe((_s, why) => changes.push(why));
    return { auth, changes };
  }

  /** Whether the server still takes this session's access token (a reused refresh token would
   *  have revoked it). */
  async function alive(s: Session | null): Promise<boolean> {
    if (!s) return false;
    const me = await request(sdk.app, 'GET', '/api/me', { token: s.accessToken });
    return me.status === 200;
  }

  async function signedIn() {
    const family = await makeFamily(sdk.app);
    return loginSession(sdk.app, family.admin);
  }

  it('a tab that refreshes after another did takes the stored session: one refresh, both signed in', async () => {
    const shared = new Shared();
    shared.holdMessages = true; // b has not heard of a's refresh when it refreshes
    const s0 = await signedIn();
    const a = tab(shared, s0);
    const b = tab(shared, s0);
    const s1 = await a.auth.refresh();
    expect(s1!.refreshToken).to.not.equal(s0.refreshToken);
    expect(shared.record).to.include({ why: 'refreshed' });
    expect(shared.record!.session!.refreshToken).to.equal(s1!.refreshToken);
    expect(await b.auth.refresh()).to.deep.equal(s1);
    expect(refreshes, 'b did not refresh with the rotated token').to.equal(1);
    expect(b.changes).to.deep.equal(['refreshed']);
    expect(shared.writes, 'b did not store what it adopted').to.have.length(1);
    shared.deliver(); // a's message, now old news for b
    expect(b.changes).to.deep.equal(['refreshed']);
    expect(await alive(a.auth.session)).to.equal(true);
    expect(await alive(b.auth.session)).to.equal(true);
    // And the session goes on: b refreshes next, once, and a follows.
    shared.holdMessages = false;
    const s2 = await b.auth.refresh();
    await new Promise((r) => setImmediate(r));
    expect(a.auth.session).to.deep.equal(s2);
    expect(a.changes, 'its own refresh, then b’s').to.deep.equal(['refreshed', 'refreshed']);
    expect(refreshes).to.equal(2);
    expect(await alive(s2)).to.equal(true);
  });

  for (const order of ['the store written slowly', 'its message first'] as const) {
    it(`a tab waiting for the refresh lock takes the session stored meanwhile (${order})`, async () => {
      const shared = new Shared();
      if (order === 'the store written slowly')
        shared.writeDelayMs = 200; // the lock waits for the store
      else shared.handoverMs = 50; // the other tab's message arrives before the lock
      const s0 = await signedIn();
      const a = tab(shared, s0);
      const b = tab(shared, s0);
      const [sa, sb] = await Promise.all([a.auth.refresh(), b.auth.refresh()]);
      expect(refreshes).to.equal(1);
      expect(sb).to.deep.equal(sa);
      expect(await alive(sa)).to.equal(true);
      expect(a.auth.session).to.deep.equal(b.auth.session);
      expect(b.changes).to.deep.equal(['refreshed']);
    });
  }

  it('changes from another tab: a newer one is taken, an older or an equal one is not', async () => {
    const shared = new Shared();
    const s0 = await signedIn();
    const b = tab(shared, s0);
    const other = { ...s0, accessToken: `${s0.accessToken}x`, refreshToken: 'rotated-elsewhere' };
    const now = Date.now() + 60_000;

    // b has no change of its own yet (at 0): any record is newer.
    expect(b.auth.adopt({ session: other, why: 'refreshed', at: now })).to.equal(true);
    expect(b.auth.session).to.deep.equal(other);
    expect(b.changes).to.deep.equal(['refreshed']);
    // As old, or older: ignored.
    expect(b.auth.adopt({ session: s0, why: 'refreshed', at: now })).to.equal(false);
    expect(b.auth.adopt({ session: null, why: 'signed_out', at: now - 1 })).to.equal(false);
    expect(b.auth.session).to.deep.equal(other);
    // The same refresh token, newer: nothing changes, but the time moves on (an older record
    // that comes after it is still ignored).
    expect(
      b.auth.adopt({ session: { ...other, accessToken: 'same-refresh' }, why: 'refreshed', at: now + 5 }),
    ).to.equal(false);
    expect(b.auth.session).to.deep.equal(other);
    expect(b.auth.adopt({ session: s0, why: 'refreshed', at: now + 3 })).to.equal(false);
    // A sign-out in another tab signs this one out, with that tab's reason; once only.
    expect(b.auth.adopt({ session: null, why: 'expired', at: now + 10 })).to.equal(true);
    expect(b.auth.session).to.equal(null);
    expect(b.changes).to.deep.equal(['refreshed', 'expired']);
    expect(b.auth.adopt({ session: null, why: 'signed_out', at: now + 11 })).to.equal(false);
    // Signed out, a session from another tab is a sign-in here.
    expect(b.auth.adopt({ session: s0, why: 'signed_in', at: now + 12 })).to.equal(true);
    expect(b.changes).to.deep.equal(['refreshed', 'expired', 'signed_in']);
    expect(shared.writes, 'what a tab adopts it does not store again').to.deep.equal([]);
  });

  it("a tab's own changes are stored for the others, each later than the last", async () => {
    const shared = new Shared();
    const s0 = await signedIn();
    const a = tab(shared, s0);
    const b = tab(shared, s0);
    await a.auth.refresh();
    await a.auth.logout();
    expect(shared.writes.map((w) => [w.why, w.session === null])).to.deep.equal([
      ['refreshed', false],
      ['signed_out', true],
    ]);
    expect(shared.writes[1]!.at).to.be.greaterThan(shared.writes[0]!.at);
    await new Promise((r) => setImmediate(r));
    expect(b.auth.session).to.equal(null);
    expect(b.changes).to.deep.equal(['refreshed', 'signed_out']);
  });
});
