/**
 * The one FamilyClient of the signed-in shell (loaded with it, after sign-in: the public pages
 * carry none of this), its status and sign-out. The session lives in lib/session.ts (kept in
 * localStorage; the SDK hands every rotated refresh token to `onSession`). The local database
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
  switchMap,
  timer,
  type Observable,
} from 'rxjs';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { dropPendingChoice, savePendingChoice } from './language.ts';
import { notice$, onSession, rememberLocale, session$, setClientAuth } from './session.ts';

export { rememberLocale };

export const client$ = new BehaviorSubject<FamilyClient | null>(null);
/** The family's name as last read from the server (a rename does not renew the session). */
export const familyName$ = new BehaviorSubject<string | null>(null);

if (typeof window !== 'undefined') {
  // A choice made offline is saved once the network is back.
  window.addEventListener('online', () => {
    const c = client$.value;
    if (c) savePendingChoice(c, rememberLocale).catch(() => undefined);
  });
}

function use(client: FamilyClient | null): void {
  client$.next(client);
  setClientAuth(client?.auth ?? null);
}

async function open(session: Session | null): Promise<FamilyClient> {
  // The SDK's default in a browser (IndexedDB through Dexie), named here so that its code comes
  // with the shell's chunk, in parallel, rather than imported after the shell has started.
  const client = await createFamilyClient({
    baseUrl: location.origin,
    session,
    onSession,
    storage: getRxStorageDexie(),
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

/**
 * Opens the client (once) and starts replicating: at once when the shell loads with a session,
 * and again after each sign-in. A client left open when the session ended (expired) takes the
 * new session of a sign-in made without it (another tab).
 */
export function boot(): Promise<FamilyClient> {
  opening ??= (async () => {
    const client = client$.value ?? (await open(session$.value));
    use(client);
    const s = session$.value;
    if (s && !client.auth.session) client.auth.adopt({ session: s, why: 'signed_in', at: Date.now() });
    if (client.auth.session) {
      // The page renders (and asks the local database for its data) first; replication's
      // start, which writes to the same database, goes in a task after that frame.
      await afterFrame();
      await startReplication();
      savePendingChoice(client$.value ?? client, rememberLocale).catch(() => undefined);
    }
    return client;
  })();
  const done = opening;
  done.catch(() => {
    if (opening === done) opening = null;
  });
  return done;
}

/** Resolves after the next frame, once the page's effects of that frame ran (Preact runs them
 *  in a task after the frame), or after 100 ms where no frame comes (a hidden tab). */
function afterFrame(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => setTimeout(() => setTimeout(resolve));
    const timer = setTimeout(done, 100);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      done();
    });
  });
}

// Signed out, expired, or signed in as someone else (an invitation opened while signed in):
// the next shell boots again.
let bootedFor: string | null = null;
session$.subscribe((s) => {
  const who = s ? `${s.user.id}/${s.family.id}` : null;
  if (who !== bootedFor) opening = null;
  bootedFor = who;
});

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
      use(next);
      await next.start();
      return;
    }
    throw err;
  }
}

/** Drops this device's copy of the family's data; the next sign-in opens an empty one. */
export async function resetLocalData(): Promise<void> {
  const c = client$.value;
  if (!c) return;
  use(null);
  opening = null;
  await c.destroy().catch(() => undefined);
}

/** Signs out and removes the family's data from this device. The database is gone before the
 * session ends (and the shell shows the sign-in page), so a page loaded next finds it free. */
export async function signOut(): Promise<void> {
  const c = client();
  await c.destroy().catch(() => undefined);
  use(null);
  opening = null;
  await c.auth.logout();
  dropPendingChoice();
  familyName$.next(null);
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

/** How long the SDK may say "offline" with the browser's network up before the status bar says
 *  so: while the app opens, the SDK counts itself offline until its live channel is up (a
 *  moment), which is not "the server cannot be reached". The browser's own "offline" shows at once. */
const OFFLINE_GRACE_MS = 2_000;

/** Offline while the server cannot be reached; the number of local changes not yet sent. */
export function status$(c: FamilyClient): Observable<SyncStatus> {
  const unreachable$ = c.state$.pipe(
    map((state) => state === 'offline'),
    distinctUntilChanged(),
    switchMap((off) =>
      off
        ? timer(OFFLINE_GRACE_MS).pipe(
            map(() => true),
            startWith(false),
          )
        : of(false),
    ),
  );
  return combineLatest([unreachable$, navigatorOnline$, c.pending$.pipe(startWith(0))]).pipe(
    map(([unreachable, netUp, pending]) => ({ offline: !netUp || unreachable, pending })),
    distinctUntilChanged((a, b) => a.offline === b.offline && a.pending === b.pending),
  );
}
