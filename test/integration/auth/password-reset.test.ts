import { expect } from 'chai';
import { linkToken } from '../../helpers/smtp.js';
import { startAccountsApp, newFamily, register, PASSWORD, uniq, type AccountsApp } from './harness.js';

describe('auth: password reset', () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  const forgot = (email: string) => a.req('POST', '/api/auth/forgot-password', { body: { email } });
  const reset = (token: string, newPassword: string) =>
    a.req('POST', '/api/auth/reset-password', { body: { token, newPassword } });
  const login = (email: string, password: string) => a.req('POST', '/api/auth/login', { body: { email, password } });
  const settle = () => new Promise((r) => setTimeout(r, 300));

  /** A user whose email is confirmed (registered through an invite). */
  async function confirmedUser() {
    const admin = await newFamily(a);
    const email = `conf-${uniq()}@example.test`;
    await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } });
    const token = linkToken(await a.smtp.waitFor(email), 'invite');
    const r = await register(a, { inviteToken: token });
    expect(r.body.user.emailConfirmed).to.equal(true);
    return { ...r, email };
  }

  async function resetMail(email: string, n: number) {
    const mail = await a.smtp.waitFor(email, n);
    expect(mail.subject).to.match(/reset/i);
    const token = linkToken(mail, 'reset-password');
    expect(mail.text).to.include(`http://app.test/reset-password/${token}`);
    expect(mail.html).to.include(`href="http://app.test/reset-password/${token}"`);
    return token;
  }

  it('answers 200 with the same body for a confirmed, an unconfirmed and an unknown email; mails only the confirmed one', async () => {
    const confirmed = await confirmedUser();
    const unconfirmed = await newFamily(a); // new family: email stays unconfirmed
    const unknown = `ghost-${uniq()}@example.test`;
    const r1 = await forgot(unknown);
    const r2 = await forgot(unconfirmed.email);
    const r3 = await forgot(confirmed.email.toUpperCase());
    for (const r of [r1, r2, r3]) expect(r.status).to.equal(200);
    expect(r1.body).to.deep.equal(r3.body);
    expect(r2.body).to.deep.equal(r3.body);
    expect(r3.body.message).to.be.a('string');
    const token = await resetMail(confirmed.email, 2); // #1 was the invitation
    expect(token).to.have.length.of.at.least(43);
    await settle();
    expect(a.smtp.to(unknown)).to.have.length(0);
    expect(a.smtp.to(unconfirmed.email)).to.have.length(0);
  });

  it('resets with the emailed single-use token; the old password stops working; refresh tokens are revoked', async () => {
    const u = await confirmedUser();
    await forgot(u.email);
    const token = await resetMail(u.email, 2);
    const res = await reset(token, 'a brand new password');
    expect(res.status).to.equal(200);
    expect(res.body.message).to.be.a('string');
    expect((await login(u.email, PASSWORD)).status).to.equal(401);
    expect((await login(u.email, 'a brand new password')).status).to.equal(200);
    expect((await a.req('POST', '/api/auth/refresh', { body: { refreshToken: u.body.refreshToken } })).status).to.equal(
      401,
    );
    const again = await reset(token, 'yet another password');
    expect(again.status).to.equal(400);
    expect(again.body.code).to.equal('reset_token_invalid');
  });

  it('invalidates earlier outstanding tokens when a new one is issued', async () => {
    const u = await confirmedUser();
    await forgot(u.email);
    const first = await resetMail(u.email, 2);
    await forgot(u.email);
    const second = await resetMail(u.email, 3);
    expect(second).to.not.equal(first);
    expect((await reset(first, 'new password one')).body.code).to.equal('reset_token_invalid');
    expect((await reset(second, 'new password two')).status).to.equal(200);
  });

  it('expires a token after 15 minutes (clock moved)', async () => {
    const u = await confirmedUser();
    await forgot(u.email);
    const token = await resetMail(u.email, 2);
    a.clock.advance(15 * 60_000 + 1000);
    try {
      const res = await reset(token, 'too late password');
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('reset_token_invalid');
    } finally {
      a.clock.advance(-(15 * 60_000 + 1000));
    }
    expect((await login(u.email, PASSWORD)).status).to.equal(200);
  });

  it('is still usable just before 15 minutes', async () => {
    const u = await confirmedUser();
    await forgot(u.email);
    const token = await resetMail(u.email, 2);
    a.clock.advance(14 * 60_000);
    try {
      expect((await reset(token, 'just in time password')).status).to.equal(200);
    } finally {
      a.clock.advance(-14 * 60_000);
    }
  });

  it('rejects an unknown token with 400 reset_token_invalid', async () => {
    const res = await reset('y'.repeat(43), 'whatever password');
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('reset_token_invalid');
  });

  it('rejects a too-short password with 400 validation_failed and leaves the token usable', async () => {
    const u = await confirmedUser();
    await forgot(u.email);
    const token = await resetMail(u.email, 2);
    const short = await reset(token, 'short');
    expect(short.status).to.equal(400);
    expect(short.body.code).to.equal('validation_failed');
    expect(short.body.errors.map((e: any) => e.path)).to.include('body.newPassword');
    expect((await login(u.email, PASSWORD)).status).to.equal(200);
    expect((await reset(token, 'long enough now')).status).to.equal(200);
  });

  it('answers 200 with the same body when the reset mail cannot be sent, and logs the failure', async () => {
    const u = await confirmedUser();
    const normal = await forgot(`ghost-${uniq()}@example.test`);
    a.smtp.refuseAll(true);
    try {
      const failed = a.logs.filter((l) => l.includes('mail could not be sent')).length;
      const res = await forgot(u.email);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(normal.body);
      for (let i = 0; i < 50 && a.logs.filter((l) => l.includes('mail could not be sent')).length === failed; i++)
        await settle();
      const line = a.logs.filter((l) => l.includes('mail could not be sent')).at(-1) ?? '';
      expect(line).to.include(u.email);
    } finally {
      a.smtp.refuseAll(false);
    }
  });

  it('keeps a family-code registrant unconfirmed (no reset mail), while an invite registrant is confirmed', async () => {
    const admin = await newFamily(a);
    const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
    const viaCode = await register(a, { familyCode: code });
    expect(viaCode.body.user.emailConfirmed).to.equal(false);
    await forgot(viaCode.email);
    const confirmed = await confirmedUser();
    await forgot(confirmed.email);
    await resetMail(confirmed.email, 2);
    await settle();
    expect(a.smtp.to(viaCode.email)).to.have.length(0);
  });
});
