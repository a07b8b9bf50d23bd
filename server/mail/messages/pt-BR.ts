// Brazilian Portuguese texts of the emails ("você"). Keys: en.ts.
import type { MailMessages } from './en.js';

export const ptBR: MailMessages = {
  greeting: 'Olá, {userName}!',

  'invite.subject': 'Participe da família “{familyName}” no {app}',
  'invite.intro': '{inviterName} convidou você para participar da família “<b>{familyName}</b>” no {app}.',
  'invite.introAnonymous': 'Você recebeu um convite para participar da família “<b>{familyName}</b>” no {app}.',
  'invite.action': 'Abra este link para criar sua conta:',
  'invite.button': 'Aceitar o convite',
  'invite.expiry': 'O link só pode ser usado uma vez e expira em {expiresAt, date, expiry}.',
  'invite.ignore': 'Se você não esperava este convite, é só ignorar este e-mail.',

  'reset.subject': 'Redefina sua senha do {app}',
  'reset.intro': 'Alguém (tomara que você) pediu para redefinir sua senha do {app}.',
  'reset.action': 'Abra este link para escolher uma nova:',
  'reset.button': 'Escolher uma nova senha',
  'reset.expiry':
    'O link só pode ser usado uma vez e vale por {minutes, plural, one {# minuto} other {# minutos}} (até {expiresAt, date, expiry}).',
  'reset.ignore': 'Se não foi você que pediu, é só ignorar este e-mail; sua senha continua a mesma.',

  'confirm.subject': 'Confirme seu e-mail no {app}',
  'confirm.intro': 'Confirme que <b>{email}</b> é o seu endereço de e-mail no {app}.',
  'confirm.action': 'Abra este link para confirmar:',
  'confirm.button': 'Confirmar meu e-mail',
  'confirm.expiry':
    'O link só pode ser usado uma vez e vale por {hours, plural, one {# hora} other {# horas}} (até {expiresAt, date, expiry}).',
  'confirm.why': 'Com o e-mail confirmado, você pode redefinir sua senha se um dia esquecê-la.',
  'confirm.ignore': 'Se não foi você que pediu, é só ignorar este e-mail.',
};
