/**
 * The one FamilyClient of the app, its session and its status. The session is kept in
 * localStorage (the SDK hands every rotated refresh token to `onSession`). The local database
 * is the SDK's default in a browser, IndexedDB (RxDB's Dexie storage), so lists open with no
 * signal after the first load.
 */
import { createFamilyClient, FamilyClientError, type FamilyClient, type Session } from '@family-shopping/client';
import {
  BehaviorSubject,
  combineLatest,
  fromEvent,
  map,
  merge,
  of,
  startWith,
  distinctUntilChanged,
  type Observable,
} from 'rxjs';
import type { MessageKey } from './i18n.ts';
import { applyLanguage, dropPendingChoice, savePendingChoice, type LanguageChoice } from './language.ts';

const SESSION_KEY = 'family-shopping.session';

function loadSession(): Session | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
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
export const client$ = new BehaviorSubject<FamilyClient | null>(null);
/** The family's name as last read from the server (a rename does not renew the session). */
export const familyName$ = new BehaviorSubject<string | null>(null);
/** A message for the sign-in page (e.g. "You were removed from the family"), by its key. */
export const notice$ = new BehaviorSubject<MessageKey | null>(null);

/** Keeps the saved language choice in the session kept on this device (the next refresh
 * brings the same from the server). */
export function rememberLocale(locale: LanguageChoice): void {
  const s = session$.value;
  if (!s) return;
  const next = { ...s, user: { ...s.user, locale } };
  saveSession(next);
  session$.next(next);
}

// The language follows the session (signed in, refreshed, signed out) and the browser's.
session$.subscribe((s) => void applyLanguage(s));
if (typeof window !== 'undefined') {
  window.addEventListener('languagechange', () => void applyLanguage(session$.value));
  // A choice made offline is saved once the network is back.
  window.addEventListener('online', () => {
    const c = client$.value;
    if (c) savePendingChoice(c, rememberLocale).catch(() => undefined);
  });
}

async function open(session: Session | null): Promise<FamilyClient> {
  const client = await createFamilyClient({
    baseUrl: location.origin,
    session,
    onSession: (s) => {
      saveSession(s);
      session$.next(s);
    },
  });
  client.on('removed', () => {
    notice$.next('notice.removed');
    void resetLocalData();
  });
  client.on('unauthenticated', () => notice$.next('notice.sessionEnded'));
  client.on('schema_outdated', () => notice$.next('notice.outdated'));
  return client;
}

let opening: Promise<FamilyClient> | null = null;

/** Opens the client (once) and starts replicating when signed in. */
export function boot(): Promise<FamilyClient> {
  opening ??= (async () => {
    await applyLanguage(session$.value);
    const client = await open(session$.value);
    client$.next(client);
    if (client.auth.session) {
      await startReplication();
      savePendingChoice(client$.value ?? client, rememberLocale).catch(() => undefined);
    }
    return client;
  })();
  return opening;
}

export function client(): FamilyClient {
  const c = client$.value;
  if (!c) throw new Error('client not open');
  return c;
}

/** Starts replication; a database that holds another family's data is dropped first. */
export async function startReplication(): Promise<void> {
  const c = client();
  try {
    await c.start();
  } catch (err) {
    if (err instanceof FamilyClientError && err.code === 'database_of_another_family') {
      const s = c.auth.session;
      await c.destroy();
      const next = await open(s);
      client$.next(next);
      await next.start();
      return;
    }
    throw err;
  }
}

/** Drops this device's copy of the family's data and opens an empty one. */
export async function resetLocalData(): Promise<void> {
  const c = client$.value;
  if (!c) return;
  const s = c.auth.session;
  await c.destroy().catch(() => undefined);
  client$.next(await open(s));
}

/** Signs out and removes the family's data from this device. The database is gone before the
 * session ends (and the shell shows the sign-in page), so a page loaded next finds it free. */
export async function signOut(): Promise<void> {
  const c = client();
  await c.destroy().catch(() => undefined);
  const next = await open(null);
  await c.auth.logout();
  dropPendingChoice();
  familyName$.next(null);
  client$.next(next);
}

/** Whether the browser reports a network at all. */
const navigatorOnline$: Observable<boolean> =
  typeof window === 'undefined'
    ? of(true)
    : merge(fromEvent(window, 'online'), fromEvent(window, 'offline')).pipe(
        map(() => navigator.onLine),
        startWith(navigator.onLine),
      );

export interface SyncStatus {
  offline: boolean;
  pending: number;
}

/** Offline while the server cannot be reached; the number of local changes not yet sent. */
export function status$(c: FamilyClient): Observable<SyncStatus> {
  return combineLatest([c.state$, navigatorOnline$, c.pending$.pipe(startWith(0))]).pipe(
    map(([state, netUp, pending]) => ({ offline: !netUp || state === 'offline', pending })),
    distinctUntilChanged((a, b) => a.offline === b.offline && a.pending === b.pending),
  );
}
