/**
 * createFamilyClient: the offline-first client of a Family Shopping server. It owns a local
 * RxDB database of the family's data (`client.db`), keeps it replicated while started
 * (`start()`/`stop()`), signs in and keeps the session fresh (`client.auth`), and calls the REST
 * API (`client.rest`). See docs/sdk.md.
 */
import { BehaviorSubject, Subject, distinctUntilChanged, filter, type Observable, type Subscription } from 'rxjs';
import type { RxStorage } from 'rxdb';
import { Auth } from './auth.js';
import { backoffDelay, Wakeup, type BackoffOptions } from './backoff.js';
import { openFamilyDatabase, readOwner, writeOwner, type FamilyDatabase } from './database.js';
import { FamilyClientError } from './errors.js';
import type { ClientState, FamilyClientEvent, FamilyClientEventOf, FamilyClientEventType } from './events.js';
import { LiveChannel, type WebSocketConstructor } from './live.js';
import { Replications } from './replication.js';
import { Rest, type HttpMethod } from './rest.js';
import { refreshDelay, type Session } from './session.js';
import { Transport, type FetchLike } from './transport.js';
import { defaultStorage } from './storage.js';
import { PULL_LIMIT_MAX, RefusedRows, SCHEMA_VERSION, type CollectionName } from './protocol/index.js';
import { notSignedIn } from './auth.js';
import { createDomain, type Domain } from './domain/index.js';

export interface FamilyClientOptions {
  /** Server origin, e.g. `https://shopping.example.com` (paths start with `/api`). */
  baseUrl: string;
  /** Where the local database lives. Default: IndexedDB (RxDB's Dexie storage) where the
   * runtime has it (browsers), memory otherwise (Node: the data lives as long as the process). */
  storage?: RxStorage<any, any>;
  /** Local database name (default `family-shopping`); one open client per name. */
  databaseName?: string;
  /** A session the app persisted earlier (tokens), to start signed in. */
  session?: Session | null;
  /** Called with every new session (login, register, each refresh: the refresh token rotates)
   * and with null when it ends. Persist it to survive restarts. */
  onSession?: (session: Session | null) => void;
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Defaults to `globalThis.WebSocket`; in Node 20 pass `WebSocket` from the `ws` package. */
  WebSocket?: WebSocketConstructor;
  /** Use the live channel as the replication nudge (default true). Without it the client
   * pulls at start and on `sync()` only. */
  realtime?: boolean;
  /** Pull page size (default and maximum 1000). */
  pullBatchSize?: number;
  /** Push batch size (default 100, at most 500). */
  pushBatchSize?: number;
  /** Retry delay for errors RxDB handles itself (default 5000 ms). */
  retryTime?: number;
  /** Backoff of reconnects and of requests that failed offline (default 500 ms .. 30 s). */
  backoff?: BackoffOptions;
  /** `Changed` nudges within this many ms make one pull (default 50). */
  nudgeDelayMs?: number;
  /** The live channel's socket is closed and reopened when no frame arrived from the server
   * for this long (default 25 000 ms); the client sends `Ping` every 2/5 of it. */
  heartbeatTimeoutMs?: number;
  /** The wire schema version sent as `schema=` (default SCHEMA_VERSION). Only for testing the
   * upgrade path: a lower one gets `426 schema_outdated`. */
  schemaVersion?: number;
}

