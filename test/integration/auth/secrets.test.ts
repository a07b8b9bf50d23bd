import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { simpleParser } from 'mailparser';
import { pino } from 'pino';
import { createMailer } from '../../../server/mail/mailer.js';
import { inviteEmail } from '../../../server/mail/templates.js';
import { startTestApp, request, testApp } from '../../helpers/app.js';
import { linkToken } from '../../helpers/smtp.js';
import { startAccountsApp, newFamily, register, uniq, type AccountsApp } from './harness.js';
import type { Db } from '../../../server/db/knex.js';

/** Every text of every row of every table, as JSON. */
async function dumpDatabase(db: Db): Promise<string> {
  const tables = (await db('information_schema.tables')
    .where({ table_schema: 'public', table_type: 'BASE TABLE' })
    .pluck('table_name')) as string[];
  const parts: string[] = [];
  for (const t of tables) {
    const rows = await db.raw(`SELECT row_to_json(x)::text AS j FROM "${t}" x`);
    for (const r of rows.rows as Array<{ j: string }>) parts.push(r.j);
  }
  return parts.join('\n');
}

describe('auth: raw tokens are nowhere but in the email', () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp(); // SMTP configured, logs captured at trace level
  });
  after(async () => {
    await a?.close();
  });

  it('keeps raw invite, reset and refresh tokens out of the database and the logs', async () => {
    const admin = await newFamily(a);
    const email = `secret-${uniq()}@example.test`;
    await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } });
    const inviteToken = linkToken(await a.smtp.waitFor(email), 'invite');
    await a.req('GET', `/api/auth/invite/${inviteToken}`); // the path carries it
    const invite2 = (await a.req('GET', '/api/family/invites', { token: admin.token })).body[0];
    await a.req('POST', `/api/family/invites/${invite2.id}/resend`, { token: admin.token });
    const resentToken = linkToken(await a.smtp.waitFor(email, 2), 'invite');
    expect((await register(a, { inviteToken: inviteToken })).status).to.equal(400); // the dead link, a failure path
    const joined = await register(a, { inviteToken: resentToken });
    expect(joined.status).to.equal(201);
    expect((await register(a, { inviteToken: resentToken }, { email })).status).to.equal(400); // consumed
    await a.req('GET', `/api/auth/invite/${resentToken}`); // consumed: 404

    await a.req('POST', '/api/auth/forgot-password', { body: { email } });
    const resetToken = linkToken(await a.smtp.waitFor(email, 3), 'reset-password');
    await a.req('POST', '/api/auth/reset-password', { body: { token: resetToken, newPassword: 'short' } }); // a failure path too
    expect(
      (
        await a.req('POST', '/api/auth/reset-password', {
          body: { token: resetToken, newPassword: 'another long password' },
        })
      ).status,
    ).to.equal(200);
    expect(
      (
        await a.req('POST', '/api/auth/reset-password', {
          body: { token: resetToken, newPassword: 'used twice password' },
        })
      ).status,
    ).to.equal(400);
    await new Promise((r) => setTimeout(r, 100)); // let the last log lines flush

    const dump = await dumpDatabase(a.app.deps.db);
    const logs = a.logs.join('');
    expect(logs.length).to.be.greaterThan(0);
    for (const secret of [inviteToken, resentToken, resetToken, joined.body.refreshToken, admin.body.refreshToken]) {
      expect(dump.includes(secret), 'database').to.equal(false);
      expect(logs.includes(secret), 'logs').to.equal(false);
    }
  });
});

describe('mail: the dev outbox when SMTP_URL is not set', () => {
  it('logs each mail with its link and keeps it in deps.mailer.outbox (plain text and HTML)', async () => {
    const lines: string[] = [];
    const shared = await testApp();
    const app = await startTestApp({
      db: shared.deps.db,
      logger: pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) })),
      envOverrides: { SMTP_URL: undefined },
    });
    try {
      expect(app.deps.mailer?.mode).to.equal('dev');
      const reg = await request(app, 'POST', '/api/auth/register', {
        body: {
          email: `dev-${uniq()}@example.test`,
          userName: `dev-${uniq()}`,
          password: 'dev password!',
          newFamilyName: 'Dev',
        },
      });
      expect(reg.status).to.equal(201);
      const to = `devguest-${uniq()}@example.test`;
      const res = await request(app, 'POST', '/api/family/invites', {
        token: reg.body.accessToken,
        body: { email: to },
      });
      expect(res.status).to.equal(201);
      const mail = app.deps.mailer!.outbox.find((m) => m.to === to)!;
      expect(mail.text).to.match(/http:\/\/app\.test\/invite\/[A-Za-z0-9_-]{43}/);
      expect(mail.html).to.include('http://app.test/invite/');
      const link = /http:\/\/app\.test\/invite\/[A-Za-z0-9_-]+/.exec(mail.text)![0];
      expect(lines.join('')).to.include(link);
    } finally {
      await app.close();
    }
  });

  it('writes each mail as an .eml file under DATA_DIR/outbox outside tests, readable by any mail client', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fs-outbox-'));
    const lines: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const mailer = createMailer(
      {
        SMTP_URL: undefined,
        MAIL_FROM: 'Family Shopping <no-reply@localhost>',
        DATA_DIR: dataDir,
        NODE_ENV: 'development',
      },
      log,
    );
    try {
      expect(mailer.mode).to.equal('dev');
      expect(mailer.outboxDir).to.equal(path.join(dataDir, 'outbox'));
      const link = `http://app.test/invite/${'k'.repeat(43)}`;
      await mailer.sendInBackground(
        inviteEmail({ to: 'ann@example.test', familyName: 'Smiths', inviterName: 'Bob', link, expiresAt: new Date() }),
      );
      const files = await readdir(mailer.outboxDir!);
      expect(files).to.have.length(1);
      expect(files[0]).to.match(/\.eml$/);
      const parsed = await simpleParser(await readFile(path.join(mailer.outboxDir!, files[0]!)));
      expect(parsed.subject).to.equal('Join Smiths on Family Shopping');
      expect(parsed.text).to.include(link);
      expect(parsed.html).to.include(link);
      expect(lines.join('')).to.include(files[0]!); // the log names the file
      expect(mailer.outbox[0]!.file).to.equal(path.join(mailer.outboxDir!, files[0]!));
    } finally {
      await mailer.close();
      await rm(dataDir, { recursive: true, force: true });
    }
    expect(lines.join('')).not.to.include('SMTP_URL is not set');
    // In production the missing SMTP_URL is called out once, at start.
    const prodLines: string[] = [];
    const prodLog = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (prodLines.push(String(c)), cb()) }));
    await createMailer({ SMTP_URL: undefined, MAIL_FROM: 'x <x@y>', NODE_ENV: 'production' }, prodLog).close();
    expect(prodLines).to.have.length(1);
    const warning = JSON.parse(prodLines[0]!);
    expect(warning.level).to.equal(40); // warn
    expect(warning.msg).to.match(/SMTP_URL is not set/);
    // NODE_ENV=test keeps the outbox in memory only
    expect(
      createMailer({ SMTP_URL: undefined, MAIL_FROM: 'x <x@y>', DATA_DIR: dataDir, NODE_ENV: 'test' }, log).outboxDir,
    ).to.equal(undefined);
  });
});
