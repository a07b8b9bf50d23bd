// English texts of the emails: the source of every key, and the fallback of every other
// language. ICU MessageFormat (intl-messageformat): `{name}` arguments, plurals, the `expiry`
// date format (templates.ts) and a `<b>…</b>` tag (bold in HTML, plain in the text part).
// Apostrophes are typographic (’): a plain ' followed by { starts an ICU quote.
export const en = {
  greeting: 'Hello {userName},',

  'invite.subject': 'Join {familyName} on {app}',
  'invite.intro': '{inviterName} has invited you to join the family “<b>{familyName}</b>” on {app}.',
  'invite.introAnonymous': 'You have been invited to join the family “<b>{familyName}</b>” on {app}.',
  'invite.action': 'Open this link to create your account:',
  'invite.button': 'Accept the invitation',
  'invite.expiry': 'The link works once and expires on {expiresAt, date, expiry}.',
  'invite.ignore': 'If you weren’t expecting this invitation, you can ignore this email.',

  'reset.subject': 'Reset your {app} password',
  'reset.intro': 'Someone (hopefully you) asked to reset your {app} password.',
  'reset.action': 'Open this link to choose a new one:',
  'reset.button': 'Choose a new password',
  'reset.expiry':
    'The link works once and is valid for {minutes, plural, one {# minute} other {# minutes}} (until {expiresAt, date, expiry}).',
  'reset.ignore': 'If you didn’t ask for this, ignore this email; your password stays as it is.',

  'confirm.subject': 'Confirm your email for {app}',
  'confirm.intro': 'Please confirm that <b>{email}</b> is your email address on {app}.',
  'confirm.action': 'Open this link to confirm it:',
  'confirm.button': 'Confirm my email',
  'confirm.expiry':
    'The link works once and is valid for {hours, plural, one {# hour} other {# hours}} (until {expiresAt, date, expiry}).',
  'confirm.why': 'With a confirmed email address you can reset your password if you ever forget it.',
  'confirm.ignore': 'If you didn’t ask for this, ignore this email.',
} as const;

export type MailMessageKey = keyof typeof en;
/** The texts of one language; a key it lacks falls back to English (the catalog test forbids that). */
export type MailMessages = Partial<Record<MailMessageKey, string>>;
