import { expect } from 'chai';
import argon2 from 'argon2';
import jwt from 'jsonwebtoken';
import { dummyPasswordHash, hashPassword } from '../../../server/auth/passwords.js';
import { signAccessToken } from '../../../server/auth/tokens.js';
import { sha256 } from '../../../server/db/ids.js';
import { startAccountsApp, newFamily, register, PASSWORD, uniq, type AccountsApp } from './harness.js';

describe('auth: login, refresh, logout, access tokens', () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  const login = (email: string, password: string) => a.req('POST', '/api/auth/login', { body: { email, password } });

  it('logs in with email (any case) and password and returns a session', async () => {
    const u = await newFamily(a);
    const res = await login(u.email.toUpperCase(), PASSWORD);
    expect(res.status).to.equal(200);
    expect(res.body.user.id).to.equal(u.body.user.id);
    expect(res.body.family.id).to.equal(u.familyId);
    expect(res.body.role).to.equal('admin');
    expect((await a.req('GET', '/api/me', { token: res.body.accessToken })).status).to.equal(200);
  });

  it('reads the bearer token of Authorization: the scheme in any case, then spaces, then the token alone', async () => {
    const u = await newFamily(a);
    const t = (await login(u.email, PASSWORD)).body.accessToken as string;
    const me = (authorization: string) => a.req('GET', '/api/me', { headers: { authorization } });
    for (const good of [`Bearer ${t}`, `bearer ${t}`, `BEARER    ${t}`, `Bearer\t${t}`]) {
      expect((await me(good)).status, good.replace(t, 'T')).to.equal(200);
    }
    for (const bad of [`Token ${t}`, `xBearer ${t}`, `Bearer${t}`, `Bearer ${t} more`, `Bearer ${t}!`, t]) {
      const res = await me(bad);
      expect(res.status, bad.replace(t, 'T')).to.equal(401);
    }
  });

  it('answers an unknown email and a wrong password alike: 401 invalid_credentials', async () => {
    const u = await newFamily(a);
    const wrong = await login(u.email, 'wrong password!');
    const unknown = await login(`nobody-${uniq()}@example.test`, PASSWORD);
    expect(wrong.status).to.equal(401);
    expect(unknown.status).to.equal(401);
    expect(wrong.body).to.deep.equal(unknown.body);
    expect(wrong.body.code).to.equal('invalid_credentials');
  });

  it('spends one argon2id verification on an unknown email too, against a dummy hash with the real parameters', async () => {
    // No timing is asserted: the test shows the mechanism that makes both failures cost the same.
    const params = (hash: string) => hash.split('$').slice(0, 4).join('$'); // $argon2id$v=19$m=…,t=…,p=…
    const dummy = await dummyPasswordHash();
    expect(params(dummy)).to.equal(params(await hashPassword('any password at all')));
    expect(params(dummy)).to.match(/^\$argon2id\$/);

    const u = await newFamily(a);
    const stored = (await a.app.deps.db('users').where({ id: u.body.user.id }).first('password_hash'))
      .password_hash as string;
    const original = argon2.verify;
    const verified: string[] = [];
    argon2.verify = ((hash: string, ...rest: unknown[]) => {
      verified.push(hash);
      return (original as (...args: unknown[]) => Promise<boolean>)(hash, ...rest);
    }) as typeof argon2.verify;
    try {
      expect((await login(`nobody-${uniq()}@example.test`, PASSWORD)).status).to.equal(401);
      expect(verified).to.deep.equal([dummy]);
      expect((await login(u.email, 'wrong password!')).status).to.equal(401);
      expect(verified).to.deep.equal([dummy, stored]);
    } finally {
      argon2.verify = original;
    }
  });

  it('rotates the refresh token on every use; the new one works, the old one does not', async () => {
    const u = await newFamily(a);
    const r1 = await a.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } });
    expect(r1.status).to.equal(200);
    expect(r1.body.refreshToken).to.not.equal(u.body.refreshToken);
    expect(r1.body.user.id).to.equal(u.body.user.id);
    expect((await a.req('GET', '/api/me', { token: r1.body.accessToken })).status).to.equal(200);
    const r2 = await a.req('POST', '/api/auth/refresh', { body: { refreshToken: r1.body.refreshToken } });
    expect(r2.status).to.equal(200);
  });

  it('revokes every refresh token of the user when a rotated one is reused after the grace (30 s)', async () => {
    const u = await newFamily(a);
    const other = await login(u.email, PASSWORD); // a second device
    const r1 = await a.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } });
    a.clock.advance(30_000); // REFRESH_REUSE_GRACE: exactly 30 s later is reuse
    const reuse = await a.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } });
    a.clock.advance(-30_000);
    expect(reuse.status).to.equal(401);
    expect(reuse.body.code).to.equal('unauthenticated');
    // the thief's and the owner's newer tokens are dead too
    expect(
      (await a.req('POST', '/api/auth/refresh', { body: { refreshToken: r1.body.refreshToken } })).status,
    ).to.equal(401);
    expect(
      (await a.req('POST', '/api/auth/refresh', { body: { refreshToken: other.body.refreshToken } })).status,
    ).to.equal(401);
    // signing in again works
    expect((await login(u.email, PASSWORD)).status).to.equal(200);
  });

  it('logout revokes the refresh token (204), and answers 204 for an unknown one', async () => {
    const u = await newFamily(a);
    const out = await a.req('POST', '/api/auth/logout', { body: { refreshToken: u.body.refreshToken } });
    expect(out.status).to.equal(204);
    expect((await a.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } })).status).to.equal(
      401,
    );
    expect((await a.req('POST', '/api/auth/logout', { body: { refreshToken: 'nope' } })).status).to.equal(204);
  });

  it('rejects an unknown or expired refresh token with 401', async () => {
    expect((await a.req('POST', '/api/auth/refresh', { body: { refreshToken: 'x'.repeat(43) } })).status).to.equal(401);
    const u = await newFamily(a);
    a.clock.advance(31 * 24 * 3600_000);
    try {
      expect(
        (await a.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } })).status,
      ).to.equal(401);
    } finally {
      a.clock.advance(-31 * 24 * 3600_000);
    }
  });

  it('stores refresh tokens only hashed', async () => {
    const u = await newFamily(a);
    const db = a.app.deps.db;
    expect(await db('refresh_tokens').where({ token_hash: u.body.refreshToken }).first()).to.equal(undefined);
    expect(
      await db('refresh_tokens')
        .where({ token_hash: sha256(u.body.refreshToken) })
        .first(),
    ).to.not.equal(undefined);
  });

  describe('access tokens', () => {
    it('rejects a missing or malformed bearer token with 401', async () => {
      expect((await a.req('GET', '/api/me')).status).to.equal(401);
      const bad = await a.req('GET', '/api/me', { token: 'not-a-jwt' });
      expect(bad.status).to.equal(401);
      expect(bad.body.code).to.equal('unauthenticated');
    });

    it('rejects alg none with 401', async () => {
      const u = await newFamily(a);
      const payload = JSON.parse(Buffer.from(u.token.split('.')[1]!, 'base64url').toString());
      const none = jwt.sign(payload, '', { algorithm: 'none' });
      const res = await a.req('GET', '/api/me', { token: none });
      expect(res.status).to.equal(401);
      const handmade = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${u.token.split('.')[1]}.`;
      expect((await a.req('GET', '/api/me', { token: handmade })).status).to.equal(401);
    });

    it('rejects another algorithm (HS512 with the right secret) and a tampered token with 401', async () => {
      const u = await newFamily(a);
      const payload = JSON.parse(Buffer.from(u.token.split('.')[1]!, 'base64url').toString());
      const hs512 = jwt.sign(payload, a.app.deps.jwtSecret, { algorithm: 'HS512' });
      expect((await a.req('GET', '/api/me', { token: hs512 })).status).to.equal(401);

      const other = await newFamily(a);
      const [h, , s] = u.token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...payload, family_id: other.familyId })).toString('base64url');
      expect((await a.req('GET', '/api/me', { token: `${h}.${forged}.${s}` })).status).to.equal(401);
      const wrongKey = jwt.sign(payload, 'another secret of at least thirty-two bytes', { algorithm: 'HS256' });
      expect((await a.req('GET', '/api/me', { token: wrongKey })).status).to.equal(401);
    });

    it('rejects an expired token with 401 (clock moved, no sleeping)', async () => {
      const u = await newFamily(a);
      a.clock.advance(16 * 60_000);
      try {
        const res = await a.req('GET', '/api/me', { token: u.token });
        expect(res.status).to.equal(401);
        // refresh still works and yields a token valid at the new time
        const r = await a.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } });
        expect(r.status).to.equal(200);
        expect((await a.req('GET', '/api/me', { token: r.body.accessToken })).status).to.equal(200);
      } finally {
        a.clock.advance(-16 * 60_000);
      }
    });

    it("rejects a token whose family_id is not the user's family", async () => {
      const u = await newFamily(a);
      const other = await newFamily(a);
      const token = signAccessToken(
        a.app.deps.jwtSecret,
        { userId: u.body.user.id, familyId: other.familyId, role: 'admin' },
        600,
        a.clock.now().getTime(),
      );
      expect((await a.req('GET', '/api/family', { token })).status).to.equal(401);
    });

    it("rejects a removed member's token with 401 from the next request on", async () => {
      const admin = await newFamily(a);
      const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
      const m = await register(a, { familyCode: code });
      expect((await a.req('GET', '/api/me', { token: m.body.accessToken })).status).to.equal(200);
      expect((await a.req('DELETE', `/api/family/members/${m.body.user.id}`, { token: admin.token })).status).to.equal(
        204,
      );
      const res = await a.req('GET', '/api/me', { token: m.body.accessToken });
      expect(res.status).to.equal(401);
      expect(
        (await a.req('POST', '/api/auth/refresh', { body: { refreshToken: m.body.refreshToken } })).status,
      ).to.equal(401);
      // the password still matches, but the account has no family any more
      expect((await login(m.email, PASSWORD)).status).to.equal(403);
    });

    it('gives a member 403 on admin endpoints', async () => {
      const admin = await newFamily(a);
      const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
      const m = await register(a, { familyCode: code });
      const t = m.body.accessToken;
      const calls: Array<[string, string, unknown?]> = [
        ['POST', '/api/family/invite-code'],
        ['GET', '/api/family/invites'],
        ['POST', '/api/family/invites', { email: `x-${uniq()}@example.test` }],
        ['POST', `/api/family/invites/${admin.body.user.id}/resend`],
        ['DELETE', `/api/family/invites/${admin.body.user.id}`],
        ['PATCH', `/api/family/members/${m.body.user.id}`, { role: 'admin' }],
        ['DELETE', `/api/family/members/${admin.body.user.id}`],
        ['PATCH', '/api/family', { name: 'Taken over' }],
      ];
      for (const [method, path, body] of calls) {
        const res = await a.req(method, path, { token: t, body });
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.code).to.equal('forbidden');
      }
      expect((await a.req('GET', '/api/me', { token: t })).body.role).to.equal('member');
    });
  });
});
