// German texts of the emails (informal "du", as the app speaks). Keys: en.ts.
import type { MailMessages } from './en.js';

export const de: MailMessages = {
  greeting: 'Hallo {userName},',

  'invite.subject': 'Einladung zu „{familyName}“ bei {app}',
  'invite.intro': '{inviterName} hat dich eingeladen, der Familie „<b>{familyName}</b>“ bei {app} beizutreten.',
  'invite.introAnonymous': 'Du wurdest eingeladen, der Familie „<b>{familyName}</b>“ bei {app} beizutreten.',
  'invite.action': 'Öffne diesen Link, um dein Konto anzulegen:',
  'invite.button': 'Einladung annehmen',
  'invite.expiry': 'Der Link funktioniert nur einmal und ist gültig bis {expiresAt, date, expiry}.',
  'invite.ignore': 'Falls du mit dieser Einladung nicht gerechnet hast, kannst du diese E-Mail einfach ignorieren.',

  'reset.subject': 'Dein Passwort für {app} zurücksetzen',
  'reset.intro': 'Jemand (hoffentlich du) möchte dein Passwort für {app} zurücksetzen.',
  'reset.action': 'Öffne diesen Link, um ein neues festzulegen:',
  'reset.button': 'Neues Passwort festlegen',
  'reset.expiry':
    'Der Link funktioniert nur einmal und ist {minutes, plural, one {# Minute} other {# Minuten}} lang gültig (bis {expiresAt, date, expiry}).',
  'reset.ignore': 'Falls du das nicht warst, ignoriere diese E-Mail einfach – dein Passwort bleibt, wie es ist.',

  'confirm.subject': 'Bestätige deine E-Mail-Adresse für {app}',
  'confirm.intro': 'Bitte bestätige, dass <b>{email}</b> deine E-Mail-Adresse bei {app} ist.',
  'confirm.action': 'Öffne diesen Link, um sie zu bestätigen:',
  'confirm.button': 'E-Mail-Adresse bestätigen',
  'confirm.expiry':
    'Der Link funktioniert nur einmal und ist {hours, plural, one {# Stunde} other {# Stunden}} lang gültig (bis {expiresAt, date, expiry}).',
  'confirm.why':
    'Mit einer bestätigten E-Mail-Adresse kannst du dein Passwort zurücksetzen, falls du es einmal vergisst.',
  'confirm.ignore': 'Falls du das nicht angefordert hast, ignoriere diese E-Mail einfach.',
};
