// Outgoing email. SMTP (nodemailer) when SMTP_URL is set; otherwise every mail is logged, link
// included, and kept in a dev outbox: in memory (`outbox`) and, outside tests, as one .eml file
// per mail under DATA_DIR/outbox that any mail client opens. So a developer running `npm start`
// without a mail server can still follow an invitation or reset link.
//
// Sending never fails a request: callers hand a message to `sendInBackground` after their
// transaction has committed; a failure is logged (recipient and subject only) and dropped.
//
// Links in mails start with APP_BASE_URL, which by default is the server's own address, known
// only once it listens. So a message may be given as a function of that base: it is built as
// soon as the base is known (at once when APP_BASE_URL is set), even when queued before.
import crypto from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import { errorFields, type Logger } from '../log.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The language of the mail (a BCP 47 tag), sent as its `Content-Language`. */
  locale?: string;
}

/** A message, or one built from the base of links (APP_BASE_URL or the server's address). */
export type MailInput = MailMessage | ((appBaseUrl: string) => MailMessage);

export interface OutboxEntry extends MailMessage {
  from: string;
  sentAt: Date;
  /** The .eml file holding this mail, when the outbox has a directory. */
  file?: string;
}

export interface Mailer {
  /** 'smtp' when SMTP_URL is set, 'dev' otherwise (log + outbox). */
  readonly mode: 'smtp' | 'dev';
  /** Sends one message; rejects when the SMTP server refuses it. */
  send(message: MailInput): Promise<void>;
  /** Fire and forget: never rejects, logs failures. Returns the settled promise for tests. */
  sendInBackground(message: MailInput): Promise<void>;
  /** The base of links: APP_BASE_URL, or the server's address once `setAppBaseUrl` named it. */
  appBaseUrl(): Promise<string>;
  /** Names the base of links (the server does, once it listens); the first call wins. */
  setAppBaseUrl(url: string): void;
  /** Dev mode only: the most recent messages (newest last, at most 100). Empty in SMTP mode. */
  readonly outbox: OutboxEntry[];
  /** Dev mode only: the directory of .eml files (DATA_DIR/outbox), unless NODE_ENV=test. */
  readonly outboxDir: string | undefined;
  close(): Promise<void>;
}

const OUTBOX_LIMIT = 100;

/** What nodemailer is given to build the MIME message (SMTP and the dev outbox alike). */
function mimeFields(from: string, message: MailMessage) {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    ...(message.locale ? { headers: { 'Content-Language': message.locale } } : {}),
  };
}

export interface MailerOptions {
  /** Where the dev outbox writes .eml files; default DATA_DIR/outbox, none under NODE_ENV=test. */
  outboxDir?: string;
  /** The base of links when known at once (APP_BASE_URL); else set later with setAppBaseUrl. */
  appBaseUrl?: string;
}

export function createMailer(
  config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'> & Partial<Pick<Config, 'DATA_DIR' | 'NODE_ENV'>>,
  log: Logger,
  options: MailerOptions = {},
): Mailer {
  const from = config.MAIL_FROM;
  const outbox: OutboxEntry[] = [];
  let transport: Transporter | undefined;
  if (config.SMTP_URL) transport = nodemailer.createTransport(config.SMTP_URL);
  if (!transport && config.NODE_ENV === 'production') {
    log.warn(
      'SMTP_URL is not set: emails are not sent; each one, with its invitation or reset link, is written to the log and the dev outbox. Set SMTP_URL in production.',
    );
  }
  const outboxDir = transport
    ? undefined
    : (options.outboxDir ??
      (config.NODE_ENV !== 'test' && config.DATA_DIR ? path.resolve(config.DATA_DIR, 'outbox') : undefined));
  // Builds the same MIME message SMTP would carry, without sending it anywhere.
  const composer = outboxDir
    ? nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
    : undefined;
  const pending = new Set<Promise<void>>();
  let baseUrl: string | undefined;
  let baseKnown!: (url: string) => void;
  let baseNeverKnown!: (err: Error) => void;
  const base = new Promise<string>((resolve, reject) => {
    baseKnown = resolve;
    baseNeverKnown = reject;
  });
  base.catch(() => {}); // observed by the sends that wait on it
  const setAppBaseUrl = (url: string) => {
    if (baseUrl !== undefined) return;
    baseUrl = url;
    baseKnown(url);
  };
  if (options.appBaseUrl) setAppBaseUrl(options.appBaseUrl);

  const build = async (input: MailInput): Promise<MailMessage> =>
    typeof input === 'function' ? input(baseUrl ?? (await base)) : input;

  const deliver = async (message: MailMessage): Promise<void> => {
    if (transport) {
      await transport.sendMail(mimeFields(from, message));
      log.info({ to: message.to, subject: message.subject }, 'mail sent');
      return;
    }
    const sentAt = new Date();
    const file = outboxDir
      ? path.join(
          outboxDir,
          `${sentAt.toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}.eml`,
        )
      : undefined;
    const entry: OutboxEntry = { ...message, from, sentAt, ...(file ? { file } : {}) };
    outbox.push(entry);
    if (outbox.length > OUTBOX_LIMIT) outbox.splice(0, outbox.length - OUTBOX_LIMIT);
    // The dev workflow: the link is in the log. Never configure production without SMTP_URL.
    log.info(
      { to: message.to, subject: message.subject, text: message.text, file },
      'mail (dev outbox, SMTP_URL not set)',
    );
    if (composer && outboxDir && file) {
      const info = (await composer.sendMail(mimeFields(from, message))) as {
        message: Buffer;
      };
      await mkdir(outboxDir, { recursive: true, mode: 0o700 });
      await writeFile(file, info.message, { mode: 0o600 });
    }
  };

  return {
    mode: transport ? 'smtp' : 'dev',
    send: async (input) => deliver(await build(input)),
    sendInBackground(input) {
      let message: MailMessage | undefined;
      const p = (async () => {
        message = await build(input);
        await deliver(message);
      })().catch((err: Error) => {
        const about = message ? { to: message.to, subject: message.subject } : {};
        log.error({ ...about, err: errorFields(err) }, 'mail could not be sent');
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
      return p;
    },
    appBaseUrl: () => (baseUrl !== undefined ? Promise.resolve(baseUrl) : base),
    setAppBaseUrl,
    outbox,
    outboxDir,
    async close() {
      // Mails still waiting for a base that will never come (closed before listening) are dropped.
      if (baseUrl === undefined)
        baseNeverKnown(new Error('the server closed before it listened; the base of links is unknown'));
      await Promise.allSettled([...pending]);
      transport?.close();
      composer?.close();
    },
  };
}
