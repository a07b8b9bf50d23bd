/**
 * One run of replication, from the moment this client starts replicating (start(), or a tab
 * that became the leader) until it stops: the nine collections' replications (replication.ts),
 * their pending / progress bookkeeping (status.ts), the live channel as the nudge (live.ts),
 * and the batching of `Changed` nudges into pulls. A new run is made for every start; what it
 * reports goes to the hooks, what it learns about the connection to the `link`.
 */
import type { Subscription } from 'rxjs';
import type { Wakeup } from '../backoff.js';
import type { FamilyDatabase } from '../database.js';
import type { FamilyClientEvent, FamilyClientEventOf } from '../events.js';
import { LiveChannel, type WebSocketConstructor } from '../live.js';
import { Replications, type ReplicationConfig } from '../replication.js';
import type { Rest } from '../rest.js';
import type { Session } from '../session.js';
import { SyncTracker, type PullProgress } from '../status.js';
import type { CollectionName, RefusedRows } from '../protocol/index.js';

/** The replication's own settings (`ReplicationConfig`), plus what the run adds. */
export interface RunSettings extends Pick<
  ReplicationConfig,
  'familyId' | 'schemaVersion' | 'pullBatchSize' | 'pushBatchSize' | 'retryTime' | 'backoff'
> {
  baseUrl: string;
  nudgeDelayMs: number;
  heartbeatTimeoutMs?: number;
  /** The live channel's WebSocket; none: replicate without it (pull at start and on sync()). */
  WebSocket?: WebSocketConstructor;
  /** With the live channel: how long the start pulls wait for it to authenticate (default
   *  LIVE_WAIT_MS). */
  liveWaitMs?: number;
}

/**
 * How long the start pulls wait for the live channel's first attempt, so that an app open pulls
 * each collection once (replication.ts `liveAuthenticated`). It usually answers within a few
 * round trips; one that fails ends the wait at once, and one slower than this only costs the
 * pulls its connect then makes again.
 */
export const LIVE_WAIT_MS = 3_000;

/** What the run tells the client. */
export interface RunHooks {
  /** For the app: `changed`, `frame`, `rejected`, `error`, `checkpoint_expired`. */
  event(event: FamilyClientEvent): void;
  /** The server ended the run: 426 (`schema_outdated`) or live close 4403 (`removed`). */
  ended(event: FamilyClientEventOf<'schema_outdated' | 'removed'>): void;
  /** `active` or the live channel changed. */
  changed(): void;
  pending(count: number): void;
  progress(progress: PullProgress): void;
}

/** Where the run reports the live channel's connection, and whose wakeups its retries wait on
 *  (connectivity.ts). */
export interface RunLink {
  readonly wakeup: Wakeup;
  liveConnected(): void;
  liveDisconnected(): void;
}

/** The session's tokens, for the live channel's `Authenticate`. */
export interface RunTokens {
  readonly session: Session | null;
  refresh(stale?: string): Promise<Session | null>;
}

/** The lists the live channel joins on every connect, and forgets when refused. */
export interface RunLists {
  all(): Iterable<string>;
  forget(listId: string): void;
}

export interface RunCollaborators {
  db: FamilyDatabase;
  refused: RefusedRows;
  rest: Rest;
  tokens: RunTokens;
  link: RunLink;
  lists: RunLists;
  hooks: RunHooks;
}

export class ReplicationRun {
  private readonly replications: Replications;
  private readonly tracker = new SyncTracker();
  private readonly hooks: RunHooks;
  private live: LiveChannel | null = null;
  private subs: Subscription[] = [];
  /** RxDB pulls or pushes now. */
  private activeNow = false;
  /** detach() was called: nothing is handed to the replications any more. */
  private stopped = false;
  /** The `Changed` window open now: its timer, the highest version, the collections it names
   *  (null: any). */
  private nudgeTimer: ReturnType<typeof setTimeout> | undefined;
  private nudgeVersion = -1;
  private nudgeCollections: Set<CollectionName> | null = new Set();

  constructor(
    private readonly settings: RunSettings,
    private readonly parts: RunCollaborators,
  ) {
    const { db, refused, rest, link, hooks } = parts;
    this.hooks = hooks;
    this.replications = new Replications({
      db,
      refused,
      rest,
      familyId: settings.familyId,
      schemaVersion: settings.schemaVersion,
      pullBatchSize: settings.pullBatchSize,
      pushBatchSize: settings.pushBatchSize,
      retryTime: settings.retryTime,
      backoff: settings.backoff,
      liveWaitMs: settings.WebSocket ? (settings.liveWaitMs ?? LIVE_WAIT_MS) : undefined,
      wakeup: link.wakeup,
      tracker: this.tracker,
      hooks: {
        rejected: (collection, rows) => hooks.event({ type: 'rejected', collection, rows }),
        schemaOutdated: () => hooks.ended({ type: 'schema_outdated' }),
        checkpointExpired: (collection) => hooks.event({ type: 'checkpoint_expired', collection }),
        error: (collection, error) => hooks.event({ type: 'error', collection, error }),
      },
    });
  }

