// Self-service of contract section 7: password change (other sessions signed out, the caller's
// stays), user name, family name. Against the real app, its database and its session rules.
import { expect } from 'chai';
import { startAccountsApp, newFamily, register, decodeJwt, PASSWORD, uniq, type AccountsApp } from './harness.js';

describe('auth: self-service (password, user name, family name)', () => {
  let a: AccountsApp;
  before(async function () {
    this.timeout(120_000); // starts an app (migrations on a fresh database) on a loaded machine
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  const login = (email: string, password: string) => a.req('POST', '/api/auth/login', { body: { email, password } });
  const refresh = (refreshToken: string) => a.req('POST', '/api/auth/refresh', { body: { refreshToken } });
  const changePassword = (token: string, currentPassword: string, newPassword: string) =>
    a.req('POST', '/api/me/password', { token, body: { currentPassword, newPassword } });

  describe('POST /api/me/password', () => {
    it('changes the password (204): the new one signs in, the old one no longer does', async () => {
      const u = await newFamily(a);
      const res = await changePassword(u.token, PASSWORD, 'a brand new password');
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expect((await login(u.email, PASSWORD)).status).to.equal(401);
      expect((await login(u.email, 'a brand new password')).status).to.equal(200);
    });

    it('signs out every other session of the user, keeps the calling one (its whole chain)', async () => {
      const u = await newFamily(a); // session 1 (the registration)
      const laptop = await login(u.email, PASSWORD); // session 2
      const phone = await login(u.email, PASSWORD); // session 3: the caller
      // The caller's session has rotated once: its chain holds two tokens, the live one last.
      const rotated = await refresh(phone.body.refreshToken);
      expect(rotated.status).to.equal(200);
      const sid = decodeJwt(rotated.body.accessToken).payload.sid;
      expect(sid).to.equal(decodeJwt(phone.body.accessToken).payload.sid);

      expect((await changePassword(rotated.body.accessToken, PASSWORD, 'changed password 1')).status).to.equal(204);

      expect((await refresh(u.body.refreshToken)).status).to.equal(401);
      expect((await refresh(laptop.body.refreshToken)).status).to.equal(401);
      const still = await refresh(rotated.body.refreshToken);
      expect(still.status).to.equal(200);
      expect(decodeJwt(still.body.accessToken).payload.sid).to.equal(sid);
      expect((await a.req('GET', '/api/me', { token: still.body.accessToken })).status).to.equal(200);
      // The signed-out sessions' access tokens live out their short lifetime (as after a reset).
      expect((await a.req('GET', '/api/me', { token: laptop.body.accessToken })).status).to.equal(200);
    });

    it('answers a wrong current password with 400 invalid_credentials and changes nothing', async () => {
      const u = await newFamily(a);
      const other = await login(u.email, PASSWORD);
      const res = await changePassword(u.token, 'not my password', 'a brand new password');
      expect(res.status).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body.code).to.equal('invalid_credentials');
      expect((await login(u.email, PASSWORD)).status).to.equal(200);
      expect((await refresh(other.body.refreshToken)).status).to.equal(200);
    });

    it('applies the registration password rules (8 to 1024 characters): 400 validation_failed', async () => {
      const u = await newFamily(a);
      for (const newPassword of ['short', 'x'.repeat(1025)]) {
        const res = await changePassword(u.token, PASSWORD, newPassword);
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.newPassword']);
      }
      const missing = await a.req('POST', '/api/me/password', {
        token: u.token,
        body: { newPassword: 'long enough pw' },
      });
      expect(missing.status).to.equal(400);
      expect(missing.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.currentPassword']);
      expect((await login(u.email, PASSWORD)).status).to.equal(200);
    });

    it('needs a signed-in caller (401)', async () => {
      const res = await a.req('POST', '/api/me/password', {
        body: { currentPassword: PASSWORD, newPassword: 'long enough pw' },
      });
      expect(res.status).to.equal(401);
    });

    it('kills an outstanding password reset link made for the old password', async () => {
      // An invite-registered user is confirmed, so forgot-password sends a link.
      const admin = await newFamily(a);
      const email = `pw-${uniq()}@example.test`;
      await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } });
      const { linkToken } = await import('../../helpers/smtp.js');
      const r = await register(a, { inviteToken: linkToken(await a.smtp.waitFor(email), 'invite') });
      await a.req('POST', '/api/auth/forgot-password', { body: { email } });
      const resetToken = linkToken(await a.smtp.waitFor(email, 2), 'reset-password');
      expect((await changePassword(r.body.accessToken, PASSWORD, 'changed password 2')).status).to.equal(204);
      const reset = await a.req('POST', '/api/auth/reset-password', {
        body: { token: resetToken, newPassword: 'attacker password' },
      });
      expect(reset.status).to.equal(400);
      expect(reset.body.code).to.equal('reset_token_invalid');
    });
  });

  describe('PATCH /api/me', () => {
    it('changes the user name (trimmed) and answers { user, family, role }', async () => {
      const u = await newFamily(a);
      const name = `  Renamed ${uniq()}  `;
      const res = await a.req('PATCH', '/api/me', { token: u.token, body: { userName: name } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        user: { id: u.body.user.id, email: u.email, userName: name.trim(), emailConfirmed: false, locale: null },
        family: u.body.family,
        role: 'admin',
      });
      expect((await a.req('GET', '/api/me', { token: u.token })).body).to.deep.equal(res.body);
      const members = (await a.req('GET', '/api/family/members', { token: u.token })).body;
      expect(members[0].userName).to.equal(name.trim());
    });

    it("answers 409 duplicate_user_name for another user's name in any letter case; one's own name in another case is fine", async () => {
      const taken = await newFamily(a);
      const u = await newFamily(a);
      for (const userName of [taken.userName, taken.userName.toUpperCase()]) {
        const res = await a.req('PATCH', '/api/me', { token: u.token, body: { userName } });
        expect(res.status).to.equal(409);
        expect(res.body.code).to.equal('duplicate_user_name');
      }
      expect((await a.req('GET', '/api/me', { token: u.token })).body.user.userName).to.equal(u.userName);
      const own = await a.req('PATCH', '/api/me', { token: u.token, body: { userName: u.userName.toUpperCase() } });
      expect(own.status).to.equal(200);
      expect(own.body.user.userName).to.equal(u.userName.toUpperCase());
      // and the new name is taken for registration, in any case
      const reg = await register(a, { newFamilyName: 'F' }, { userName: u.userName.toLowerCase() });
      expect(reg.status).to.equal(409);
      expect(reg.body.code).to.equal('duplicate_user_name');
    });

    it('applies the registration user-name rules: blank or over 100 characters is 400 validation_failed', async () => {
      const u = await newFamily(a);
      for (const userName of ['   ', '', 'x'.repeat(101), 7]) {
        const res = await a.req('PATCH', '/api/me', { token: u.token, body: { userName } });
        expect(res.status, JSON.stringify(userName)).to.equal(400);
        expect(res.body.errors[0].path).to.equal('body.userName');
      }
      expect((await a.req('GET', '/api/me', { token: u.token })).body.user.userName).to.equal(u.userName);
    });
  });

  describe('PATCH /api/family', () => {
    it('renames the family (admin, trimmed) and answers { id, name, inviteCode }; names need not be unique', async () => {
      const u = await newFamily(a);
      const other = await newFamily(a);
      const before = (await a.req('GET', '/api/family', { token: u.token })).body;
      const res = await a.req('PATCH', '/api/family', { token: u.token, body: { name: '  The Smiths  ' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        id: u.familyId,
        name: 'The Smiths',
        inviteCode: before.inviteCode,
        locale: 'en',
      });
      expect((await a.req('GET', '/api/family', { token: u.token })).body).to.deep.equal(res.body);
      expect((await a.req('GET', '/api/me', { token: u.token })).body.family).to.deep.equal({
        id: u.familyId,
        name: 'The Smiths',
        locale: 'en',
      });
      // the next session carries the new name
      expect((await login(u.email, PASSWORD)).body.family.name).to.equal('The Smiths');
      const same = await a.req('PATCH', '/api/family', { token: other.token, body: { name: 'The Smiths' } });
      expect(same.status).to.equal(200);
      expect(same.body.id).to.equal(other.familyId);
    });

    it('takes 1 to 100 characters: blank or 101 is 400 validation_failed and changes nothing', async () => {
      const u = await newFamily(a);
      const name = (await a.req('GET', '/api/family', { token: u.token })).body.name;
      expect(
        (await a.req('PATCH', '/api/family', { token: u.token, body: { name: 'x'.repeat(100) } })).status,
      ).to.equal(200);
      for (const bad of ['   ', 'x'.repeat(101), null]) {
        const res = await a.req('PATCH', '/api/family', { token: u.token, body: { name: bad } });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('validation_failed');
        expect(res.body.errors[0].path).to.equal('body.name');
      }
      expect((await a.req('GET', '/api/family', { token: u.token })).body.name).to.equal('x'.repeat(100));
      expect(name).to.not.equal('x'.repeat(100));
    });

    it('is for admins: a member gets 403 forbidden and the name stays', async () => {
      const admin = await newFamily(a);
      const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
      const m = await register(a, { familyCode: code });
      const res = await a.req('PATCH', '/api/family', { token: m.body.accessToken, body: { name: 'Mine now' } });
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('forbidden');
      expect((await a.req('GET', '/api/family', { token: admin.token })).body.name).to.equal(admin.body.family.name);
    });
  });
});
