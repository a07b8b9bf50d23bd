/**
 * createFamilyClient: the offline-first client of a Family Shopping server. It owns a local
 * RxDB database of the family's data (`client.db`), keeps it replicated while started
 * (`start()`/`stop()`), signs in and keeps the session fresh (`client.auth`), and calls the REST
 * API (`client.rest`). In browsers the tabs of one origin share the database and the session,
 * and one of them replicates (tabs.ts). See docs/sdk.md.
 */
import {
  BehaviorSubject,
  Subject,
  combineLatest,
  distinctUntilChanged,
  filter,
  map,
  type Observable,
  type Subscription,
} from 'rxjs';
import type { RxStorage } from 'rxdb';
import { Auth, notSignedIn } from './auth.js';
import { backoffDelay, Wakeup, type BackoffOptions } from './backoff.js';
import { openFamilyDatabase, readOwner, writeOwner, type FamilyDatabase } from './database.js';
import { FamilyClientError } from './errors.js';
import type { ClientState, FamilyClientEvent, FamilyClientEventOf, FamilyClientEventType } from './events.js';
import { LiveChannel, type WebSocketConstructor } from './live.js';
import { Replications } from './replication.js';
import { Rest, type HttpMethod } from './rest.js';
import { refreshDelay, type Session } from './session.js';
import { SyncTracker, type PullProgress } from './status.js';
import { defaultStorage, hasIndexedDb } from './storage.js';
import { Tabs, tabsAvailable, type TabMessage } from './tabs.js';
import { Transport, type FetchLike } from './transport.js';
import { COLLECTIONS, PULL_LIMIT_MAX, RefusedRows, SCHEMA_VERSION, type CollectionName } from './protocol/index.js';
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

/** Events the leader forwards to the other tabs (they derive state and session events). */
const FORWARDED: ReadonlySet<FamilyClientEventType> = new Set([
  'changed',
  'frame',
  'rejected',
  'error',
  'checkpoint_expired',
  'removed',
  'schema_outdated',
] satisfies FamilyClientEventType[]);

