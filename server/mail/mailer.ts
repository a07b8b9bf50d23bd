// Outgoing email. SMTP (nodemailer) when SMTP_URL is set; otherwise every mail is logged, link
// included, and kept in an in-memory dev outbox, so a developer running `npm start` without a
// mail server can still follow an invitation or reset link.
//
// Sending never fails a request: callers hand a message to `sendInBackground` after their
// transaction has committed; a failure is logged (recipient and subject only) and dropped.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface OutboxEntry extends MailMessage {
  from: string;
  sentAt: Date;
}

export interface Mailer {
  /** 'smtp' when SMTP_URL is set, 'dev' otherwise (log + outbox). */
  readonly mode: 'smtp' | 'dev';
  /** Sends one message; rejects when the SMTP server refuses it. */
  send(message: MailMessage): Promise<void>;
  /** Fire and forget: never rejects, logs failures. Returns the settled promise for tests. */
  sendInBackground(message: MailMessage): Promise<void>;
  /** Dev mode only: the most recent messages (newest last, at most 100). Empty in SMTP mode. */
  readonly outbox: OutboxEntry[];
  close(): Promise<void>;
}

const OUTBOX_LIMIT = 100;

export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>, log: Logger): Mailer {
  const from = config.MAIL_FROM;
  const outbox: OutboxEntry[] = [];
  let transport: Transporter | undefined;
  if (config.SMTP_URL) transport = nodemailer.createTransport(config.SMTP_URL);
  const pending = new Set<Promise<void>>();

  const send = async (message: MailMessage): Promise<void> => {
    if (transport) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      log.info({ to: message.to, subject: message.subject }, 'mail sent');
      return;
    }
    outbox.push({ ...message, from, sentAt: new Date() });
    if (outbox.length > OUTBOX_LIMIT) outbox.splice(0, outbox.length - OUTBOX_LIMIT);
    // The dev workflow: the link is in the log. Never configure production without SMTP_URL.
    log.info({ to: message.to, subject: message.subject, text: message.text }, 'mail (dev outbox, SMTP_URL not set)');
  };

  return {
    mode: transport ? 'smtp' : 'dev',
    send,
    sendInBackground(message) {
      const p = send(message).catch((err: Error) => {
        log.error({ to: message.to, subject: message.subject, err: { message: err.message } }, 'mail could not be sent');
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
      return p;
    },
    outbox,
    async close() {
      await Promise.allSettled([...pending]);
      transport?.close();
    },
  };
}
