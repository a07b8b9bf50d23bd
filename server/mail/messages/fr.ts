// French texts of the emails ("vous", as French service emails do). Keys: en.ts. The spaces before
// colons and inside the guillemets are no-break spaces (U+00A0), as French typography wants.
import type { MailMessages } from './en.js';

export const fr: MailMessages = {
  greeting: 'Bonjour {userName},',

  'invite.subject': 'Rejoignez « {familyName} » sur {app}',
  'invite.intro': '{inviterName} vous invite à rejoindre la famille « <b>{familyName}</b> » sur {app}.',
  'invite.introAnonymous': 'Une invitation vous attend : rejoignez la famille « <b>{familyName}</b> » sur {app}.',
  'invite.action': 'Ouvrez ce lien pour créer votre compte :',
  'invite.button': 'Accepter l’invitation',
  'invite.expiry': 'Ce lien ne fonctionne qu’une fois et expire le {expiresAt, date, expiry}.',
  'invite.ignore': 'Si vous ne vous attendiez pas à cette invitation, vous pouvez ignorer cet e-mail.',

  'reset.subject': 'Réinitialisation de votre mot de passe {app}',
  'reset.intro': 'Quelqu’un (vous, espérons-le) a demandé à réinitialiser votre mot de passe {app}.',
  'reset.action': 'Ouvrez ce lien pour en choisir un nouveau :',
  'reset.button': 'Choisir un nouveau mot de passe',
  'reset.expiry':
    'Ce lien ne fonctionne qu’une fois et reste valable {minutes, plural, one {# minute} other {# minutes}} (jusqu’au {expiresAt, date, expiry}).',
  'reset.ignore':
    'Si vous n’êtes pas à l’origine de cette demande, ignorez cet e-mail : votre mot de passe reste inchangé.',

  'confirm.subject': 'Confirmez votre adresse e-mail pour {app}',
  'confirm.intro': 'Merci de confirmer que <b>{email}</b> est bien votre adresse e-mail sur {app}.',
  'confirm.action': 'Ouvrez ce lien pour la confirmer :',
  'confirm.button': 'Confirmer mon adresse e-mail',
  'confirm.expiry':
    'Ce lien ne fonctionne qu’une fois et reste valable {hours, plural, one {# heure} other {# heures}} (jusqu’au {expiresAt, date, expiry}).',
  'confirm.why': 'Une adresse e-mail confirmée vous permet de réinitialiser votre mot de passe si vous l’oubliez.',
  'confirm.ignore': 'Si vous n’êtes pas à l’origine de cette demande, ignorez simplement cet e-mail.',
};
