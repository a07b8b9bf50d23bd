/**
 * createFamilyClient: the offline-first client of a Family Shopping server. It owns a local
 * RxDB database of the family's data (`client.db`), keeps it replicated while started
 * (`start()`/`stop()`), signs in and keeps the session fresh (`client.auth`), and calls the REST
 * API (`client.rest`). In browsers the tabs of one origin share the database and the session,
 * and one of them replicates (tabs.ts). See docs/sdk.md.
 */
import { BehaviorSubject, Subject, combineLatest, distinctUntilChanged, filter, map, type Observable } from 'rxjs';
import type { Subscription } from 'rxjs';
import type { RxStorage } from 'rxdb';
import { Auth, notSignedIn } from './auth.js';
import type { BackoffOptions } from './backoff.js';
import { Connectivity } from './client/connectivity.js';
import { Leadership, type LeaderStatus } from './client/leadership.js';
import { ListJoins } from './client/list-joins.js';
import { ReplicationRun } from './client/replication-run.js';
import { SessionRefresh } from './client/session-refresh.js';
import { openFamilyDatabase, readOwner, writeOwner, type FamilyDatabase } from './database.js';
import { FamilyClientError } from './errors.js';
import type { ClientState, FamilyClientEvent, FamilyClientEventOf, FamilyClientEventType } from './events.js';
import type { WebSocketConstructor } from './live.js';
import { Rest, type HttpMethod } from './rest.js';
import type { Session } from './session.js';
import type { PullProgress } from './status.js';
import { defaultStorage, hasIndexedDb } from './storage.js';
import { Tabs, tabsAvailable } from './tabs.js';
import { Transport, type FetchLike } from './transport.js';
import {
  COLLECTIONS,
  DEFAULT_LOCALE,
  PULL_LIMIT_MAX,
  RefusedRows,
  SCHEMA_VERSION,
  isLocale,
} from './protocol/index.js';
import { createDomain, type Domain } from './domain/index.js';

export interface FamilyClientOptions {
  /** Server origin, e.g. `https://shopping.example.com` (paths start with `/api`). */
  baseUrl: string;
  /** Where the local database lives. Default: IndexedDB (RxDB's Dexie storage) where the
   * runtime has it (browsers), memory otherwise (Node: the data lives as long as the process). */
  storage?: RxStorage<any, any>;
  /** Local database name (default `family-shopping`); one open client per name and page. */
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
  /** Use the live channel as the replication nudge (default: true where a WebSocket exists,
   * given or global). Without it the client pulls at start and on `sync()` only. */
  realtime?: boolean;
  /** Share the database and the session with the other tabs of this origin, one of them
   * replicating (default: true in browsers, i.e. where IndexedDB, Web Locks and
   * BroadcastChannel exist). */
  tabs?: boolean;
  /** A request without a complete answer after this many ms fails as offline (default 15000). */
  requestTimeoutMs?: number;
  /** Pull page size (default and maximum 1000). */
  pullBatchSize?: number;
  /** Push batch size (default 100, at most 500). */
  pushBatchSize?: number;
  /** Retry delay after an error the server will not answer differently soon (default 5000 ms;
   * cut short when the network returns, the live channel reconnects or on `sync()`). */
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
  /** Whether requests reach the server now (with `realtime`, also: the live channel is up). */
  readonly online: boolean;
  /** Number of local documents with changes the server has not acknowledged yet. */
  readonly pending$: Observable<number>;
  /** `{ collection, pulled, done }` after every page of a running pull. */
  readonly progress$: Observable<PullProgress>;
  /** Whether this client replicates (always, outside browsers; in a browser, one started tab
   * of the origin at a time). */
  readonly leader: boolean;
  readonly events$: Observable<FamilyClientEvent>;
  on<T extends FamilyClientEventType>(type: T, listener: (event: FamilyClientEventOf<T>) => void): () => void;
  /** A REST call with the session's token; resolves to the JSON body, throws FamilyApiError. */
  rest<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T>;
  /** Starts live replication (needs a session). Returns at once: offline, local writes queue. */
  start(): Promise<void>;
  /** Stops replicating (local data and queued writes stay). */
  stop(): Promise<void>;
  /** Retry now whatever waits, pull everything new, push what is pending, and wait until done. */
  sync(): Promise<void>;
  /** Resolves when nothing is left to push and the server's state after this device's pushes
   *  has been pulled back (waits while offline). */
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
  const name = options.databaseName ?? 'family-shopping';
  // Tabs share a browser's storage; a Node process (even one with Web Locks) has no tabs.
  const useTabs = (options.tabs ?? hasIndexedDb()) && tabsAvailable();
  const storage = options.storage ?? (await defaultStorage());
  const db = await openFamilyDatabase(name, storage, refused, useTabs);
  const tabs = useTabs ? new Tabs(db, name) : undefined;
  const client = new Client(options, fetchImpl, db, refused, tabs);
  if (!tabs) await client.countUnreplicated();
  if (tabs) {
    // The session another tab stored is the newest one (every change is stored).
    const stored = await tabs.readSession().catch(() => null);
    if (stored?.session) client.auth.adopt(stored);
  }
  return client;
}

