// Email bodies: subject, plain text and HTML for every message, in the recipient's language
// (api-contract §12; which language: `mailLocale`, its callers say whose). The texts are ICU
// messages, one file per language (messages/); a key a language lacks falls back to English.
// Every value that comes from a user (names, addresses) is escaped in the HTML part.
import { IntlMessageFormat, type Formats } from 'intl-messageformat';
import { DEFAULT_LOCALE, isLocale, type Locale } from '@family-shopping/client/protocol';
import type { MailMessage } from './mailer.js';
import { en, MAIL_MESSAGES, type MailMessageKey } from './messages/index.js';

/** The product's name, a brand: the same in every language. */
export const APP_NAME = 'Family Shopping';

/** The first of `candidates` that is one of the app's languages, else English: e.g. the
 *  recipient's stored locale, then their family's. */
export function mailLocale(...candidates: Array<string | null | undefined>): Locale {
  return candidates.find(isLocale) ?? DEFAULT_LOCALE;
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Named formats the messages use: `{expiresAt, date, expiry}` is a date and time in UTC (a
 *  mail does not know the reader's time zone), the zone named. */
export const MAIL_FORMATS: Partial<Formats> = {
  date: {
    expiry: {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZone: 'UTC',
      timeZoneName: 'short',
    },
  },
};

type Values = Record<string, string | number | Date>;

const compiled = new Map<string, IntlMessageFormat>();

function message(locale: Locale, key: MailMessageKey): IntlMessageFormat {
  const id = `${locale}\u0000${key}`;
  let format = compiled.get(id);
  if (!format) {
    const own = MAIL_MESSAGES[locale][key];
    format = new IntlMessageFormat(own ?? en[key], own === undefined ? DEFAULT_LOCALE : locale, MAIL_FORMATS);
    compiled.set(id, format);
  }
  return format;
}

/** One message as plain text (`<b>` marks nothing) or as HTML (values escaped, `<b>` bold). */
function render(locale: Locale, key: MailMessageKey, values: Values, part: 'text' | 'html'): string {
  const args: Record<string, unknown> = { app: APP_NAME };
  for (const [name, value] of Object.entries(values)) {
    args[name] = part === 'html' && typeof value === 'string' ? escapeHtml(value) : value;
  }
  args.b = (chunks: string[]) => (part === 'html' ? `<strong>${chunks.join('')}</strong>` : chunks.join(''));
  const out = message(locale, key).format<string>(args as Record<string, string>);
  return Array.isArray(out) ? out.join('') : String(out);
}

/** What every mail with a link is given. */
interface LinkMail {
  to: string;
  link: string;
  expiresAt: Date;
  /** The reader's language (`mailLocale`); default English. */
  locale?: Locale;
}

/** A mail's texts: `{kind}.subject`, the paragraphs above the link, `{kind}.action` (the
 *  sentence the text part's link follows), `{kind}.button` (the HTML part's link) and the
 *  small print under it. */
interface MailTexts {
  kind: 'invite' | 'reset' | 'confirm';
  /** A greeting first, if any. */
  intro: MailMessageKey[];
  footer: MailMessageKey[];
  values: Values;
}

function compose(input: LinkMail, mail: MailTexts): MailMessage {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = (key: MailMessageKey) => render(locale, key, mail.values, 'text');
  const html = (key: MailMessageKey) => render(locale, key, mail.values, 'html');
  const subject = text(`${mail.kind}.subject`);
  const action = text(`${mail.kind}.action`);
  // Text: a greeting stands alone; the sentences after it run on to the link; then the small print.
  const [first, ...rest] = mail.intro.map(text);
  const blocks =
    mail.intro[0] === 'greeting'
      ? [first!, [...rest, action, input.link].join(' ')]
      : [first!, ...rest, `${action} ${input.link}`];
  const plain = [...blocks, mail.footer.map(text).join('\n')].join('\n\n');
  const paragraphs = mail.intro.map(html).map((p) => `<p>${p}</p>`);
  const markup = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: sans-serif; line-height: 1.5">
${paragraphs.join('\n')}
<p><a href="${escapeHtml(input.link)}">${html(`${mail.kind}.button`)}</a></p>
<p style="color:#666;font-size:smaller">${mail.footer.map(html).join(' ')}</p>
</body></html>`;
  return { to: input.to, subject, text: plain, html: markup, locale };
}

/** An invitation: `locale` is the sender's (their own, else their family's). */
export function inviteEmail(input: LinkMail & { familyName: string; inviterName: string | null }): MailMessage {
  return compose(input, {
    kind: 'invite',
    intro: [input.inviterName ? 'invite.intro' : 'invite.introAnonymous'],
    footer: ['invite.expiry', 'invite.ignore'],
    values: { familyName: input.familyName, inviterName: input.inviterName ?? '', expiresAt: input.expiresAt },
  });
}

/** `validMinutes`: how long the link lives, in whole minutes. */
export function passwordResetEmail(input: LinkMail & { userName: string; validMinutes: number }): MailMessage {
  return compose(input, {
    kind: 'reset',
    intro: ['greeting', 'reset.intro'],
    footer: ['reset.expiry', 'reset.ignore'],
    values: { userName: input.userName, expiresAt: input.expiresAt, minutes: input.validMinutes },
  });
}

/** `validHours`: how long the link lives, in whole hours. */
export function emailConfirmationEmail(input: LinkMail & { userName: string; validHours: number }): MailMessage {
  return compose(input, {
    kind: 'confirm',
    intro: ['greeting', 'confirm.intro'],
    footer: ['confirm.expiry', 'confirm.why', 'confirm.ignore'],
    values: { userName: input.userName, email: input.to, expiresAt: input.expiresAt, hours: input.validHours },
  });
}

export const inviteLink = (appBaseUrl: string, token: string) => `${appBaseUrl.replace(/\/+$/, '')}/invite/${token}`;
export const resetLink = (appBaseUrl: string, token: string) =>
  `${appBaseUrl.replace(/\/+$/, '')}/reset-password/${token}`;
export const confirmEmailLink = (appBaseUrl: string, token: string) =>
  `${appBaseUrl.replace(/\/+$/, '')}/confirm-email/${token}`;
