/**
 * The language choice (contract §12): stored with the user (`PATCH /api/me { locale }`,
 * `user.locale` in the session: a tag, or null to follow the browser). A choice made while the
 * server cannot be reached applies on this device at once and waits here (localStorage) until
 * it is saved: when the browser is back online or the app next starts.
 */
import type { FamilyClient, Session } from '@family-shopping/client';
import { isLocale, type Locale } from './locale.ts';
import { effectiveLocale, speak } from './i18n.ts';
import { isNetworkError } from './hooks.ts';

const PENDING_KEY = 'family-shopping.language-pending';

/** What a choice is: a locale, or null for the browser's language. */
export type LanguageChoice = Locale | null;

/** The session's stored choice (`user.locale`; absent from older sessions: null). */
export function sessionChoice(session: Session | null): LanguageChoice {
  const value = (session?.user as { locale?: unknown } | undefined)?.locale;
  return isLocale(value) ? value : null;
}

/** A choice made on this device and not yet saved (undefined: none). */
export function pendingChoice(): LanguageChoice | undefined {
  try {
    const raw = localStorage.getItem(PENDING_KEY);
    if (raw === null) return undefined;
    const value = JSON.parse(raw) as unknown;
    return isLocale(value) ? value : null;
  } catch {
    return undefined;
  }
}

function setPending(choice: LanguageChoice | undefined): void {
  try {
    if (choice === undefined) localStorage.removeItem(PENDING_KEY);
    else localStorage.setItem(PENDING_KEY, JSON.stringify(choice));
  } catch {
    // private mode: the choice lasts as long as the page
  }
}

/** The choice in force: one waiting on this device, else the session's. */
export function currentChoice(session: Session | null): LanguageChoice {
  const pending = session ? pendingChoice() : undefined;
  return pending !== undefined ? pending : sessionChoice(session);
}

/** Speaks the language of the choice in force. */
export function applyLanguage(session: Session | null): Promise<Locale> {
  return speak(effectiveLocale(currentChoice(session)));
}

/**
 * Chooses a language: applied at once, then saved with the user. `saved` false: the server
 * could not be reached, the choice applies here and is sent later (`savePendingChoice`).
 * `remember` stores the saved choice in the session kept on this device.
 */
export async function chooseLanguage(
  client: FamilyClient,
  choice: LanguageChoice,
  remember: (locale: LanguageChoice) => void,
  session: Session | null,
): Promise<{ saved: boolean }> {
  setPending(choice);
  await speak(effectiveLocale(choice));
  try {
    return await savePendingChoice(client, remember);
  } catch (err) {
    await applyLanguage(session); // refused: back to the stored choice
    throw err;
  }
}

/** Sends a choice waiting on this device, if any. */
export async function savePendingChoice(
  client: FamilyClient,
  remember: (locale: LanguageChoice) => void,
): Promise<{ saved: boolean }> {
  const choice = pendingChoice();
  if (choice === undefined || !client.auth.session) return { saved: true };
  try {
    await client.rest('PATCH', '/api/me', { locale: choice });
  } catch (err) {
    if (isNetworkError(err)) return { saved: false };
    setPending(undefined); // refused: the stored choice stays in force
    throw err;
  }
  if (pendingChoice() === choice) setPending(undefined);
  remember(choice);
  return { saved: true };
}

/** Forgets a choice waiting on this device (signing out). */
export function dropPendingChoice(): void {
  setPending(undefined);
}
