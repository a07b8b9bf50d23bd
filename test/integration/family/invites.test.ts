import { expect } from 'chai';
import { linkToken } from '../../helpers/smtp.js';
import { startAccountsApp, newFamily, register, relogin, uniq, type AccountsApp } from '../auth/harness.js';

describe('family: invitations', () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  async function issue(token: string, email: string) {
    const before = a.smtp.to(email).length;
    const res = await a.req('POST', '/api/family/invites', { token, body: { email } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const mail = await a.smtp.waitFor(email, before + 1);
    return { invite: res.body, mail, link: linkToken(mail, 'invite') };
  }
  const lookup = (t: string) => a.req('GET', `/api/auth/invite/${t}`);
  const pending = async (token: string) => (await a.req('GET', '/api/family/invites', { token })).body as any[];

  it('issues an invite: 201 record, an email with an absolute single-use link (text and HTML), public lookup', async () => {
    const admin = await newFamily(a);
    const email = `Guest-${uniq()}@Example.test`;
    const { invite, mail, link } = await issue(admin.token, email);
    expect(invite).to.have.keys('id', 'email', 'createdAt', 'expiresAt');
    expect(invite.email).to.equal(email.toLowerCase());
    expect(new Date(invite.expiresAt).getTime() - new Date(invite.createdAt).getTime()).to.equal(7 * 24 * 3600_000);
    expect(mail.text).to.include(`http://app.test/invite/${link}`);
    expect(mail.html).to.include(`http://app.test/invite/${link}`);
    expect(mail.from).to.equal('no-reply@localhost');
    expect(link).to.have.length.of.at.least(43);

    const found = await lookup(link);
    expect(found.status).to.equal(200);
    expect(found.body).to.deep.equal({
      email: email.toLowerCase(),
      familyName: admin.body.family.name,
      expiresAt: invite.expiresAt,
    });
    expect(await pending(admin.token)).to.deep.equal([invite]);
  });

  it('stores only the SHA-256 of the token', async () => {
    const admin = await newFamily(a);
    const { invite, link } = await issue(admin.token, `h-${uniq()}@example.test`);
    const row = await a.app.deps.db('invites').where({ id: invite.id }).first();
    expect(row.token_hash).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).to.not.include(link);
  });

  it('answers 409 already_member for an email of a family member (any case)', async () => {
    const admin = await newFamily(a);
    const res = await a.req('POST', '/api/family/invites', {
      token: admin.token,
      body: { email: admin.email.toUpperCase() },
    });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('already_member');
    expect(res.body.detail).to.equal('That email already belongs to a member of your family');
    expect(await pending(admin.token)).to.deep.equal([]);
  });

  it('replaces a pending invite to the same email: the first link dies', async () => {
    const admin = await newFamily(a);
    const email = `twice-${uniq()}@example.test`;
    const first = await issue(admin.token, email);
    const second = await issue(admin.token, email);
    expect((await lookup(first.link)).status).to.equal(404);
    expect((await lookup(second.link)).status).to.equal(200);
    expect((await pending(admin.token)).map((i) => i.id)).to.deep.equal([second.invite.id]);
  });

  it('resend rotates the token, renews the expiry and mails a new link; the old link stops working', async () => {
    const admin = await newFamily(a);
    const email = `re-${uniq()}@example.test`;
    const first = await issue(admin.token, email);
    a.clock.advance(24 * 3600_000);
    try {
      const token = await relogin(a, admin.email);
      const res = await a.req('POST', `/api/family/invites/${first.invite.id}/resend`, { token });
      expect(res.status).to.equal(200);
      expect(res.body.id).to.equal(first.invite.id);
      expect(new Date(res.body.expiresAt).getTime()).to.be.greaterThan(new Date(first.invite.expiresAt).getTime());
      const mail = await a.smtp.waitFor(email, 2);
      const link = linkToken(mail, 'invite');
      expect(link).to.not.equal(first.link);
      const old = await lookup(first.link);
      expect(old.status).to.equal(404);
      expect(old.body.code).to.equal('invitation_invalid');
      expect((await register(a, { inviteToken: first.link })).body.code).to.equal('invitation_invalid');
      expect((await lookup(link)).status).to.equal(200);
      const r = await register(a, { inviteToken: link });
      expect(r.status).to.equal(201);
      expect(r.body.user.email).to.equal(email);
    } finally {
      a.clock.advance(-24 * 3600_000);
    }
  });

  it('revoke: 204, the link stops working, registration fails, the pending list drops it', async () => {
    const admin = await newFamily(a);
    const { invite, link } = await issue(admin.token, `rv-${uniq()}@example.test`);
    const res = await a.req('DELETE', `/api/family/invites/${invite.id}`, { token: admin.token });
    expect(res.status).to.equal(204);
    expect((await lookup(link)).status).to.equal(404);
    const r = await register(a, { inviteToken: link });
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('invitation_invalid');
    expect(await pending(admin.token)).to.deep.equal([]);
    expect((await a.req('POST', `/api/family/invites/${invite.id}/resend`, { token: admin.token })).status).to.equal(
      404,
    );
  });

  it('expires after 7 days (clock moved): lookup and registration fail, the pending list drops it', async () => {
    const admin = await newFamily(a);
    const { link } = await issue(admin.token, `exp-${uniq()}@example.test`);
    a.clock.advance(7 * 24 * 3600_000 + 1000);
    try {
      expect((await lookup(link)).status).to.equal(404);
      const r = await register(a, { inviteToken: link });
      expect(r.status).to.equal(400);
      expect(r.body.code).to.equal('invitation_invalid');
      expect(await pending(await relogin(a, admin.email))).to.deep.equal([]);
    } finally {
      a.clock.advance(-(7 * 24 * 3600_000 + 1000));
    }
  });

  it('lists pending invites only (not consumed, revoked or expired)', async () => {
    const admin = await newFamily(a);
    const consumed = await issue(admin.token, `c-${uniq()}@example.test`);
    await register(a, { inviteToken: consumed.link });
    const revoked = await issue(admin.token, `r-${uniq()}@example.test`);
    await a.req('DELETE', `/api/family/invites/${revoked.invite.id}`, { token: admin.token });
    const open = await issue(admin.token, `o-${uniq()}@example.test`);
    expect((await pending(admin.token)).map((i) => i.id)).to.deep.equal([open.invite.id]);
  });

  it("treats another family's invite id as unknown (404) for resend and revoke", async () => {
    const mine = await newFamily(a);
    const theirs = await newFamily(a);
    const { invite, link } = await issue(theirs.token, `t-${uniq()}@example.test`);
    for (const [method, path] of [
      ['POST', `/api/family/invites/${invite.id}/resend`],
      ['DELETE', `/api/family/invites/${invite.id}`],
    ] as const) {
      const res = await a.req(method, path, { token: mine.token });
      expect(res.status, method).to.equal(404);
      expect(res.body.detail, method).to.equal('No open invitation with that id');
    }
    expect((await lookup(link)).status).to.equal(200); // untouched
    expect(await pending(mine.token)).to.deep.equal([]);
  });

  it('does not fail the request when the mail cannot be sent (logged instead)', async () => {
    const admin = await newFamily(a);
    a.smtp.refuseAll(true);
    try {
      const res = await a.req('POST', '/api/family/invites', {
        token: admin.token,
        body: { email: `fail-${uniq()}@example.test` },
      });
      expect(res.status).to.equal(201);
      for (let i = 0; i < 50 && !a.logs.some((l) => l.includes('mail could not be sent')); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(a.logs.some((l) => l.includes('mail could not be sent'))).to.equal(true);
    } finally {
      a.smtp.refuseAll(false);
    }
  });
});
