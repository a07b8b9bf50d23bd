import { expect } from 'chai';
import { createFamilyRow } from '../../../server/family/create.js';
import { verifyAccessToken } from '../../../server/auth/tokens.js';
import { startAccountsApp, register, newFamily, decodeJwt, uniq, type AccountsApp } from './harness.js';
import { linkToken } from '../../helpers/smtp.js';

describe('auth: registration', () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  async function invite(adminToken: string, email: string) {
    const res = await a.req('POST', '/api/family/invites', { token: adminToken, body: { email } });
    expect(res.status).to.equal(201);
    const mail = await a.smtp.waitFor(email, a.smtp.to(email).length + 1);
    return { invite: res.body, token: linkToken(mail, 'invite') };
  }

  it('creates a new family with newFamilyName; the registrant is its admin; the session follows the contract', async () => {
    const r = await register(a, { newFamilyName: '  The Smiths ' }, { email: `  Mixed.${uniq()}@Example.TEST ` });
    expect(r.status).to.equal(201);
    const s = r.body;
    expect(s).to.have.keys('accessToken', 'refreshToken', 'expiresIn', 'user', 'family', 'role');
    expect(s.role).to.equal('admin');
    expect(s.family.name).to.equal('The Smiths');
    expect(s.user.email).to.equal(r.email.trim().toLowerCase()); // stored normalised
    expect(s.user.userName).to.equal(r.userName);
    expect(s.user.emailConfirmed).to.equal(false);
    expect(s.expiresIn).to.equal(900);
    expect(s.refreshToken).to.be.a('string').with.length.of.at.least(43); // ≥ 256 bits, base64url

    const { header, payload } = decodeJwt(s.accessToken);
    expect(header.alg).to.equal('HS256');
    expect(payload).to.include.keys('sub', 'family_id', 'role', 'iat', 'exp', 'jti');
    expect(payload.sub).to.equal(s.user.id);
    expect(payload.family_id).to.equal(s.family.id);
    expect(payload.exp - payload.iat).to.equal(900);

    const me = await a.req('GET', '/api/me', { token: s.accessToken });
    expect(me.status).to.equal(200);
    expect(me.body).to.deep.equal({ user: s.user, family: s.family, role: 'admin' });
  });

  it('refuses a new family with 403 when ALLOW_NEW_FAMILIES=false (but family codes still work)', async () => {
    const b = await startAccountsApp({ ALLOW_NEW_FAMILIES: 'false' });
    try {
      const r = await register(b, { newFamilyName: 'Nope' });
      expect(r.status).to.equal(403);
      expect(r.body.code).to.equal('forbidden');
      const fam = await createFamilyRow(b.app.deps.db, { name: `Coded ${uniq()}` });
      const ok = await register(b, { familyCode: fam.inviteCode });
      expect(ok.status).to.equal(201);
      // the permission is checked before duplicates: a taken user name and email still get 403
      const dup = await register(b, { newFamilyName: 'Nope' }, { email: ok.email, userName: ok.userName });
      expect(dup.status).to.equal(403);
      expect(dup.body.code).to.equal('forbidden');
    } finally {
      await b.close();
    }
  });

  it('joins with the family code: client email bound, unconfirmed, membership created, member role', async () => {
    const admin = await newFamily(a);
    const fam = await a.req('GET', '/api/family', { token: admin.token });
    const r = await register(a, { familyCode: fam.body.inviteCode });
    expect(r.status).to.equal(201);
    expect(r.body.family.id).to.equal(admin.familyId);
    expect(r.body.role).to.equal('member');
    expect(r.body.user.email).to.equal(r.email);
    expect(r.body.user.emailConfirmed).to.equal(false);
    const members = await a.req('GET', '/api/family/members', { token: admin.token });
    expect(members.body.map((m: any) => m.userId)).to.include(r.body.user.id);
  });

  it('makes the first user of a family without an admin its admin, later ones members', async () => {
    const fam = await createFamilyRow(a.app.deps.db, { name: `Empty ${uniq()}` });
    const first = await register(a, { familyCode: fam.inviteCode });
    const second = await register(a, { familyCode: fam.inviteCode });
    expect(first.body.role).to.equal('admin');
    expect(second.body.role).to.equal('member');
  });

  it('rejects an unknown family code with 400 family_code_invalid', async () => {
    const r = await register(a, { familyCode: 'NOSUCHCODE123' });
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('family_code_invalid');
  });

  it('registers with an invite: the invite email is bound (client email ignored), confirmed, invite consumed', async () => {
    const admin = await newFamily(a);
    const invited = `inv-${uniq()}@example.test`;
    const { token } = await invite(admin.token, invited);
    const r = await register(a, { inviteToken: token }, { email: `other-${uniq()}@example.test` });
    expect(r.status).to.equal(201);
    expect(r.body.user.email).to.equal(invited);
    expect(r.body.user.emailConfirmed).to.equal(true);
    expect(r.body.role).to.equal('member');
    expect(r.body.family.id).to.equal(admin.familyId);
    // consumed: the link is dead, the pending list no longer shows it
    const dead = await a.req('GET', `/api/auth/invite/${token}`);
    expect(dead.status).to.equal(404);
    expect(dead.body).to.include({
      code: 'invitation_invalid',
      detail: 'The invitation is unknown, expired, already used or revoked',
    });
    const pending = await a.req('GET', '/api/family/invites', { token: admin.token });
    expect(pending.body).to.deep.equal([]);
    const again = await register(a, { inviteToken: token });
    expect(again.status).to.equal(400);
    expect(again.body.code).to.equal('invitation_invalid');
  });

  it('answers invitation_invalid, not duplicate, for a consumed invite used with a duplicate email and user name', async () => {
    const admin = await newFamily(a);
    const invited = `dup-${uniq()}@example.test`;
    const { token } = await invite(admin.token, invited);
    const first = await register(a, { inviteToken: token });
    expect(first.status).to.equal(201);
    const r = await register(a, { inviteToken: token }, { email: invited, userName: first.userName });
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('invitation_invalid');
  });

  it('rejects an unknown invite token with invitation_invalid', async () => {
    const r = await register(a, { inviteToken: 'x'.repeat(43) });
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('invitation_invalid');
  });

  it('checks the code first, then duplicate user name, then duplicate email (all case-insensitive)', async () => {
    const admin = await newFamily(a);
    const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;

    const badCode = await register(a, { familyCode: 'WRONGCODE999' }, { email: admin.email, userName: admin.userName });
    expect(badCode.body.code).to.equal('family_code_invalid');

    const both = await register(
      a,
      { familyCode: code },
      { email: admin.email.toUpperCase(), userName: admin.userName.toUpperCase() },
    );
    expect(both.status).to.equal(409);
    expect(both.body.code).to.equal('duplicate_user_name');

    const email = await register(a, { familyCode: code }, { email: admin.email.toUpperCase() });
    expect(email.status).to.equal(409);
    expect(email.body.code).to.equal('duplicate_email');

    const viaNew = await register(a, { newFamilyName: 'Another' }, { userName: admin.userName });
    expect(viaNew.body.code).to.equal('duplicate_user_name');
  });

  it('answers duplicate_email when an invite names an address that already has an account', async () => {
    const admin = await newFamily(a);
    const other = await newFamily(a);
    const { token } = await invite(admin.token, other.email);
    const r = await register(a, { inviteToken: token });
    expect(r.status).to.equal(409);
    expect(r.body.code).to.equal('duplicate_email');
    // the invite was not consumed by the failed attempt
    expect((await a.req('GET', `/api/auth/invite/${token}`)).status).to.equal(200);
  });

  it('re-admits a removed member through an invitation: same account, new user name and password, confirmed; a family code cannot', async () => {
    const admin = await newFamily(a);
    const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
    const m = await register(a, { familyCode: code });
    expect(m.status).to.equal(201);
    expect((await a.req('DELETE', `/api/family/members/${m.body.user.id}`, { token: admin.token })).status).to.equal(
      204,
    );

    // Without proof of the address the account cannot be taken back: the family code is refused.
    const viaCode = await register(a, { familyCode: code }, { email: m.email });
    expect([viaCode.status, viaCode.body.code]).to.deep.equal([409, 'duplicate_email']);

    // Another family invites the address; the link proves it.
    const other = await newFamily(a);
    const { token } = await invite(other.token, m.email);
    const userName = `back-${uniq()}`;
    const back = await register(a, { inviteToken: token }, { userName, password: 'a brand new password' });
    expect(back.status, JSON.stringify(back.body)).to.equal(201);
    expect(back.body.user).to.include({ id: m.body.user.id, email: m.email, userName, emailConfirmed: true });
    expect(back.body.family.id).to.equal(other.familyId);
    expect(back.body.role).to.equal('member');
    const members = (await a.req('GET', '/api/family/members', { token: other.token })).body as any[];
    expect(members.map((x) => x.userId)).to.include(m.body.user.id);
    // The new password works, the old one does not; the invite is consumed.
    expect(
      (await a.req('POST', '/api/auth/login', { body: { email: m.email, password: 'a brand new password' } })).status,
    ).to.equal(200);
    expect(
      (await a.req('POST', '/api/auth/login', { body: { email: m.email, password: m.password } })).status,
    ).to.equal(401);
    expect((await a.req('GET', `/api/auth/invite/${token}`)).status).to.equal(404);
  });

  it('re-admission still checks the user name against other accounts; tokens of before the removal stay dead', async () => {
    const admin = await newFamily(a);
    const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
    const m = await register(a, { familyCode: code });
    expect((await a.req('DELETE', `/api/family/members/${m.body.user.id}`, { token: admin.token })).status).to.equal(
      204,
    );
    const { token } = await invite(admin.token, m.email);
    // Back in the same family later: the tokens of before the removal stay dead.
    a.clock.advance(2_000);
    const taken = await register(a, { inviteToken: token }, { userName: admin.userName.toUpperCase() });
    expect([taken.status, taken.body.code]).to.deep.equal([409, 'duplicate_user_name']);
    // Its own former user name is fine.
    const same = await register(a, { inviteToken: token }, { userName: m.userName });
    expect(same.status, JSON.stringify(same.body)).to.equal(201);
    expect(same.body.user.id).to.equal(m.body.user.id);
    expect((await a.req('GET', '/api/me', { token: same.body.accessToken })).status).to.equal(200);
    expect((await a.req('GET', '/api/me', { token: m.body.accessToken })).status).to.equal(401);
  });

  it('requires an email in every case, and exactly one of inviteToken, familyCode, newFamilyName', async () => {
    const admin = await newFamily(a);
    const { token } = await invite(admin.token, `noemail-${uniq()}@example.test`);
    const noEmail = await a.req('POST', '/api/auth/register', {
      body: { userName: `u-${uniq()}`, password: 'long enough pw', inviteToken: token },
    });
    expect(noEmail.status).to.equal(400);
    expect(noEmail.body.code).to.equal('validation_failed');
    expect(noEmail.body.errors.map((e: any) => e.path)).to.include('body.email');
    expect((await a.req('GET', `/api/auth/invite/${token}`)).status).to.equal(200); // unchanged

    const none = await a.req('POST', '/api/auth/register', {
      body: { email: `x-${uniq()}@example.test`, userName: `u-${uniq()}`, password: 'long enough pw' },
    });
    expect(none.status).to.equal(400);
    expect(none.body.errors.map((e: any) => e.path)).to.include('body.inviteToken');

    const two = await a.req('POST', '/api/auth/register', {
      body: {
        email: `x-${uniq()}@example.test`,
        userName: `u-${uniq()}`,
        password: 'long enough pw',
        familyCode: 'ABC',
        newFamilyName: 'F',
      },
    });
    expect(two.status).to.equal(400);
  });

  it('issues tokens the server verifies with its own secret and clock', async () => {
    const r = await newFamily(a);
    const claims = verifyAccessToken(a.app.deps.jwtSecret, r.token, a.clock.now().getTime());
    expect(claims?.role).to.equal('admin');
  });
});
