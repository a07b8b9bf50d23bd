// Email confirmation (contract section 7) through a real SMTP sink: the link as a user gets it,
// single use, 24 hours, a new link kills the earlier ones, only the SHA-256 stored; and the story
// it exists for: a founding admin who joined with the family code confirms the address and can
// then use forgot-password.
import { expect } from 'chai';
import { linkToken } from '../../helpers/smtp.js';
import { sha256 } from '../../../server/db/ids.js';
import { createFamilyRow } from '../../../server/family/create.js';
import { startAccountsApp, newFamily, register, PASSWORD, uniq, type AccountsApp } from './harness.js';

describe('auth: email confirmation', () => {
  let a: AccountsApp;
  before(async function () {
    this.timeout(120_000); // starts an app (migrations on a fresh database) on a loaded machine
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  const settle = () => new Promise((r) => setTimeout(r, 300));
  const request = (token: string) => a.req('POST', '/api/me/email-confirmation', { token });
  const confirm = (token: unknown) => a.req('POST', '/api/auth/confirm-email', { body: { token } });
  const me = async (token: string) => (await a.req('GET', '/api/me', { token })).body;

  async function confirmationMail(email: string, n = 1) {
    const mail = await a.smtp.waitFor(email, n);
    expect(mail.subject).to.match(/confirm/i);
    const token = linkToken(mail, 'confirm-email');
    expect(mail.text).to.include(`http://app.test/confirm-email/${token}`);
    expect(mail.html).to.include(`href="http://app.test/confirm-email/${token}"`);
    return token;
  }

  it('mails an unconfirmed user a single-use link (202); the token confirms the email (200 { message })', async () => {
    const u = await newFamily(a); // a new family's registrant is unconfirmed
    expect(u.body.user.emailConfirmed).to.equal(false);
    const res = await request(u.token);
    expect(res.status).to.equal(202);
    expect(res.body.message).to.be.a('string');
    const token = await confirmationMail(u.email);
    expect(Buffer.from(token, 'base64url').length).to.be.at.least(32); // ≥ 256 bits

    const ok = await confirm(token);
    expect(ok.status).to.equal(200);
    expect(ok.body).to.have.keys('message');
    expect((await me(u.token)).user.emailConfirmed).to.equal(true);
    const row = await a.app.deps.db('users').where({ id: u.body.user.id }).first('email_confirmed_at');
    expect(row.email_confirmed_at).to.be.instanceOf(Date);

    const again = await confirm(token);
    expect(again.status).to.equal(400);
    expect(again.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(again.body.code).to.equal('confirmation_invalid');
  });

  it('answers 200 with no mail when the email is confirmed already', async () => {
    const admin = await newFamily(a);
    const email = `inv-${uniq()}@example.test`;
    await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } });
    const r = await register(a, { inviteToken: linkToken(await a.smtp.waitFor(email), 'invite') });
    expect(r.body.user.emailConfirmed).to.equal(true);
    const res = await request(r.body.accessToken);
    expect(res.status).to.equal(200);
    expect(res.body.message).to.be.a('string');
    await settle();
    expect(a.smtp.to(email)).to.have.length(1); // the invitation only
  });

  it('stores only the SHA-256 of the token, bound to the address, valid 24 hours', async () => {
    const u = await newFamily(a);
    const t0 = a.clock.now().getTime();
    await request(u.token);
    const token = await confirmationMail(u.email);
    const rows = await a.app.deps.db('email_confirmation_tokens').where({ user_id: u.body.user.id });
    expect(rows).to.have.length(1);
    expect(rows[0].token_hash).to.equal(sha256(token));
    expect(JSON.stringify(rows)).to.not.include(token);
    expect(rows[0].email).to.equal(u.email);
    const ttl = new Date(rows[0].expires_at).getTime() - t0;
    expect(ttl).to.be.within(24 * 3600_000 - 5_000, 24 * 3600_000 + 5_000);
  });

  it('a new link invalidates the earlier ones', async () => {
    const u = await newFamily(a);
    await request(u.token);
    const first = await confirmationMail(u.email, 1);
    await request(u.token);
    const second = await confirmationMail(u.email, 2);
    expect(second).to.not.equal(first);
    expect((await confirm(first)).body.code).to.equal('confirmation_invalid');
    expect((await me(u.token)).user.emailConfirmed).to.equal(false);
    expect((await confirm(second)).status).to.equal(200);
    expect((await me(u.token)).user.emailConfirmed).to.equal(true);
  });

  it('rejects an expired (24 h, clock moved) or unknown token with 400 confirmation_invalid', async () => {
    const u = await newFamily(a);
    await request(u.token);
    const token = await confirmationMail(u.email);
    a.clock.advance(24 * 3600_000 + 1_000);
    try {
      const res = await confirm(token);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('confirmation_invalid');
    } finally {
      a.clock.advance(-(24 * 3600_000 + 1_000));
    }
    expect((await me(u.token)).user.emailConfirmed).to.equal(false);
    expect((await confirm('x'.repeat(43))).body.code).to.equal('confirmation_invalid');
    const bad = await confirm(42);
    expect(bad.status).to.equal(400);
    expect(bad.body.code).to.equal('validation_failed');
  });

  it('lets a founding admin who joined with the family code confirm the email, then use forgot-password', async () => {
    // A family without an admin (like the default family): its first member becomes admin.
    const family = await createFamilyRow(a.app.deps.db, { name: `Founders ${uniq()}` });
    const founder = await register(a, { familyCode: family.inviteCode });
    expect(founder.status).to.equal(201);
    expect(founder.body.role).to.equal('admin');
    expect(founder.body.user.emailConfirmed).to.equal(false);

    // Unconfirmed: forgot-password sends nothing.
    await a.req('POST', '/api/auth/forgot-password', { body: { email: founder.email } });
    await settle();
    expect(a.smtp.to(founder.email)).to.have.length(0);

    expect((await request(founder.body.accessToken)).status).to.equal(202);
    const token = await confirmationMail(founder.email, 1);
    expect((await confirm(token)).status).to.equal(200);
    // The next session says so too.
    const session = await a.req('POST', '/api/auth/login', { body: { email: founder.email, password: PASSWORD } });
    expect(session.body.user.emailConfirmed).to.equal(true);

    await a.req('POST', '/api/auth/forgot-password', { body: { email: founder.email } });
    const reset = linkToken(await a.smtp.waitFor(founder.email, 2), 'reset-password');
    const res = await a.req('POST', '/api/auth/reset-password', {
      body: { token: reset, newPassword: 'my new password' },
    });
    expect(res.status).to.equal(200);
    expect(
      (await a.req('POST', '/api/auth/login', { body: { email: founder.email, password: 'my new password' } })).status,
    ).to.equal(200);
  });
});
