// The emails' texts, one file per language (api-contract §12). To add a language: its tag in
// the protocol's LOCALES, a file beside these with every key of en.ts, and its line below;
// test/unit/server/mail-messages.test.ts proves it complete.
import type { Locale } from '@family-shopping/client/protocol';
import { en, type MailMessages } from './en.js';
import { de } from './de.js';
import { fr } from './fr.js';
import { es } from './es.js';
import { ptBR } from './pt-BR.js';

export { en, type MailMessageKey, type MailMessages } from './en.js';

export const MAIL_MESSAGES: Record<Locale, MailMessages> = { en, de, fr, es, 'pt-BR': ptBR };