export interface FamilyClient {
  /** The local database: nine collections (lists, items, stores, sections, recipes,
   * ingredients, products, units, sectionMemory). Read and write it; writes replicate. */
  readonly db: FamilyDatabase;
  /** register, login, logout, session. */
  readonly auth: Auth;
  /** Current state: stopped | offline | syncing | idle. */
  readonly state: ClientState;
  readonly state$: Observable<ClientState>;
  /** Whether the server is reachable (live channel authenticated; with `realtime: false`,
   * the last request got an answer). */
  readonly online: boolean;
  readonly events$: Observable<FamilyClientEvent>;
  on<T extends FamilyClientEventType>(type: T, listener: (event: FamilyClientEventOf<T>) => void): () => void;
  /** A REST call with the session's token; resolves to the JSON body, throws FamilyApiError. */
  rest<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T>;
  /** Starts live replication (needs a session). Returns at once: offline, local writes queue. */
  start(): Promise<void>;
  /** Stops replicating (local data and queued writes stay). */
  stop(): Promise<void>;
  /** Pull everything new now, push what is pending, and wait until done. */
  sync(): Promise<void>;
  /** Resolves when nothing is left to pull or push (waits while offline). */
  awaitInSync(): Promise<void>;
  /** Stops and deletes the local database (unpushed writes are lost). */
  destroy(): Promise<void>;
  /** Stops and closes the local database, keeping its data and queued writes (a later client
   *  of the same database resumes them). The client cannot be used afterwards. */
  close(): Promise<void>;
  /** Receive the list's live events (`ItemAdded`, `ItemChecked`, …) as `frame` events, e.g.
   *  while its screen is open; kept across reconnects until `leaveList`. */
  joinList(listId: string): void;
  leaveList(listId: string): void;
  /** The offline domain API (docs/sdk.md "Domain API"): validated local writes with the REST
   *  rules, and the REST views derived from the local database. */
  readonly lists: Domain['lists'];
  readonly items: Domain['items'];
  readonly stores: Domain['stores'];
  readonly sections: Domain['sections'];
  readonly recipes: Domain['recipes'];
  readonly ingredients: Domain['ingredients'];
  readonly products: Domain['products'];
  readonly units: Domain['units'];
}

export async function createFamilyClient(options: FamilyClientOptions): Promise<FamilyClient> {
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const refused = new RefusedRows();
  const storage = options.storage ?? (await defaultStorage());
  const db = await openFamilyDatabase(options.databaseName ?? 'family-shopping', storage, refused, false);
  return new Client(options, fetchImpl, db, refused);
}

class Client implements FamilyClient {
  readonly auth: Auth;
  readonly lists: Domain['lists'];
  readonly items: Domain['items'];
  readonly stores: Domain['stores'];
  readonly sections: Domain['sections'];
  readonly recipes: Domain['recipes'];
  readonly ingredients: Domain['ingredients'];
  readonly products: Domain['products'];
  readonly units: Domain['units'];
  private readonly rest_: Rest;
  private readonly events = new Subject<FamilyClientEvent>();
  private readonly stateSubject = new BehaviorSubject<ClientState>('stopped');
  readonly events$ = this.events.asObservable();
  readonly state$ = this.stateSubject.pipe(distinctUntilChanged());
  private readonly wakeup = new Wakeup();
  private readonly realtime: boolean;
  private lifecycle: Promise<unknown> = Promise.resolve();
  private replications: Replications | null = null;
  /** The family being replicated while started. */
  private familyId: string | null = null;
  private live: LiveChannel | null = null;
  private readonly joinedLists = new Set<string>();
  private subs: Subscription[] = [];
  private running = false;
  /** The server ended this run (removed, schema_outdated): report it once. */
  private halted = false;
  private destroyed = false;
  private liveUp = false;
  private unreachable = false;
  private active = false;
  private wasOnline = false;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private nudgeTimer: ReturnType<typeof setTimeout> | undefined;
  private nudgeVersion = -1;
  private nudgeCollections: Set<CollectionName> | null = new Set();
  private refreshFailures = 0;

  constructor(
    private readonly options: FamilyClientOptions,
    fetchImpl: FetchLike,
    readonly db: FamilyDatabase,
    private readonly refused: RefusedRows,
  ) {
    const transport = new Transport(options.baseUrl, fetchImpl);
    this.auth = new Auth(transport, options.session, options.onSession);
    const domain = createDomain(db, () => {
      const session = this.auth.session;
      return session ? { userId: session.user.id, role: session.role } : null;
    });
    ({
      lists: this.lists,
      items: this.items,
      stores: this.stores,
      sections: this.sections,
      recipes: this.recipes,
      ingredients: this.ingredients,
      products: this.products,
      units: this.units,
    } = domain);
    this.rest_ = new Rest(transport, this.auth);
    this.realtime = options.realtime ?? true;
    this.auth.subscribe((session, why) => {
      if (why === 'refreshed' && session) {
        this.live?.reauthenticate(session.accessToken);
        this.scheduleRefresh();
      } else if (why === 'expired') {
        this.emit({ type: 'unauthenticated' });
        void this.stop();
      } else if (why === 'signed_out') {
        void this.stop();
      } else if (why === 'signed_in' && session && this.running && session.family.id !== this.familyId) {
        void this.stop(); // another family's account: this database is not its replica
      }
    });
  }

