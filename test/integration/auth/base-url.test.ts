// APP_BASE_URL unset: links in emails start with the server's own address as it listens (the
// real port with PORT=0, localhost for a wildcard HOST); a mail queued before the server knows
// its address is built once it does. And the JWT key is made once as a KeyObject.
import { expect } from 'chai';
import { KeyObject } from 'node:crypto';
import { pino } from 'pino';
import { linkToken } from '../../helpers/smtp.js';
import { createMailer } from '../../../server/mail/mailer.js';
import { ownBaseUrl } from '../../../server/mail/base-url.js';
import { inviteEmail, inviteLink } from '../../../server/mail/templates.js';
import { startAccountsApp, newFamily, uniq, type AccountsApp } from './harness.js';

describe('auth: the base of email links (APP_BASE_URL default) and the JWT key', function () {
  this.timeout(120_000); // each test starts its own app
  async function inviteLinkOf(a: AccountsApp): Promise<string> {
    const admin = await newFamily(a);
    const email = `base-${uniq()}@example.test`;
    expect((await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } })).status).to.equal(201);
    const mail = await a.smtp.waitFor(email);
    const token = linkToken(mail, 'invite');
    return /(https?:\/\/\S+)\/invite\//.exec(mail.text)![1]! + `|${token}`;
  }

  it('uses http://{HOST}:{real port} when APP_BASE_URL is unset and PORT=0', async () => {
    const a = await startAccountsApp({ APP_BASE_URL: '', HOST: '127.0.0.1', PORT: '0' });
    try {
      expect(a.app.port).to.be.greaterThan(0);
      const [base] = (await inviteLinkOf(a)).split('|');
      expect(base).to.equal(`http://127.0.0.1:${a.app.port}`);
      expect(await a.app.deps.mailer!.appBaseUrl()).to.equal(`http://127.0.0.1:${a.app.port}`);
    } finally {
      await a.close();
    }
  });

  it('uses localhost for a wildcard HOST (0.0.0.0)', async () => {
    const a = await startAccountsApp({ APP_BASE_URL: '', HOST: '0.0.0.0', PORT: '0' });
    try {
      const [base] = (await inviteLinkOf(a)).split('|');
      expect(base).to.equal(`http://localhost:${a.app.port}`);
    } finally {
      await a.close();
    }
  });

  it('keeps an APP_BASE_URL that is set', async () => {
    const a = await startAccountsApp({ APP_BASE_URL: 'https://shop.example/app' });
    try {
      const [base] = (await inviteLinkOf(a)).split('|');
      expect(base).to.equal('https://shop.example/app');
    } finally {
      await a.close();
    }
  });

  it('names wildcard and IPv6 hosts as a browser can open them', () => {
    expect(ownBaseUrl('0.0.0.0', 3000)).to.equal('http://localhost:3000');
    expect(ownBaseUrl('::', 3000)).to.equal('http://localhost:3000');
    expect(ownBaseUrl('::1', 8080)).to.equal('http://[::1]:8080');
    expect(ownBaseUrl('shop.lan', 80)).to.equal('http://shop.lan:80');
    expect(ownBaseUrl('[fe80::1]', 8443, 'https')).to.equal('https://[fe80::1]:8443'); // bracketed once
  });

  it('builds a mail queued before the base is known once it is known', async () => {
    const mailer = createMailer(
      { SMTP_URL: undefined, MAIL_FROM: 'x <x@example.test>', NODE_ENV: 'test' },
      pino({ level: 'silent' }),
    );
    const sent = mailer.sendInBackground((base) =>
      inviteEmail({
        to: 'early@example.test',
        familyName: 'F',
        inviterName: null,
        link: inviteLink(base, 'tok'),
        expiresAt: new Date(),
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(mailer.outbox).to.have.length(0); // waiting for the address
    mailer.setAppBaseUrl('http://127.0.0.1:4321');
    await sent;
    expect(mailer.outbox[0]!.text).to.include('http://127.0.0.1:4321/invite/tok');
    await mailer.close();
  });

  it('drops (and logs) a waiting mail when closed before the base is known, without hanging', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'error' }, { write: (l: string) => void lines.push(l) });
    const mailer = createMailer({ SMTP_URL: undefined, MAIL_FROM: 'x <x@example.test>', NODE_ENV: 'test' }, log);
    const sent = mailer.sendInBackground((base) =>
      inviteEmail({
        to: 'never@example.test',
        familyName: 'F',
        inviterName: null,
        link: inviteLink(base, 'tok'),
        expiresAt: new Date(),
      }),
    );
    await mailer.close();
    await sent;
    expect(mailer.outbox).to.have.length(0);
    expect(lines.some((l) => l.includes('mail could not be sent'))).to.equal(true);
  });

  it('signs and verifies access tokens with one secret KeyObject made at start', async () => {
    const a = await startAccountsApp();
    try {
      const key = a.app.deps.jwtKey;
      expect(key).to.be.instanceOf(KeyObject);
      expect(key.type).to.equal('secret');
      expect(key.export().equals(Buffer.from(a.app.deps.jwtSecret, 'utf8'))).to.equal(true);
      const u = await newFamily(a);
      expect((await a.req('GET', '/api/me', { token: u.token })).status).to.equal(200);
    } finally {
      await a.close();
    }
  });
});
