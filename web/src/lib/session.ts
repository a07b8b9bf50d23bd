/**
 * The session and the public account calls: what the public pages (sign in, register,
 * invitation, password reset, email confirmation) need, with no local database. The session is
 * kept in localStorage; the SDK's light entry (`@family-shopping/client/auth`) signs in with
 * plain `fetch`. The signed-in shell (Shell.tsx, its own chunk) opens the full client with this
 * session (lib/app.ts); while that client is open, sign-in goes through its `auth` (it shares
 * the session with the other tabs), and it hands every refreshed session back here.
 */
import { createAccountClient, type Auth, type RegisterInput, type Session } from '@family-shopping/client/auth';
import { BehaviorSubject } from 'rxjs';
import type { MessageKey } from './i18n.ts';
import { applyLanguage, type LanguageChoice } from './language.ts';

const SESSION_KEY = 'family-shopping.session';

function parseSession(raw: string | null): Session | null {
  try {
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

function loadSession(): Session | null {
  try {
    return parseSession(localStorage.getItem(SESSION_KEY));
  } catch {
    return null;
  }
}

function saveSession(s: Session | null): void {
  try {
    if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
    else localStorage.removeItem(SESSION_KEY);
  } catch {
    // private mode: the session lives as long as the page
  }
}

export const session$ = new BehaviorSubject<Session | null>(loadSession());
/** A message for the sign-in page (e.g. "You were removed from the family"), by its key. */
export const notice$ = new BehaviorSubject<MessageKey | null>(null);

/** Every session change, from whichever client made it: kept on the device and announced. */
export function onSession(s: Session | null): void {
  saveSession(s);
  session$.next(s);
}

const account = createAccountClient({ baseUrl: typeof location === 'undefined' ? '' : location.origin, onSession });

/** The full client's `auth` while it is open (lib/app.ts); null: sign in without it. */
let openAuth: Auth | null = null;
export function setClientAuth(auth: Auth | null): void {
  openAuth = auth;
}

function auth(): Auth {
  return openAuth ?? account.auth;
}

export function signIn(email: string, password: string): Promise<Session> {
  return auth().login(email, password);
}

export function register(input: RegisterInput): Promise<Session> {
  return auth().register(input);
}

/** The auth endpoints answered before there is a session (online only; FamilyApiError). */
export const publicRequest = account.publicRequest;

/** Keeps the saved language choice in the session kept on this device (the next refresh
 * brings the same from the server). */
export function rememberLocale(locale: LanguageChoice): void {
  const s = session$.value;
  if (!s) return;
  onSession({ ...s, user: { ...s.user, locale } });
}

/** The language of the session, or the browser's; the first render waits for it (`ready`). */
let firstLanguage: Promise<unknown> = Promise.resolve();
// The language follows the session (signed in, refreshed, signed out) and the browser's.
session$.subscribe((s) => {
  firstLanguage = applyLanguage(s);
});
export const languageReady: Promise<unknown> = firstLanguage;

if (typeof window !== 'undefined') {
  window.addEventListener('languagechange', () => void applyLanguage(session$.value));
  // Signed in in another tab of this app: this tab is signed in too (the full client, once
  // open, shares every later change itself).
  window.addEventListener('storage', (e) => {
    if (e.key !== SESSION_KEY || session$.value) return;
    const s = parseSession(e.newValue);
    if (s) session$.next(s);
  });
}
