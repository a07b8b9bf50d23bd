// Spanish texts of the emails ("tú", as Spanish apps speak). Keys: en.ts.
import type { MailMessages } from './en.js';

export const es: MailMessages = {
  greeting: 'Hola, {userName}:',

  'invite.subject': 'Únete a «{familyName}» en {app}',
  'invite.intro': '{inviterName} te ha invitado a unirte a la familia «<b>{familyName}</b>» en {app}.',
  'invite.introAnonymous': 'Te han invitado a unirte a la familia «<b>{familyName}</b>» en {app}.',
  'invite.action': 'Abre este enlace para crear tu cuenta:',
  'invite.button': 'Aceptar la invitación',
  'invite.expiry': 'El enlace solo se puede usar una vez y caduca el {expiresAt, date, expiry}.',
  'invite.ignore': 'Si no esperabas esta invitación, puedes ignorar este correo.',

  'reset.subject': 'Restablece tu contraseña de {app}',
  'reset.intro': 'Alguien (esperamos que tú) ha pedido restablecer tu contraseña de {app}.',
  'reset.action': 'Abre este enlace para elegir una nueva:',
  'reset.button': 'Elegir una contraseña nueva',
  'reset.expiry':
    'El enlace solo se puede usar una vez y es válido durante {minutes, plural, one {# minuto} other {# minutos}} (hasta el {expiresAt, date, expiry}).',
  'reset.ignore': 'Si no lo has pedido tú, ignora este correo; tu contraseña seguirá siendo la misma.',

  'confirm.subject': 'Confirma tu correo electrónico en {app}',
  'confirm.intro': 'Confirma que <b>{email}</b> es tu dirección de correo electrónico en {app}.',
  'confirm.action': 'Abre este enlace para confirmarla:',
  'confirm.button': 'Confirmar mi correo',
  'confirm.expiry':
    'El enlace solo se puede usar una vez y es válido durante {hours, plural, one {# hora} other {# horas}} (hasta el {expiresAt, date, expiry}).',
  'confirm.why': 'Con el correo confirmado podrás restablecer tu contraseña si alguna vez la olvidas.',
  'confirm.ignore': 'Si no lo has pedido tú, ignora este correo.',
};
