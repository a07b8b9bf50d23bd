// What `Auth` does without asking the server (auth.ts): a signed-out client has nothing to
// clear, log out or refresh, and a request refused with a token older than the session's asks
// for no new one. Each call is watched through `subscribe` and a fetch that counts (and fails
// the test if it is called when it should not be).
import { expect } from 'chai';
import { Auth } from '../../../client-sdk/src/auth.js';
import type { Session, SessionChange } from '../../../client-sdk/src/session.js';
import { Transport, type FetchLike } from '../../../client-sdk/src/transport.js';

const session = (accessToken: string): Session => ({
  accessToken,
  refreshToken: `refresh-of-${accessToken}`,
  expiresIn: 900,
  user: { id: 'u1', email: 'a@example.test', userName: 'a', emailConfirmed: true, locale: null },
  family: { id: 'f1', name: 'F', locale: 'en' },
  role: 'admin',
});

function auth(initial: Session | null) {
  const requests: string[] = [];
  const fetchImpl: FetchLike = async (input) => {
    requests.push(String(input));
    return new Response(null, { status: 204 });
  };
  const a = new Auth(new Transport('http://family.test', fetchImpl), initial);
  const changes: [string | null, SessionChange][] = [];
  a.subscribe((s, why) => changes.push([s?.accessToken ?? null, why]));
  return { a, requests, changes };
}

describe('SDK: the session without the server (auth.ts)', () => {
  it('clear() ends a session once, with its reason; a signed-out client reports nothing', () => {
    const { a, changes } = auth(session('t1'));
    a.clear('expired');
    expect(a.session).to.equal(null);
    a.clear();
    a.clear('expired');
    expect(changes).to.deep.equal([[null, 'expired']]);
    const signedOut = auth(null);
    signedOut.a.clear();
    expect(signedOut.changes).to.deep.equal([]);
  });

  it('clear() without a reason is a sign-out', () => {
    const { a, changes } = auth(session('t1'));
    a.clear();
    expect(changes).to.deep.equal([[null, 'signed_out']]);
  });

  it('signed out: logout and refresh ask the server nothing', async () => {
    const { a, requests, changes } = auth(null);
    await a.logout();
    expect(await a.refresh()).to.equal(null);
    expect(await a.accessToken()).to.equal(null);
    expect([requests, changes]).to.deep.equal([[], []]);
  });

  it('a request refused with an older token gets the session’s newer one, without a refresh', async () => {
    const { a, requests } = auth(session('t2'));
    expect(await a.refresh('t1')).to.deep.equal(session('t2'));
    expect(requests).to.deep.equal([]);
  });

  it('logout forgets the session at once and tells the server its refresh token', async () => {
    const { a, requests, changes } = auth(session('t1'));
    await a.logout();
    expect(a.session).to.equal(null);
    expect(changes).to.deep.equal([[null, 'signed_out']]);
    expect(requests).to.deep.equal(['http://family.test/api/auth/logout']);
  });
});
