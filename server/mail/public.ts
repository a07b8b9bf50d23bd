// The front door of server/mail: what other features may use. Import it as
// '../mail/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { ownBaseUrl } from './base-url.js';
export type { MailInput, Mailer } from './mailer.js';
export {
  confirmEmailLink,
  emailConfirmationEmail,
  inviteEmail,
  inviteLink,
  mailLocale,
  passwordResetEmail,
  resetLink,
} from './templates.js';