/**
 * The client composes its parts (docs/architecture.md "The SDK client"): `Leadership` (which tab
 * replicates, and what the tabs tell each other), `Connectivity` (reachability and wakeups),
 * `SessionRefresh` (tokens refreshed ahead of expiry) and a `ReplicationRun` per start (the
 * replications, their bookkeeping and the live channel). It owns the lifecycle (start, stop,
 * close, destroy, one at a time) and what the app observes (state, pending, progress, events).
 */
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
  private readonly pendingSubject = new BehaviorSubject<number>(0);
  readonly pending$ = this.pendingSubject.pipe(distinctUntilChanged());
  private readonly progressSubject = new Subject<PullProgress>();
  readonly progress$ = this.progressSubject.asObservable();
  private readonly realtime: boolean;
  private readonly connectivity: Connectivity;
  private readonly refresh: SessionRefresh;
  private readonly leadership: Leadership;
  private readonly joins = new ListJoins();
  /** The replication while this client replicates (started, and the leader). */
  private run: ReplicationRun | null = null;
  private lifecycle: Promise<unknown> = Promise.resolve();
  /** The app started this client (until stop()). */
  private running = false;
  /** start() or stop() was called: sync()/awaitInSync() no longer start the client themselves. */
  private startedOrStopped = false;
  /** pending$ of a database that never replicated, until the replication counts (status.ts). */
  private unreplicatedCount: Subscription | null = null;
  /** The family being replicated while started. */
  private familyId: string | null = null;
  /** The server ended this run (removed, schema_outdated): report it once. */
  private halted = false;
  private destroyed = false;
  private wasOnline = false;

  constructor(
    private readonly options: FamilyClientOptions,
    fetchImpl: FetchLike,
    readonly db: FamilyDatabase,
    private readonly refused: RefusedRows,
    tabs: Tabs | undefined,
  ) {
    // Default: the live channel where the runtime has a WebSocket (Node 20 has none unless one
    // is passed); without it the client still replicates, pulling at start and on sync().
    this.realtime = options.realtime ?? this.webSocket() !== undefined;
    this.connectivity = new Connectivity({
      realtime: this.realtime,
      backoff: options.backoff,
      probe: () => this.rest_.send('GET', '/api/me'),
      reconnectLive: () => this.run?.reconnectLive(),
      networkBack: () => this.run?.reSyncAll(),
      changed: () => this.updateState(),
    });
    const transport = new Transport(options.baseUrl, fetchImpl, {
      timeoutMs: options.requestTimeoutMs ?? 15_000,
      onReachable: (ok) => this.connectivity.setReachable(ok),
    });
    this.auth = new Auth(transport, options.session, options.onSession, tabs);
    const rest = new Rest(transport, this.auth);
    const domain = createDomain(
      db,
      () => {
        const session = this.auth.session;
        if (!session) return null;
        // A session stored by an older server names no family locale: English, as it was then.
        const familyLocale = isLocale(session.family.locale) ? session.family.locale : DEFAULT_LOCALE;
        return { userId: session.user.id, role: session.role, familyLocale };
      },
      undefined,
      (method, path) => rest.request(method, path),
    );
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
    this.rest_ = rest;
    this.refresh = new SessionRefresh(this.auth, this.connectivity.wakeup, options.backoff);
    this.auth.subscribe((session, why) => {
      if (why === 'refreshed' && session) {
        this.run?.reauthenticate(session.accessToken);
        this.refresh.schedule();
      } else if (why === 'expired') {
        this.emit({ type: 'unauthenticated' });
        void this.stop();
      } else if (why === 'signed_out') {
        void this.stop();
      } else if (why === 'signed_in' && session && this.running && session.family.id !== this.familyId) {
        void this.stop(); // another family's account: this database is not its replica
      }
    });
    this.leadership = new Leadership(tabs, this.joins, {
      granted: () => void this.becomeLeader(),
      adoptSession: (record) => this.auth.adopt(record),
      status: (): LeaderStatus => ({ state: this.state, online: this.online, pending: this.pendingSubject.value }),
      run: (op) => (op === 'sync' ? this.sync() : this.awaitInSync()),
      joinLive: (listId) => this.run?.joinLive(listId),
      leaveLive: (listId) => this.run?.leaveLive(listId),
      leaderStatus: ({ pending }) => {
        this.pendingSubject.next(pending);
        this.updateState();
      },
      progress: (progress) => this.progressSubject.next(progress),
      event: (event) => {
        if (!this.events.closed) this.events.next(event);
        if (event.type === 'removed' || event.type === 'schema_outdated') void this.stop();
      },
    });
  }

  get state(): ClientState {
    return this.stateSubject.value;
  }

  get online(): boolean {
    if (!this.running) return false;
    if (this.leadership.role === 'follower') return this.leadership.mirrored?.online ?? false;
    return this.connectivity.online;
  }

  get leader(): boolean {
    return this.leadership.role === 'leader';
  }

  on<T extends FamilyClientEventType>(type: T, listener: (event: FamilyClientEventOf<T>) => void): () => void {
    const sub = this.events.pipe(filter((e): e is FamilyClientEventOf<T> => e.type === type)).subscribe(listener);
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
      this.startedOrStopped = true;
      const owner = await readOwner(this.db);
      if (owner && (owner.familyId !== session.family.id || owner.baseUrl !== this.options.baseUrl)) {
        throw new FamilyClientError(
          'database_of_another_family',
          `the local database "${this.db.name}" holds another family's data; destroy() it or use another databaseName`,
        );
      }
      if (!owner)
        await writeOwner(this.db, {
          familyId: session.family.id,
          userId: session.user.id,
          baseUrl: this.options.baseUrl,
        });
      if (this.realtime && !this.webSocket()) {
        throw new FamilyClientError('no_websocket', 'no WebSocket: pass the `ws` package as the WebSocket option');
      }
      this.running = true;
      this.halted = false;
      this.familyId = session.family.id;
      if (this.leadership.shared) {
        // Replicate once this tab holds the origin's leadership; mirror the leader meanwhile.
        this.leadership.follow();
        this.updateState();
      } else {
        this.leadership.lead(() => this.startReplicating());
      }
    });
  }

  stop(): Promise<void> {
    this.startedOrStopped = true;
    return this.serial(async () => {
      if (!this.running) return;
      this.running = false;
      const wasLeader = this.leadership.stepDown();
      if (wasLeader || !this.leadership.shared) await this.stopReplicating();
      this.leadership.release();
      this.updateState();
    });
  }

  joinList(listId: string): void {
    const id = listId.toLowerCase();
    if (!this.joins.joinOwn(id)) return;
    this.run?.joinLive(id);
    this.leadership.joined(id);
  }

  leaveList(listId: string): void {
    const id = listId.toLowerCase();
    if (!this.joins.leaveOwn(id)) return;
    if (!this.joins.held(id)) this.run?.leaveLive(id);
    this.leadership.left(id);
  }

  async sync(): Promise<void> {
    await this.startIfNeverStarted();
    if (this.leadership.role === 'follower') return this.leadership.ask('sync');
    this.connectivity.wakeAll();
    this.run?.reSyncAll();
    await this.awaitInSync();
  }

  async awaitInSync(): Promise<void> {
    await this.startIfNeverStarted();
    if (this.leadership.role === 'follower') return this.leadership.ask('awaitInSync');
    await this.run?.awaitInSync();
  }

  /** Contract §8 reaches "in sync" without naming start(): a signed-in client that was neither
   *  started nor stopped starts replicating when sync() or awaitInSync() is called. */
  private async startIfNeverStarted(): Promise<void> {
    if (!this.startedOrStopped && !this.running && !this.destroyed && this.auth.session) await this.start();
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    await this.stop();
    this.destroyed = true;
    this.leadership.close();
    await this.serial(() => this.db.remove());
    this.complete();
  }

  async close(): Promise<void> {
    if (this.destroyed) return;
    await this.stop();
    this.destroyed = true;
    this.leadership.close();
    await this.serial(() => this.db.close());
    this.complete();
  }

  private complete(): void {
    this.unreplicatedCount?.unsubscribe();
    this.events.complete();
    this.stateSubject.complete();
    this.pendingSubject.complete();
    this.progressSubject.complete();
  }

  private webSocket(): WebSocketConstructor | undefined {
    return this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  }

  /** This tab got the origin's leadership: replicate here. */
  private becomeLeader(): Promise<void> {
    return this.serial(async () => {
      if (!this.running || this.leadership.role !== 'follower') return;
      const session = this.auth.session;
      if (!session || session.family.id !== this.familyId) return;
      this.leadership.lead(() => this.startReplicating());
    });
  }

  /** A database that never replicated holds nothing the server has seen: until the first start
   *  counts what waits (status.ts), pending$ is the number of its documents. */
  async countUnreplicated(): Promise<void> {
    if (await readOwner(this.db)) return;
    const counts = COLLECTIONS.map((c) => (this.db[c] as { count(): { $: Observable<number> } }).count().$);
    this.unreplicatedCount = combineLatest(counts)
      .pipe(map((ns) => ns.reduce((a, b) => a + b, 0)))
      .subscribe((n) => this.pendingSubject.next(n));
  }

  private startReplicating(): void {
    this.unreplicatedCount?.unsubscribe();
    this.unreplicatedCount = null;
    const session = this.auth.session!;
    const { options } = this;
    this.connectivity.start();
    const run = new ReplicationRun(
      {
        baseUrl: options.baseUrl,
        familyId: session.family.id,
        schemaVersion: options.schemaVersion ?? SCHEMA_VERSION,
        pullBatchSize: options.pullBatchSize ?? PULL_LIMIT_MAX,
        pushBatchSize: options.pushBatchSize ?? 100,
        retryTime: options.retryTime ?? 5_000,
        backoff: options.backoff ?? {},
        nudgeDelayMs: options.nudgeDelayMs ?? 50,
        heartbeatTimeoutMs: options.heartbeatTimeoutMs,
        WebSocket: this.realtime ? this.webSocket() : undefined,
      },
      {
        db: this.db,
        refused: this.refused,
        rest: this.rest_,
        tokens: this.auth,
        link: this.connectivity,
        lists: this.joins,
        hooks: {
          event: (event) => this.emit(event),
          ended: (event) => {
            this.halt(event);
            if (event.type === 'removed') this.auth.clear('signed_out');
          },
          changed: () => this.updateState(),
          pending: (count) => {
            this.pendingSubject.next(count);
            this.leadership.postStatus();
          },
          progress: (progress) => {
            this.progressSubject.next(progress);
            this.leadership.progress(progress);
          },
        },
      },
    );
    this.run = run;
    run.start();
    this.refresh.start();
    this.updateState();
  }

  private async stopReplicating(): Promise<void> {
    this.refresh.stop();
    this.connectivity.stop();
    const run = this.run;
    run?.detach(); // the live channel closes (disconnected) and nothing reports any more
    this.run = null;
    this.joins.clearOthers();
    this.updateState();
    await run?.cancel();
  }

  /** Stops replicating because the server said so; reported first, then stopped. */
  private halt(event: FamilyClientEvent): void {
    if (!this.running || this.halted) return;
    this.halted = true;
    this.emit(event);
    void this.stop();
  }

  private updateState(): void {
    let state: ClientState;
    if (!this.running) state = 'stopped';
    else if (this.leadership.role === 'follower') state = this.leadership.mirrored?.state ?? 'syncing';
    else state = !this.online ? 'offline' : this.run?.active ? 'syncing' : 'idle';
    const online = this.online;
    if (online !== this.wasOnline) {
      this.wasOnline = online;
      this.emit({ type: online ? 'online' : 'offline' });
    }
    if (state !== this.stateSubject.value) {
      this.stateSubject.next(state);
      this.emit({ type: 'state', state });
    }
    this.leadership.postStatus();
  }

  private emit(event: FamilyClientEvent): void {
    if (!this.events.closed) this.events.next(event);
    this.leadership.forward(event);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(fn);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }
}