interface OpenRequest {
  op: 'sync' | 'awaitInSync';
  resolve(): void;
  reject(err: unknown): void;
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
  private readonly pendingSubject = new BehaviorSubject<number>(0);
  readonly pending$ = this.pendingSubject.pipe(distinctUntilChanged());
  private readonly progressSubject = new Subject<PullProgress>();
  readonly progress$ = this.progressSubject.asObservable();
  private readonly wakeup = new Wakeup();
  private readonly realtime: boolean;
  private lifecycle: Promise<unknown> = Promise.resolve();
  /** The app started this client (until stop()). */
  private running = false;
  /** start() or stop() was called: sync()/awaitInSync() no longer start the client themselves. */
  private startedOrStopped = false;
  /** pending$ of a database that never replicated, until the replication counts (status.ts). */
  private unreplicatedCount: Subscription | null = null;
  /** `leader`: replicating here; `follower`: started, another tab replicates. */
  private role: 'none' | 'leader' | 'follower' = 'none';
  private replications: Replications | null = null;
  private tracker: SyncTracker | null = null;
  /** The family being replicated while started. */
  private familyId: string | null = null;
  private live: LiveChannel | null = null;
  private readonly joinedLists = new Set<string>();
  /** Lists other tabs joined (leader): list → tabs. */
  private readonly remoteJoins = new Map<string, Set<string>>();
  private subs: Subscription[] = [];
  private releaseLead: (() => void) | null = null;
  private removeNetworkListeners: (() => void) | null = null;
  /** The server ended this run (removed, schema_outdated): report it once. */
  private halted = false;
  private destroyed = false;
  private liveUp = false;
  /** The last request got an answer (and no browser `offline` came since). */
  private reachable = true;
  private probing = false;
  private active = false;
  private wasOnline = false;
  /** Follower: the leader's last status. */
  private leaderId: string | null = null;
  private mirrored: { state: ClientState; online: boolean } | null = null;
  private readonly openRequests = new Map<string, OpenRequest>();
  private requestSeq = 0;
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
    private readonly tabs: Tabs | undefined,
  ) {
    const transport = new Transport(options.baseUrl, fetchImpl, {
      timeoutMs: options.requestTimeoutMs ?? 15_000,
      onReachable: (ok) => this.setReachable(ok),
    });
    this.auth = new Auth(transport, options.session, options.onSession, tabs);
    const rest = new Rest(transport, this.auth);
    const domain = createDomain(
      db,
      () => {
        const session = this.auth.session;
        return session ? { userId: session.user.id, role: session.role } : null;
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
    // Default: the live channel where the runtime has a WebSocket (Node 20 has none unless one
    // is passed); without it the client still replicates, pulling at start and on sync().
    this.realtime = options.realtime ?? this.webSocket() !== undefined;
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
    tabs?.onMessage((msg) => this.onTabMessage(msg));
  }

  get state(): ClientState {
    return this.stateSubject.value;
  }

  get online(): boolean {
    if (!this.running) return false;
    if (this.role === 'follower') return this.mirrored?.online ?? false;
    return this.reachable && (!this.realtime || this.liveUp);
  }

  get leader(): boolean {
    return this.role === 'leader';
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
      const WebSocketImpl = this.webSocket();
      if (this.realtime && !WebSocketImpl) {
        throw new FamilyClientError('no_websocket', 'no WebSocket: pass the `ws` package as the WebSocket option');
      }
      this.running = true;
      this.halted = false;
      this.familyId = session.family.id;
      if (this.tabs) {
        // Replicate once this tab holds the origin's leadership; mirror the leader meanwhile.
        this.role = 'follower';
        this.mirrored = null;
        this.releaseLead = this.tabs.lead(() => void this.becomeLeader());
        this.tabs.post({ k: 'hello', from: this.tabs.id });
        this.updateState();
      } else {
        this.startReplicating();
      }
    });
  }

  stop(): Promise<void> {
    this.startedOrStopped = true;
    return this.serial(async () => {
      if (!this.running) return;
      this.running = false;
      const wasLeader = this.role === 'leader';
      this.role = 'none';
      for (const [id, r] of this.openRequests) {
        this.openRequests.delete(id);
        r.reject(new FamilyClientError('stopped', 'the client stopped before it was in sync'));
      }
      if (wasLeader || !this.tabs) await this.stopReplicating();
      this.releaseLead?.();
      this.releaseLead = null;
      this.mirrored = null;
      this.updateState();
    });
  }

  joinList(listId: string): void {
    const id = listId.toLowerCase();
    if (this.joinedLists.has(id)) return;
    this.joinedLists.add(id);
    this.live?.join(id);
    if (this.role === 'follower' && this.tabs) this.tabs.post({ k: 'join', from: this.tabs.id, listId: id });
  }

  leaveList(listId: string): void {
    const id = listId.toLowerCase();
    if (!this.joinedLists.delete(id)) return;
    if (!this.remoteJoins.has(id)) this.live?.leave(id);
    if (this.role === 'follower' && this.tabs) this.tabs.post({ k: 'leave', from: this.tabs.id, listId: id });
  }

  async sync(): Promise<void> {
    await this.startIfNeverStarted();
    if (this.role === 'follower') return this.askLeader('sync');
    this.wakeAll();
    this.replications?.reSyncAll();
    await this.awaitInSync();
  }

  async awaitInSync(): Promise<void> {
    await this.startIfNeverStarted();
    if (this.role === 'follower') return this.askLeader('awaitInSync');
    await this.replications?.awaitInSync();
    await this.tracker?.recountNow(); // pending$ says 0 by the time this resolves
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
    this.tabs?.close();
    await this.serial(() => this.db.remove());
    this.complete();
  }

  async close(): Promise<void> {
    if (this.destroyed) return;
    await this.stop();
    this.destroyed = true;
    this.tabs?.close();
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
      if (!this.running || this.role !== 'follower' || !this.tabs) return;
      const session = this.auth.session;
      if (!session || session.family.id !== this.familyId) return;
      this.role = 'leader';
      this.mirrored = null;
      this.startReplicating();
      this.tabs.post({ k: 'leader', from: this.tabs.id });
      this.postStatus();
      // What this tab asked while it followed: run here now.
      for (const [id, r] of this.openRequests) {
        this.openRequests.delete(id);
        (r.op === 'sync' ? this.sync() : this.awaitInSync()).then(r.resolve, r.reject);
      }
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
    this.role = 'leader';
    this.reachable = !isBrowserOffline();
    const backoff = this.options.backoff ?? {};
    const tracker = new SyncTracker();
    this.tracker = tracker;
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
      tracker,
      hooks: {
        rejected: (collection, rows) => this.emit({ type: 'rejected', collection, rows }),
        schemaOutdated: () => this.halt({ type: 'schema_outdated' }),
        checkpointExpired: (collection) => this.emit({ type: 'checkpoint_expired', collection }),
        error: (collection, error) => this.emit({ type: 'error', collection, error }),
      },
    });
    this.replications = replications;
    tracker.watch(replications.states);
    this.subs.push(
      replications.active$.subscribe((active) => {
        this.active = active;
        this.updateState();
      }),
      tracker.pending$.subscribe((n) => {
        this.pendingSubject.next(n);
        this.postStatus();
      }),
      tracker.progress$.subscribe((p) => {
        this.progressSubject.next(p);
        if (this.tabs) this.tabs.post({ k: 'progress', from: this.tabs.id, progress: p });
      }),
    );
    const WebSocketImpl = this.webSocket();
    if (this.realtime && WebSocketImpl) {
      this.live = new LiveChannel({
        baseUrl: this.options.baseUrl,
        WebSocket: WebSocketImpl,
        backoff,
        currentToken: () => this.auth.session?.accessToken ?? null,
        freshToken: async (refused) => (await this.auth.refresh(refused))?.accessToken ?? null,
        joinedLists: () => new Set([...this.joinedLists, ...this.remoteJoins.keys()]),
        heartbeatTimeoutMs: this.options.heartbeatTimeoutMs,
        handlers: {
          connected: () => {
            this.liveUp = true;
            this.reachable = true;
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
              const listId = frame.requestId.slice('join:'.length);
              this.joinedLists.delete(listId);
              this.remoteJoins.delete(listId);
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
    this.removeNetworkListeners = listenToNetwork(
      () => {
        // The browser says the network is back: whatever waits goes now.
        this.wakeAll();
        this.replications?.reSyncAll();
      },
      () => this.setReachable(false),
    );
    this.scheduleRefresh();
    this.updateState();
  }

  private async stopReplicating(): Promise<void> {
    clearTimeout(this.refreshTimer);
    clearTimeout(this.nudgeTimer);
    this.nudgeTimer = undefined;
    this.removeNetworkListeners?.();
    this.removeNetworkListeners = null;
    this.live?.stop();
    this.live = null;
    this.liveUp = false;
    for (const s of this.subs) s.unsubscribe();
    this.subs = [];
    this.tracker?.stop();
    this.tracker = null;
    const replications = this.replications;
    this.replications = null;
    this.active = false;
    this.remoteJoins.clear();
    this.updateState();
    await replications?.cancel();
  }

  /** Every retry that waits (backoff, retryTime, a reconnect) starts now. */
  private wakeAll(): void {
    this.wakeup.wake();
    this.live?.reconnectNow();
  }

  private setReachable(ok: boolean): void {
    if (this.reachable === ok) return;
    this.reachable = ok;
    this.updateState();
    if (!ok) void this.probe();
    // A request got through again: the network is back, whatever the browser says.
    else this.wakeAll();
  }

  /** While requests fail, one cheap request now and then (woken like every retry) finds out
   *  when the server answers again, even when nothing else is being sent. */
  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      for (let n = 0; this.running && this.role === 'leader' && !this.reachable; n++) {
        await this.wakeup.wait(backoffDelay(n, this.options.backoff));
        if (!this.running || this.role !== 'leader' || this.reachable) break;
        await this.rest_.send('GET', '/api/me').catch(() => undefined);
      }
    } finally {
      this.probing = false;
    }
  }

  /** Stops replicating because the server said so; reported first, then stopped. */
  private halt(event: FamilyClientEvent): void {
    if (!this.running || this.halted) return;
    this.halted = true;
    this.emit(event);
    void this.stop();
  }

  private scheduleNudge(version: number, collections: readonly CollectionName[] | undefined): void {
    if (collections?.length === 0) return; // all patched (or nothing of ours): nothing to pull
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

  /** Refreshes the access token ahead of its expiry while replicating, so requests and the
   * live channel never run on an expired token (a 401 still refreshes on demand). */
  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    const session = this.auth.session;
    if (!this.running || this.role !== 'leader' || !session) return;
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
          // offline or server busy: try again after a backoff, or as soon as the network is
          // back (requests refresh on 401 meanwhile)
          void this.wakeup.wait(backoffDelay(this.refreshFailures++, this.options.backoff)).then(() => {
            if (this.auth.session === session) this.scheduleRefresh();
          });
        },
      );
    }, delay);
  }

  private updateState(): void {
    let state: ClientState;
    if (!this.running) state = 'stopped';
    else if (this.role === 'follower') state = this.mirrored?.state ?? 'syncing';
    else state = !this.online ? 'offline' : this.active ? 'syncing' : 'idle';
    const online = this.online;
    if (online !== this.wasOnline) {
      this.wasOnline = online;
      this.emit({ type: online ? 'online' : 'offline' });
    }
    if (state !== this.stateSubject.value) {
      this.stateSubject.next(state);
      this.emit({ type: 'state', state });
    }
    this.postStatus();
  }

  private lastPosted = '';
  /** Leader: tell the other tabs its status when it changed. */
  private postStatus(force = false): void {
    if (!this.tabs || this.role !== 'leader') return;
    const status = { state: this.state, online: this.online, pending: this.pendingSubject.value };
    const key = JSON.stringify(status);
    if (!force && key === this.lastPosted) return;
    this.lastPosted = key;
    this.tabs.post({ k: 'status', from: this.tabs.id, ...status });
  }

  private emit(event: FamilyClientEvent): void {
    if (!this.events.closed) this.events.next(event);
    if (this.tabs && this.role === 'leader' && FORWARDED.has(event.type)) {
      this.tabs.post({ k: 'event', from: this.tabs.id, event });
    }
  }

  /** Follower: the leader runs sync()/awaitInSync() and answers. */
  private askLeader(op: 'sync' | 'awaitInSync'): Promise<void> {
    const tabs = this.tabs!;
    const id = `${tabs.id}:${++this.requestSeq}`;
    return new Promise<void>((resolve, reject) => {
      this.openRequests.set(id, { op, resolve, reject });
      tabs.post({ k: 'request', from: tabs.id, id, op });
    });
  }

  private onTabMessage(msg: TabMessage): void {
    const tabs = this.tabs!;
    if (msg.k === 'session') {
      this.auth.adopt(msg.record);
      return;
    }
    if (this.role === 'leader') {
      switch (msg.k) {
        case 'hello':
          this.postStatus(true);
          return;
        case 'request': {
          const run = msg.op === 'sync' ? this.sync() : this.awaitInSync();
          run.then(
            () => tabs.post({ k: 'reply', from: tabs.id, to: msg.from, id: msg.id }),
            (err: { code?: string; message?: string }) =>
              tabs.post({
                k: 'reply',
                from: tabs.id,
                to: msg.from,
                id: msg.id,
                error: { code: err?.code ?? 'stopped', message: err?.message ?? String(err) },
              }),
          );
          return;
        }
        case 'join': {
          const tabsOf = this.remoteJoins.get(msg.listId) ?? new Set<string>();
          tabsOf.add(msg.from);
          this.remoteJoins.set(msg.listId, tabsOf);
          this.live?.join(msg.listId);
          return;
        }
        case 'leave': {
          const tabsOf = this.remoteJoins.get(msg.listId);
          tabsOf?.delete(msg.from);
          if (tabsOf && tabsOf.size === 0) {
            this.remoteJoins.delete(msg.listId);
            if (!this.joinedLists.has(msg.listId)) this.live?.leave(msg.listId);
          }
          return;
        }
        default:
          return;
      }
    }
    if (this.role !== 'follower') return;
    switch (msg.k) {
      case 'leader':
        this.leaderId = msg.from;
        for (const listId of this.joinedLists) tabs.post({ k: 'join', from: tabs.id, listId });
        for (const [id, r] of this.openRequests) tabs.post({ k: 'request', from: tabs.id, id, op: r.op });
        return;
      case 'status':
        this.leaderId = msg.from;
        this.mirrored = { state: msg.state, online: msg.online };
        this.pendingSubject.next(msg.pending);
        this.updateState();
        return;
      case 'progress':
        this.progressSubject.next(msg.progress);
        return;
      case 'event':
        if (!this.events.closed) this.events.next(msg.event);
        if (msg.event.type === 'removed' || msg.event.type === 'schema_outdated') void this.stop();
        return;
      case 'reply': {
        if (msg.to !== tabs.id) return;
        const r = this.openRequests.get(msg.id);
        if (!r) return;
        this.openRequests.delete(msg.id);
        if (msg.error) r.reject(new FamilyClientError('stopped', msg.error.message));
        else r.resolve();
        return;
      }
      default:
        return;
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(fn);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }
}

function isBrowserOffline(): boolean {
  const nav = (globalThis as { navigator?: { onLine?: unknown } }).navigator;
  return nav?.onLine === false;
}

/** Browser `online`/`offline` events where the runtime has them; returns the unsubscribe. */
function listenToNetwork(online: () => void, offline: () => void): () => void {
  const target = globalThis as {
    addEventListener?: (t: string, l: () => void) => void;
    removeEventListener?: (t: string, l: () => void) => void;
  };
  if (typeof target.addEventListener !== 'function' || typeof target.removeEventListener !== 'function')
    return () => undefined;
  target.addEventListener('online', online);
  target.addEventListener('offline', offline);
  return () => {
    target.removeEventListener!('online', online);
    target.removeEventListener!('offline', offline);
  };
}
