// Sessions as refresh-token chains and the refresh grace (contract section 7): access tokens
// name their chain in `sid`; a rotated refresh token presented again within REFRESH_REUSE_GRACE
// answers the same successor (two tabs or a retry stay signed in), later it is reuse and signs
// the user out everywhere. Only hashes of refresh tokens are stored; the successor is kept
// sealed with a key derived from the rotated token, never in plain text.
import { expect } from 'chai';
import { sha256 } from '../../../server/db/ids.js';
import { startAccountsApp, newFamily, decodeJwt, PASSWORD, type AccountsApp } from './harness.js';

describe('auth: sessions (sid) and the refresh grace', () => {
  let a: AccountsApp;
  before(async function () {
    this.timeout(120_000); // starts an app (migrations on a fresh database) on a loaded machine
    a = await startAccountsApp(); // REFRESH_REUSE_GRACE: the default 30s
  });
  after(async () => {
    await a?.close();
  });

  const refresh = (refreshToken: string) => a.req('POST', '/api/auth/refresh', { body: { refreshToken } });
  const login = (email: string) => a.req('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
  const sid = (accessToken: string) => decodeJwt(accessToken).payload.sid as string;

  it('gives every access token a sid naming its session, kept across rotations, new per login', async () => {
    const u = await newFamily(a);
    const s1 = sid(u.token);
    expect(s1).to.match(/^[0-9a-f-]{36}$/);
    const r1 = await refresh(u.body.refreshToken);
    const r2 = await refresh(r1.body.refreshToken);
    expect(sid(r1.body.accessToken)).to.equal(s1);
    expect(sid(r2.body.accessToken)).to.equal(s1);
    const other = await login(u.email);
    expect(sid(other.body.accessToken)).to.not.equal(s1);
    expect(decodeJwt(u.token).header.alg).to.equal('HS256');
  });

  it('answers a rotated token again within the grace with the same successor session', async () => {
    const u = await newFamily(a);
    const first = await refresh(u.body.refreshToken);
    expect(first.status).to.equal(200);
    a.clock.advance(29_000);
    try {
      const second = await refresh(u.body.refreshToken);
      expect(second.status).to.equal(200);
      expect(second.body.refreshToken).to.equal(first.body.refreshToken);
      expect(sid(second.body.accessToken)).to.equal(sid(first.body.accessToken));
      expect(second.body.user).to.deep.equal(first.body.user);
      expect(second.body.family).to.deep.equal(first.body.family);
      expect(second.body.role).to.equal('admin');
      expect(second.body.expiresIn).to.equal(first.body.expiresIn);
      expect((await a.req('GET', '/api/me', { token: second.body.accessToken })).status).to.equal(200);
    } finally {
      a.clock.advance(-29_000);
    }
    // Nobody was signed out: the successor rotates as usual.
    const next = await refresh(first.body.refreshToken);
    expect(next.status).to.equal(200);
    expect(sid(next.body.accessToken)).to.equal(sid(u.token));
  });

  it('two (and five) concurrent refreshes with the same token all succeed with the same successor', async () => {
    for (const n of [2, 5]) {
      const u = await newFamily(a);
      const other = await login(u.email); // another device must stay signed in
      const results = await Promise.all(Array.from({ length: n }, () => refresh(u.body.refreshToken)));
      expect(results.map((r) => r.status)).to.deep.equal(Array(n).fill(200));
      const successors = new Set(results.map((r) => r.body.refreshToken));
      expect(successors.size, 'one successor').to.equal(1);
      expect(new Set(results.map((r) => sid(r.body.accessToken)))).to.deep.equal(new Set([sid(u.token)]));
      // one chain, one new token: the presented token and one successor
      const chain = await a.app.deps.db('refresh_tokens').where({ user_id: u.body.user.id, chain_id: sid(u.token) });
      expect(chain).to.have.length(2);
      expect((await refresh([...successors][0]!)).status).to.equal(200);
      expect((await refresh(other.body.refreshToken)).status).to.equal(200);
    }
  });

  it('after the grace, a rotated token is reuse: 401, and every refresh token of the user is revoked', async () => {
    const u = await newFamily(a);
    const other = await login(u.email);
    const first = await refresh(u.body.refreshToken);
    a.clock.advance(30_001);
    try {
      const late = await refresh(u.body.refreshToken);
      expect(late.status).to.equal(401);
      expect(late.body.code).to.equal('unauthenticated');
    } finally {
      a.clock.advance(-30_001);
    }
    expect((await refresh(first.body.refreshToken)).status).to.equal(401);
    expect((await refresh(other.body.refreshToken)).status).to.equal(401);
    expect(a.logs.some((l) => l.includes('refresh token reused'))).to.equal(true);
  });

  it('a successor signed out meanwhile (logout) is not answered again: 401, other sessions stay', async () => {
    const u = await newFamily(a);
    const other = await login(u.email);
    const first = await refresh(u.body.refreshToken);
    expect(
      (await a.req('POST', '/api/auth/logout', { body: { refreshToken: first.body.refreshToken } })).status,
    ).to.equal(204);
    expect((await refresh(u.body.refreshToken)).status).to.equal(401);
    expect((await refresh(other.body.refreshToken)).status).to.equal(200);
  });

  it('keeps no usable refresh token in plain text: hashes, and the successor sealed with the rotated token', async () => {
    const u = await newFamily(a);
    const first = await refresh(u.body.refreshToken);
    const rows = await a.app.deps.db('refresh_tokens').where({ user_id: u.body.user.id });
    const dump = JSON.stringify(rows);
    for (const raw of [u.body.refreshToken, first.body.refreshToken]) {
      expect(dump).to.not.include(raw);
      expect(dump).to.not.include(Buffer.from(raw).toString('base64'));
    }
    const rotated = rows.find((r: { token_hash: string }) => r.token_hash === sha256(u.body.refreshToken));
    const successor = rows.find((r: { token_hash: string }) => r.token_hash === sha256(first.body.refreshToken));
    expect(rotated.successor_id).to.equal(successor.id);
    expect(rotated.successor_sealed).to.match(/^v1\./);
    expect(successor.chain_id).to.equal(rotated.chain_id);
    // A sealed successor opened with anything but the rotated token is no session.
    const forged = await refresh(first.body.refreshToken.slice(0, -2) + 'AA');
    expect(forged.status).to.equal(401);
  });

  describe('with REFRESH_REUSE_GRACE=0s', () => {
    let off: AccountsApp;
    before(async function () {
      this.timeout(120_000);
      off = await startAccountsApp({ REFRESH_REUSE_GRACE: '0s' });
    });
    after(async () => {
      await off?.close();
    });

    it('any second use of a token is reuse, at once; nothing sealed is kept', async () => {
      const u = await newFamily(off);
      const first = await off.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } });
      expect(first.status).to.equal(200);
      const row = await off.app.deps
        .db('refresh_tokens')
        .where({ token_hash: sha256(u.body.refreshToken) })
        .first();
      expect(row.successor_sealed).to.equal(null);
      const again = await off.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } });
      expect(again.status).to.equal(401);
      expect(
        (await off.req('POST', '/api/auth/refresh', { body: { refreshToken: first.body.refreshToken } })).status,
      ).to.equal(401);
    });
  });
});
