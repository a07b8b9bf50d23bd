// The mailer as an operator meets it (server/mail/mailer.ts): what each mail leaves in the log,
// in SMTP mode (a real SMTP server) and in the dev outbox; the outbox's bounds; the .eml files'
// names, modes and line ends; the base of links, named once; and mails queued for a base that
// never comes.
import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createMailer, type MailMessage } from '../../../server/mail/mailer.js';
import { captureLogs } from '../../helpers/logs.js';
import { startSmtpSink } from '../../helpers/smtp.js';

const FROM = 'Family Shopping <no-reply@family.test>';
const mail = (n: number | string, link = 'http://app.test/x'): MailMessage => ({
  to: `m${n}@example.test`,
  subject: `Mail ${n}`,
  text: `Open ${link}`,
  html: `<p><a href="${link}">open</a></p>`,
  locale: 'en',
});

describe('mailer', () => {
  it('in SMTP mode, logs each mail sent by its recipient and subject only', async () => {
    const sink = await startSmtpSink();
    const { logger, lines } = captureLogs();
    const mailer = createMailer({ SMTP_URL: sink.url, MAIL_FROM: FROM }, logger, { appBaseUrl: 'http://app.test' });
    try {
      expect(mailer.mode).to.equal('smtp');
      await mailer.send(mail(1, 'http://app.test/secret-link'));
      expect((await sink.waitFor('m1@example.test')).subject).to.equal('Mail 1');
      const sent = lines.filter((l) => l.msg === 'mail sent');
      expect(sent).to.have.length(1);
      expect(sent[0]).to.include({ level: 30, to: 'm1@example.test', subject: 'Mail 1' });
      expect(JSON.stringify(lines)).not.to.include('secret-link');
      expect(mailer.outbox).to.deep.equal([]);
    } finally {
      await mailer.close();
      await sink.close();
    }
  });

  it('in dev mode, logs each mail with its text and keeps the newest 100 in the outbox', async () => {
    const { logger, lines } = captureLogs();
    const mailer = createMailer({ SMTP_URL: undefined, MAIL_FROM: FROM, NODE_ENV: 'test' }, logger);
    try {
      for (let n = 1; n <= 101; n++) await mailer.send(mail(n));
      expect(mailer.outbox).to.have.length(100);
      expect(mailer.outbox[0]!.to).to.equal('m2@example.test');
      expect(mailer.outbox[99]).to.include({ to: 'm101@example.test', from: FROM, subject: 'Mail 101' });
      const logged = lines.filter((l) => l.msg === 'mail (dev outbox, SMTP_URL not set)');
      expect(logged).to.have.length(101);
      expect(logged[100]).to.include({ to: 'm101@example.test', subject: 'Mail 101', text: 'Open http://app.test/x' });
    } finally {
      await mailer.close();
    }
  });

  it('writes the dev outbox as private .eml files, named by time, with Unix line ends, creating the folders', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'fs-mailer-'));
    const outboxDir = path.join(dir, 'data', 'mail', 'outbox');
    const { logger, lines } = captureLogs();
    const mailer = createMailer({ SMTP_URL: undefined, MAIL_FROM: FROM }, logger, { outboxDir });
    try {
      await mailer.send(mail(1));
      const [file, ...more] = await readdir(outboxDir);
      expect(more).to.deep.equal([]);
      expect(file).to.match(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{6}\.eml$/);
      const full = path.join(outboxDir, file!);
      expect(lines.find((l) => l.msg.startsWith('mail (dev outbox'))!.file).to.equal(full);
      expect((await stat(outboxDir)).mode & 0o777).to.equal(0o700);
      expect((await stat(full)).mode & 0o777).to.equal(0o600);
      const eml = await readFile(full, 'utf8');
      expect(eml).to.include('Subject: Mail 1\n');
      expect(eml).not.to.include('\r\n');
      expect(eml).to.match(/^Content-Language: en$/m);
    } finally {
      await mailer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finishes the mails in flight before it closes', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'fs-mailer-'));
    const outboxDir = path.join(dir, 'outbox');
    const { logger } = captureLogs();
    const mailer = createMailer({ SMTP_URL: undefined, MAIL_FROM: FROM }, logger, { outboxDir });
    try {
      const sent = [1, 2, 3].map((n) => mailer.sendInBackground(mail(n)));
      await mailer.close();
      expect(await readdir(outboxDir)).to.have.length(3);
      await Promise.all(sent);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('builds a queued mail with the first base of links named; a later one changes nothing', async () => {
    const { logger } = captureLogs();
    const mailer = createMailer({ SMTP_URL: undefined, MAIL_FROM: FROM, NODE_ENV: 'test' }, logger);
    try {
      const queued = mailer.sendInBackground((base) => mail('q', `${base}/invite/t`));
      mailer.setAppBaseUrl('http://first.test');
      mailer.setAppBaseUrl('http://second.test');
      await queued;
      expect(await mailer.appBaseUrl()).to.equal('http://first.test');
      await mailer.send((base) => mail('r', `${base}/reset-password/t`));
      expect(mailer.outbox.map((m) => m.text)).to.deep.equal([
        'Open http://first.test/invite/t',
        'Open http://first.test/reset-password/t',
      ]);
    } finally {
      await mailer.close();
    }
  });

  it('drops a mail still waiting for its base at close, and logs why', async () => {
    const { logger, lines } = captureLogs();
    const mailer = createMailer({ SMTP_URL: undefined, MAIL_FROM: FROM, NODE_ENV: 'test' }, logger);
    const queued = mailer.sendInBackground((base) => mail('never', `${base}/invite/t`));
    await mailer.close();
    await queued;
    expect(mailer.outbox).to.deep.equal([]);
    const failed = lines.filter((l) => l.msg === 'mail could not be sent');
    expect(failed).to.have.length(1);
    expect(failed[0]!.level).to.equal(50);
    expect(failed[0]!.err).to.deep.include({
      message: 'the server closed before it listened; the base of links is unknown',
    });
  });
});