  get state(): ClientState {
    return this.stateSubject.value;
  }

  get online(): boolean {
    return this.realtime ? this.liveUp : this.running && !this.unreachable;
  }

  on<T extends FamilyClientEventType>(type: T, listener: (event: FamilyClientEventOf<T>) => void): () => void {
    const sub = this.events
      .pipe(filter((e): e is FamilyClientEventOf<T> => e.type === type))
      .subscribe(listener);
    return () => sub.unsubscribe();
  }

  rest<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    return this.rest_.request<T>(method, path, body);
  }

  start(): Promise<void> {
    return this.serial(async () => {
      if (this.destroyed) throw new FamilyClientError('destroyed', 'this client was destroyed or closed');
      if (this.running) return;
      const session = this.auth.session;
      if (!session) throw notSignedIn();
      const owner = await readOwner(this.db);
      if (owner && (owner.familyId !== session.family.id || owner.baseUrl !== this.options.baseUrl)) {
        throw new FamilyClientError(
          'database_of_another_family',
          `the local database "${this.db.name}" holds another family's data; destroy() it or use another databaseName`,
        );
      }
      if (!owner) await writeOwner(this.db, { familyId: session.family.id, userId: session.user.id, baseUrl: this.options.baseUrl });

      const WebSocketImpl = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
      if (this.realtime && !WebSocketImpl) {
        throw new FamilyClientError('no_websocket', 'no WebSocket: pass the `ws` package as the WebSocket option');
      }
      this.running = true;
      this.halted = false;
      this.familyId = session.family.id;
      this.unreachable = false;
      const backoff = this.options.backoff ?? {};
      const replications = new Replications({
        db: this.db,
        refused: this.refused,
        rest: this.rest_,
        familyId: session.family.id,
        schemaVersion: this.options.schemaVersion ?? SCHEMA_VERSION,
        pullBatchSize: this.options.pullBatchSize ?? PULL_LIMIT_MAX,
        pushBatchSize: this.options.pushBatchSize ?? 100,
        retryTime: this.options.retryTime ?? 5_000,
        backoff,
        wakeup: this.wakeup,
        hooks: {
          reachable: (ok) => {
            if (this.unreachable === !ok) return;
            this.unreachable = !ok;
            this.updateState();
          },
          rejected: (collection, rows) => this.emit({ type: 'rejected', collection, rows }),
          schemaOutdated: () => this.halt({ type: 'schema_outdated' }),
          checkpointExpired: (collection) => this.emit({ type: 'checkpoint_expired', collection }),
          error: (collection, error) => this.emit({ type: 'error', collection, error }),
        },
      });
      this.replications = replications;
      this.subs.push(
        replications.active$.subscribe((active) => {
          this.active = active;
          this.updateState();
        }),
      );
      if (this.realtime && WebSocketImpl) {
        this.live = new LiveChannel({
          baseUrl: this.options.baseUrl,
          WebSocket: WebSocketImpl,
          backoff,
          currentToken: () => this.auth.session?.accessToken ?? null,
          freshToken: async (refused) => (await this.auth.refresh(refused))?.accessToken ?? null,
          joinedLists: () => this.joinedLists,
          heartbeatTimeoutMs: this.options.heartbeatTimeoutMs,
          handlers: {
            connected: () => {
              this.liveUp = true;
              this.unreachable = false;
              this.wakeup.wake(); // requests waiting out a backoff go now
              this.replications?.reSyncAll(); // catch up on what the socket missed
              this.updateState();
            },
            disconnected: () => {
              this.liveUp = false;
              this.updateState();
            },
            changed: (frame) => {
              this.emit({ type: 'changed', version: frame.version });
              // A live patch is applied at once where it can be; the rest is pulled.
              this.scheduleNudge(frame.version, this.replications?.applyChanged(frame) ?? frame.collections);
            },
            frame: (frame) => {
              // A list that is not (or no longer) the family's: stop asking for it.
              if (frame.type === 'Error' && typeof frame.requestId === 'string' && frame.requestId.startsWith('join:')) {
                this.joinedLists.delete(frame.requestId.slice('join:'.length));
              }
              this.emit({ type: 'frame', frame });
            },
            removed: () => {
              this.halt({ type: 'removed' });
              this.auth.clear('signed_out');
            },
          },
        });
        this.live.start();
      }
      this.scheduleRefresh();
      this.updateState();
    });
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      if (!this.running) return;
      this.running = false;
      clearTimeout(this.refreshTimer);
      clearTimeout(this.nudgeTimer);
      this.nudgeTimer = undefined;
      this.live?.stop();
      this.live = null;
      this.liveUp = false;
      for (const s of this.subs) s.unsubscribe();
      this.subs = [];
      const replications = this.replications;
      this.replications = null;
      this.active = false;
      this.updateState();
      await replications?.cancel();
    });
  }

  joinList(listId: string): void {
    const id = listId.toLowerCase();
    if (this.joinedLists.has(id)) return;
    this.joinedLists.add(id);
    this.live?.join(id);
  }

  leaveList(listId: string): void {
    const id = listId.toLowerCase();
    if (!this.joinedLists.delete(id)) return;
    this.live?.leave(id);
  }

  async sync(): Promise<void> {
    this.replications?.reSyncAll();
    await this.awaitInSync();
  }

  async awaitInSync(): Promise<void> {
    await this.replications?.awaitInSync();
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    await this.stop();
    this.destroyed = true;
    await this.serial(() => this.db.remove());
    this.events.complete();
    this.stateSubject.complete();
  }

  async close(): Promise<void> {
    if (this.destroyed) return;
    await this.stop();
    this.destroyed = true;
    await this.serial(() => this.db.close());
    this.events.complete();
    this.stateSubject.complete();
  }

  /** Stops replicating because the server said so; reported first, then stopped. */
  private halt(event: FamilyClientEvent): void {
    if (!this.running || this.halted) return;
    this.halted = true;
    this.emit(event);
    void this.stop();
  }

  private scheduleNudge(version: number, collections: readonly CollectionName[] | undefined): void {
    this.nudgeVersion = Math.max(this.nudgeVersion, version);
    // The union of what the nudges in the window name; null once one says "any".
    if (!collections) this.nudgeCollections = null;
    else if (this.nudgeCollections) for (const c of collections) this.nudgeCollections.add(c);
    if (this.nudgeTimer) return;
    this.nudgeTimer = setTimeout(() => {
      this.nudgeTimer = undefined;
      const which = this.nudgeCollections;
      this.nudgeCollections = new Set();
      this.replications?.nudge(this.nudgeVersion, which ?? undefined);
    }, this.options.nudgeDelayMs ?? 50);
  }

  /** Refreshes the access token ahead of its expiry while started, so requests and the live
   * channel never run on an expired token (a 401 still refreshes on demand). */
  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    const session = this.auth.session;
    if (!this.running || !session) return;
    const due = refreshDelay(session.accessToken, this.auth.serverNow());
    if (due === null) return;
    // Never in a tight loop, whatever the clocks say: at least a second between refreshes.
    const delay = Math.max(due, 1_000);
    this.refreshTimer = setTimeout(() => {
      this.auth.refresh(session.accessToken).then(
        () => {
          this.refreshFailures = 0;
        },
        () => {
          // offline or server busy: try again later (requests refresh on 401 meanwhile)
          clearTimeout(this.refreshTimer);
          if (this.running) {
            this.refreshTimer = setTimeout(
              () => this.scheduleRefresh(),
              backoffDelay(this.refreshFailures++, this.options.backoff),
            );
          }
        },
      );
    }, delay);
  }

  private updateState(): void {
    const state: ClientState = !this.running ? 'stopped' : !this.online ? 'offline' : this.active ? 'syncing' : 'idle';
    const online = this.online;
    if (online !== this.wasOnline) {
      this.wasOnline = online;
      this.emit({ type: online ? 'online' : 'offline' });
    }
    if (state !== this.stateSubject.value) {
      this.stateSubject.next(state);
      this.emit({ type: 'state', state });
    }
  }

  private emit(event: FamilyClientEvent): void {
    if (!this.events.closed) this.events.next(event);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(fn);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }
}