  /** Starts reporting (the hooks may be called at once: assign the run first) and opens the
   *  live channel. */
  start(): void {
    const { settings, tracker, replications, hooks } = this;
    const { tokens, link, lists } = this.parts;
    tracker.watch(replications.states);
    this.subs.push(
      replications.active$.subscribe((active) => {
        this.activeNow = active;
        hooks.changed();
      }),
      tracker.pending$.subscribe((n) => hooks.pending(n)),
      tracker.progress$.subscribe((p) => hooks.progress(p)),
    );
    if (!settings.WebSocket) return;
    this.live = new LiveChannel({
      baseUrl: settings.baseUrl,
      WebSocket: settings.WebSocket,
      backoff: settings.backoff,
      currentToken: () => tokens.session?.accessToken ?? null,
      freshToken: async (refusedToken) => (await tokens.refresh(refusedToken))?.accessToken ?? null,
      joinedLists: () => lists.all(),
      heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
      handlers: {
        connected: () => {
          link.liveConnected(); // requests waiting out a backoff go now
          // The start pulls go now; a collection pulled before may have missed a commit.
          if (!this.stopped) this.replications.liveAuthenticated();
          hooks.changed();
        },
        unavailable: () => this.replications.liveUnavailable(),
        disconnected: () => {
          link.liveDisconnected();
          hooks.changed();
        },
        changed: (frame) => {
          this.replications.frameArrived();
          hooks.event({ type: 'changed', version: frame.version });
          // A live patch is applied at once where it can be; the rest is pulled.
          this.scheduleNudge(frame.version, this.stopped ? frame.collections : this.replications.applyChanged(frame));
        },
        frame: (frame) => {
          // A list that is not (or no longer) the family's: stop asking for it.
          if (frame.type === 'Error' && typeof frame.requestId === 'string' && frame.requestId.startsWith('join:')) {
            lists.forget(frame.requestId.slice('join:'.length));
          }
          hooks.event({ type: 'frame', frame });
        },
        removed: () => hooks.ended({ type: 'removed' }),
      },
    });
    this.live.start();
  }

  /** Pulling or pushing now. */
  get active(): boolean {
    return !this.stopped && this.activeNow;
  }

  /** Pull every collection now (and push what is pending). */
  reSyncAll(): void {
    if (!this.stopped) this.replications.reSyncAll();
  }

  /** Resolves when in sync and this device's pushes have been pulled back, with `pending$`
   *  counted again (0 by then); rejects (`stopped`) when the run stops first. */
  async awaitInSync(): Promise<void> {
    // A push answered with a conflict writes the resolved doc locally, and RxDB pushes it in a
    // run of its own: its wait can settle between the two, with that doc still waiting. Wait
    // again while something is counted (a few rounds: a doc that cannot leave does not hang us).
    for (let round = 0; ; round++) {
      await this.replications.awaitInSync();
      await this.tracker.recountNow();
      if (this.tracker.pending === 0 || round === 3) return;
    }
  }

  reconnectLive(): void {
    this.live?.reconnectNow();
  }

  reauthenticate(token: string): void {
    this.live?.reauthenticate(token);
  }

  joinLive(listId: string): void {
    this.live?.join(listId);
  }

  leaveLive(listId: string): void {
    this.live?.leave(listId);
  }

  /** Lets go of everything that reports (nudges, the live channel, subscriptions); `cancel()`
   *  then ends the replications. */
  detach(): void {
    this.stopped = true;
    clearTimeout(this.nudgeTimer);
    this.nudgeTimer = undefined;
    this.live?.stop();
    for (const s of this.subs) s.unsubscribe();
    this.tracker.stop();
  }

  cancel(): Promise<void> {
    return this.replications.cancel();
  }

  /** `Changed` frames within `nudgeDelayMs` make one pull of the union of what they name. */
  private scheduleNudge(version: number, collections: readonly CollectionName[] | undefined): void {
    if (collections?.length === 0) return; // all patched (or nothing of ours): nothing to pull
    this.nudgeVersion = Math.max(this.nudgeVersion, version);
    // The union of what the nudges in the window name; null once one says "any".
    if (!collections) this.nudgeCollections = null;
    else if (this.nudgeCollections) for (const c of collections) this.nudgeCollections.add(c);
    if (this.nudgeTimer || this.stopped) return;
    this.nudgeTimer = setTimeout(() => {
      this.nudgeTimer = undefined;
      const which = this.nudgeCollections;
      this.nudgeCollections = new Set();
      this.replications.nudge(this.nudgeVersion, which ?? undefined);
    }, this.settings.nudgeDelayMs);
  }
}
