// A real SMTP server for tests (smtp-server on port 0). Mail is parsed with mailparser and read
// back as a user would: by recipient, then the link in the body.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  parsed: ParsedMail;
}

export interface SmtpSink {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Mail to `address` (lower case) received so far. */
  to(address: string): ReceivedMail[];
  /** Waits for the n-th (1-based) message to `address`. */
  waitFor(address: string, count?: number, timeoutMs?: number): Promise<ReceivedMail>;
  /** Stops accepting mail: every message is refused with a 5xx reply. */
  refuseAll(refuse: boolean): void;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  let refusing = false;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if (refusing) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
        try {
          const parsed = await simpleParser(Buffer.concat(chunks));
          messages.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            parsed,
          });
          for (const w of waiters) w();
          callback();
        } catch (err) {
          callback(err as Error);
        }
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  const to = (address: string) => messages.filter((m) => m.to.includes(address.toLowerCase()));

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    to,
    waitFor(address, count = 1, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = to(address);
          if (got.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(got[count - 1]!);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail #${count} to ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    refuseAll(refuse) {
      refusing = refuse;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token at the end of the first link to `${base}/${kind}/<token>` in a mail's text. */
export function linkToken(mail: ReceivedMail, kind: 'invite' | 'reset-password' | 'confirm-email'): string {
  const m = new RegExp(`https?://\\S+/${kind}/([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!m) throw new Error(`no ${kind} link in mail "${mail.subject}"`);
  return m[1]!;
}
