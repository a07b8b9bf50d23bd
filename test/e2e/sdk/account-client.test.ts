// `@family-shopping/client/auth` (createAccountClient): an app's sign-in page registers, signs
// in and out and calls the public auth endpoints against the real app, without the local
// database; what it gets back is the session, or a FamilyApiError built from problem+json
// (status 0 `network_error` when no complete answer came).
import { expect } from 'chai';
import crypto from 'node:crypto';
import { createAccountClient, FamilyApiError, type Session } from '@family-shopping/client/auth';
import { makeFamily } from '../../helpers/factories.js';
import { apiError, fetchAs, sdkSuite } from './helpers.js';
import { startSilentProxy } from './silent-proxy.js';

describe('e2e SDK: the account client (sign-in page)', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('registers a new family, signs out (the refresh token is revoked) and in again; onSession sees each', async () => {
    const seen: (Session | null)[] = [];
    // a base URL with trailing slashes reaches the same paths
    const account = createAccountClient({
      baseUrl: `${sdk.app.url}//`,
      fetch: fetchAs(),
      onSession: (s) => seen.push(s),
    });
    expect(account.auth.session).to.equal(null);
    const email = `acc-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const session = await account.auth.register({
      email,
      userName: 'Ada',
      password: 'correct horse 1',
      newFamilyName: 'Lovelace',
    });
    expect(session).to.include({ role: 'admin' });
    expect(session.user).to.include({ email, userName: 'Ada' });
    expect(session.family).to.include({ name: 'Lovelace' });
    expect(account.auth.session).to.deep.equal(session);
    expect(seen).to.deep.equal([session]);

    await account.auth.logout();
    expect(account.auth.session).to.equal(null);
    expect(seen).to.deep.equal([session, null]);
    const refresh = await fetchAs()(`${sdk.app.url}/api/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: session.refreshToken }),
    });
    expect(refresh.status, 'the signed-out refresh token is revoked').to.equal(401);
    await account.auth.logout(); // signed out already: nothing happens
    expect(seen).to.have.length(2);

    const again = await account.auth.login(email, 'correct horse 1');
    expect(again.user.id).to.equal(session.user.id);
    expect(seen).to.deep.equal([session, null, again]);
  });

  it('a refused sign-in is the server’s problem+json as FamilyApiError, and keeps no session', async () => {
    const family = await makeFamily(sdk.app);
    const seen: (Session | null)[] = [];
    const account = createAccountClient({ baseUrl: sdk.app.url, fetch: fetchAs(), onSession: (s) => seen.push(s) });
    const err = await apiError(account.auth.login(family.admin.email, 'not the password'));
    expect(err).to.include({ status: 401 });
    expect(err.code)
      .to.be.a('string')
      .and.not.match(/^http_/);
    expect(err.title).to.be.a('string').and.not.equal('');
    expect(err.transient).to.equal(false);
    const invalid = await apiError(
      account.auth.register({ email: 'not-an-email', userName: '', password: 'x', newFamilyName: 'F' }),
    );
    expect(invalid.status).to.equal(400);
    expect(invalid.errors).to.be.an('array').that.is.not.empty;
    expect(account.auth.session).to.equal(null);
    expect(seen).to.deep.equal([]);
  });

  it('public requests: the JSON body, or FamilyApiError from problem+json', async () => {
    const account = createAccountClient({ baseUrl: sdk.app.url, fetch: fetchAs() });
    const answer = await account.publicRequest<{ message: string }>('POST', '/api/auth/forgot-password', {
      email: 'nobody@example.com',
    });
    expect(answer.message).to.be.a('string').and.not.equal('');
    const err = await apiError(account.publicRequest('GET', '/api/auth/invite/no-such-token'));
    expect(err).to.include({ status: 404, code: 'invitation_invalid' });
  });

  it('no server, or one that never answers: network_error (status 0) after requestTimeoutMs', async () => {
    // a port nothing listens on
    const closed = createAccountClient({ baseUrl: 'http://127.0.0.1:9', fetch: fetchAs() });
    const refused = await apiError(closed.publicRequest('GET', '/api/auth/invite/x'));
    expect(refused).to.include({ status: 0, code: 'network_error' });
    expect(refused.transient).to.equal(true);

    const proxy = sdk.track(await startSilentProxy(sdk.app));
    proxy.silence();
    const silent = createAccountClient({ baseUrl: proxy.url, fetch: fetchAs(), requestTimeoutMs: 1_000 });
    const outcome = await Promise.race([
      silent.auth.login('a@example.com', 'whatever').then(
        () => 'answered',
        (e: unknown) => e,
      ),
      new Promise((r) => setTimeout(() => r('still waiting after 15 s'), 15_000)),
    ]);
    expect(outcome).to.be.instanceOf(FamilyApiError);
    expect(outcome).to.include({ status: 0, code: 'network_error' });
    expect((outcome as FamilyApiError).detail).to.match(/1000 ms/);
    expect(silent.auth.session).to.equal(null);
  });
});
