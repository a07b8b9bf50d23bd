/**
 * Live replication of the nine collections with RxDB's `replicateRxCollection`, speaking the
 * server's pull/push endpoints (api-contract §6, docs/sync.md "What a client must do"):
 *
 * - pull: `GET /api/sync/{c}/pull?schema=&limit=&checkpoint=` (URL-encoded JSON checkpoint);
 *   push: `POST /api/sync/{c}/push?schema=`, at most PUSH_MAX_ROWS rows.
 * - No polling: RxDB pulls at start and on `reSync()`; the live channel's `Changed` nudge
 *   calls it, and so does a (re)connect for each collection whose last pull request went out
 *   before the socket authenticated (see `liveAuthenticated`). With the live channel, the start
 *   pulls wait for its first attempt (at most `liveWaitMs`), so an app open pulls each
 *   collection once.
 * - Live patches (api-contract §7): a `Changed` frame carrying the docs of a commit is applied
 *   through RxDB's `pull.stream$`, without a pull, where this replica can vouch that its
 *   checkpoint stands exactly at the frame's `previous` (see `applyChanged`).
 * - Offline, 5xx, 429: the same request is retried inside the handler with capped, jittered
 *   backoff, and at once when the live channel is back (Wakeup).
 * - 401: the Rest layer refreshes the token once and retries; a refused refresh ends the
 *   session (the client then stops replicating).
 * - 426 `schema_outdated`: reported, and the client stops replicating.
 * - 410 `checkpoint_expired`: that collection is pulled again from scratch (see
 *   `resyncFromScratch`).
 * - push `rejected` rows: `parent_missing` rows are re-sent alone after a backoff until their
 *   parent's own push has landed (or reverted at once when the parent is not in the local
 *   database either: it will never land); other rows are reported, and the server's state returned
 *   with them in `conflicts` replaces the local copy (the conflict handler takes it as is for
 *   those rows instead of merging, which would keep the refused change and push it again).
 */
import { Subject, combineLatest, map, type Observable } from 'rxjs';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import type { RxCollection, RxReplicationPullStreamItem } from 'rxdb';
import { FamilyApiError, FamilyClientError, problemFrom } from './errors.js';
import { backoffDelay, Wakeup, type BackoffOptions } from './backoff.js';
import type { FamilyDatabase } from './database.js';
import type { Rest } from './rest.js';
import { readJson } from './transport.js';
import type { SyncTracker } from './status.js';
import {
  CATALOG_COLLECTIONS,
  COLLECTIONS,
  DOC_REFERENCES,
  checkpointAtVersion,
  isCheckpointAtVersion,
  type ChangedFrame,
  PULL_LIMIT_MAX,
  PUSH_MAX_ROWS,
  READ_ONLY_COLLECTIONS,
  encodeCheckpoint,
  pullUrl,
  syncPath,
  type Checkpoint,
  type CollectionName,
  type Doc,
  type RejectedRow,
  type RefusedRows,
} from './protocol/index.js';

export interface ReplicationHooks {
  /** The server refused pushed rows (other than parent_missing); they are being reverted. */
  rejected(collection: CollectionName, rows: RejectedRow[]): void;
  /** 426: this client's schema is outdated. */
  schemaOutdated(): void;
  /** 410: a collection is being pulled again from scratch. */
  checkpointExpired(collection: CollectionName): void;
  /** An error the replication retries after `retryTime` (or at once on a wakeup). */
  error(collection: CollectionName, error: unknown): void;
}

export interface ReplicationConfig {
  db: FamilyDatabase;
  /** Shared with the database's conflict handlers: refused rows revert to the server's state. */
  refused: RefusedRows;
  rest: Rest;
  familyId: string;
  schemaVersion: number;
  pullBatchSize: number;
  pushBatchSize: number;
  retryTime: number;
  backoff: BackoffOptions;
  wakeup: Wakeup;
  hooks: ReplicationHooks;
  /** pending / progress / pulled-back bookkeeping (status.ts). */
  tracker: SyncTracker;
  /** The live channel is in use: the start pulls wait for its first attempt to authenticate or
   *  fail (`liveAuthenticated` / `liveUnavailable`), at most this long (ms). Unset: no wait. */
  liveWaitMs?: number;
}

interface PullBody {
  documents: Doc<CollectionName>[];
  checkpoint: Checkpoint | null;
}
interface PushBody {
  conflicts: Doc<CollectionName>[];
  rejected: RejectedRow[];
}
interface PushRow {
  assumedMasterState: unknown;
  newDocumentState: Doc<CollectionName>;
}

/** See `Replications.openWindow`. */
interface PushWindow {
  /** Push handlers of the window running now. */
  handlers: number;
  /** The server applied rows: its state changed and must be pulled back. */
  applied: boolean;
  /** A pull ran during the window. */
  overlapped: boolean;
  /** Where the last pull before the window started: every pull since may have passed docs over. */
  from: Checkpoint | null;
}

/**
 * Lets a request just started leave before RxDB gets the page. Node's `fetch` (undici) writes
 * the request from JavaScript on this thread, and RxDB stores a page (about 25 ms for 1,000
 * docs) in one run of promise callbacks: without a turn of the event loop in between, the next
 * page's request would reach the server only after that, and the server would wait for the
 * device instead of reading the next page meanwhile. (A browser sends `fetch` requests off the
 * page's thread, and has no `setImmediate`.)
 */
function requestSent(): Promise<void> | undefined {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  return immediate ? new Promise((resolve) => void immediate(resolve)) : undefined;
}

/**
 * The order the replications start in, so the start pulls' requests go out in it: the items,
 * the biggest collection, last, after what the lists page and a list need besides them (a first
 * sync of items then brings the active ones first and the history after: docs/sync.md "A first
 * sync of items in phases").
 */
const START_ORDER: readonly CollectionName[] = [...COLLECTIONS.filter((c) => c !== 'items'), 'items'];

/** Thrown into RxDB once the replication is stopping or must stop (426). */
class ReplicationHalted extends Error {
  override readonly name = 'ReplicationHalted';
}

export class Replications {
  readonly states = {} as Record<CollectionName, RxReplicationState<any, Checkpoint>>;
  /** True while any collection pulls or pushes. */
  readonly active$: Observable<boolean>;
  private stopped = false;
  /** Checkpoints a 410 expired, and what replaces each until RxDB stores a new one. */
  private readonly replaced = new Map<CollectionName, { expired: string; by: Checkpoint | null }>();
  /** Highest family version each collection has pulled up to (its checkpoint's `version`). */
  private readonly pulledVersion = new Map<CollectionName, number>();
  /**
   * Live patches: per collection, the checkpoint up to which the local database is known to
   * hold the server's docs once RxDB has processed what it was handed (a pull's answer, a
   * patch), or, for a collection a commit did not write, up to which it is unchanged. Absent
   * while unknown: before the first pull and while a pull runs (its answer sets it).
   */
  private readonly head = new Map<CollectionName, Checkpoint | null>();
  /**
   * Pushes and the pulls that overlap them (see `openWindow`): per collection, the push window
   * open now, the checkpoint each running pull started from, the one the last pull started
   * from, and a checkpoint the next pull must start from instead of RxDB's.
   */
  private readonly windows = new Map<CollectionName, PushWindow>();
  private readonly pullingFrom = new Map<CollectionName, Checkpoint | null>();
  private readonly lastPullFrom = new Map<CollectionName, Checkpoint | null>();
  private readonly rewind = new Map<CollectionName, Checkpoint | null>();
  /** Per collection: the next page's request, sent ahead (see `prefetch`), and the live epoch
   *  it was sent in. */
  private readonly prefetched = new Map<
    CollectionName,
    { key: string; batchSize: number; response: Promise<Response>; epoch: number; frames: number }
  >();
  /** How many times the live channel has authenticated (see `liveAuthenticated`). */
  private liveEpoch = 0;
  /** Per collection: the live epoch its last pull request went out in. */
  private readonly sentIn = new Map<CollectionName, number>();
  /** `Changed` frames handled so far, and per collection how many there were when its last pull
   *  request went out (see `nudge`). */
  private frames = 0;
  private readonly sentAfterFrames = new Map<CollectionName, number>();
  /** Open until the live channel's first attempt authenticates or fails (or `liveWaitMs`). */
  private liveWait: { promise: Promise<void>; open: () => void } | null = null;
  /** Each collection's `pull.stream$`: live patches go to RxDB through it. */
  private readonly streams = {} as Record<CollectionName, Subject<RxReplicationPullStreamItem<any, Checkpoint>>>;

  constructor(private readonly config: ReplicationConfig) {
    if (config.liveWaitMs !== undefined) {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      const timer = setTimeout(() => this.liveUnavailable(), config.liveWaitMs);
      (timer as { unref?: () => void }).unref?.();
      this.liveWait = {
        promise,
        open: () => {
          clearTimeout(timer);
          open();
        },
      };
    }
    for (const c of START_ORDER) {
      this.streams[c] = new Subject();
      this.states[c] = this.replicate(c);
    }
    this.active$ = combineLatest(COLLECTIONS.map((c) => this.states[c].active$)).pipe(map((a) => a.some(Boolean)));
  }

  /** Pull every collection now (and push what is pending). */
  reSyncAll(): void {
    for (const c of COLLECTIONS) this.states[c].reSync();
  }

  /**
   * The live channel authenticated: from now on the server sends this socket a `Changed` for
   * every commit. A pull whose request went out after that (the server sends `Authenticated`
   * once the socket is in its family's group, so such a pull reads a snapshot taken after)
   * misses nothing the socket will not announce. The start pulls wait for this moment
   * (`liveWaitMs`), so on an app open every collection is pulled once; a collection whose
   * first pull has not gone out yet needs nothing either.
   *
   * A collection whose last request went out before (a reconnect, a first attempt that failed
   * or was slow) may have missed a commit of that gap, for which no frame will ever come: it is
   * pulled again. (Which collections such a commit wrote, no version tells: a pull that finds
   * nothing new answers with the checkpoint it was given, not the family's version.)
   */
  liveAuthenticated(): void {
    this.liveEpoch++;
    this.liveUnavailable();
    if (this.stopped) return;
    for (const c of COLLECTIONS) {
      const sent = this.sentIn.get(c);
      if (sent !== undefined && sent < this.liveEpoch) this.states[c].reSync();
    }
  }

  /** The live channel's first attempt failed (or took too long): the start pulls go now, and the
   *  connect that comes later pulls them again (`liveAuthenticated`). */
  liveUnavailable(): void {
    const wait = this.liveWait;
    this.liveWait = null;
    wait?.open();
  }

  /** `Changed { version, collections? }`: pull the collections the change wrote (all when the
   *  server did not say) whose last pull did not include `version` (every pull's checkpoint
   *  reaches the family version of its snapshot), unless a pull of it is under way whose request
   *  went out after every frame so far arrived (the server published them after their commits,
   *  so its snapshot holds them: the start pull while the first frames come in). */
  nudge(version: number, collections?: Iterable<CollectionName>): void {
    const wanted = collections ? new Set(collections) : null;
    for (const c of COLLECTIONS) {
      if (wanted && !wanted.has(c)) continue;
      if ((this.pulledVersion.get(c) ?? -1) >= version) continue;
      if (this.pullingFrom.has(c) && this.sentAfterFrames.get(c) === this.frames) continue;
      this.states[c].reSync();
    }
  }

  /** A `Changed` frame arrived (before `applyChanged` or a nudge handles it). */
  frameArrived(): void {
    this.frames++;
  }

  /**
   * `Changed { version, previous, collections, docs? }` (api-contract §7). For each collection:
   * - written by the commit, with docs in the frame, and this replica's checkpoint exactly at
   *   `previous` and nothing else under way for it: the docs and their checkpoint go to RxDB
   *   through `pull.stream$`, no pull;
   * - written otherwise (no docs: over the bound, a catalog; or a checkpoint elsewhere, or a
   *   pull or push running): returned, to be pulled as before;
   * - not written by the commit: unchanged between `previous` and `version`, so a checkpoint
   *   known to stand at `previous` is known to stand at `version` too, and the next patch of that
   *   collection can be applied. (RxDB stores no checkpoint without a document, so this move
   *   lives in memory only; the stored checkpoint stays behind, which is always safe.)
   * A frame without `previous` (an older server) or without `collections` takes no doc and moves
   * nothing. Returns the collections to pull, undefined for all.
   */
  applyChanged(
    frame: Pick<ChangedFrame, 'version' | 'previous' | 'collections' | 'docs'>,
  ): CollectionName[] | undefined {
    const { version, previous, collections, docs } = frame;
    if (!collections) return undefined;
    if (previous === undefined || this.stopped) return [...collections];
    const written = new Set<CollectionName>(collections);
    const toPull: CollectionName[] = [];
    for (const c of COLLECTIONS) {
      if ((CATALOG_COLLECTIONS as readonly CollectionName[]).includes(c)) {
        // Never patched: their checkpoint's catalog cursor only moves by pulling.
        if (written.has(c)) toPull.push(c);
        continue;
      }
      const atPrevious = this.head.has(c) && isCheckpointAtVersion(this.head.get(c), previous);
      if (!written.has(c)) {
        if (atPrevious) this.head.set(c, checkpointAtVersion(version));
        continue;
      }
      const patch = docs?.[c];
      if (patch && atPrevious && this.idle(c)) {
        this.head.set(c, patch.checkpoint);
        this.notePulled(c, patch.checkpoint);
        this.streams[c].next({ documents: patch.documents as any[], checkpoint: patch.checkpoint });
      } else {
        toPull.push(c);
      }
    }
    return toPull;
  }

  /**
   * Nothing runs or waits in this collection's replication: no pull, no push, no task queued.
   * A patch is handed to RxDB only then. RxDB runs a stream event after what was queued before
   * it, and a pull (RESYNC) that began before the event arrived would drop it, but one queued
   * earlier and begun later would not: its answer (past `version`) would then be overwritten by
   * the patch's older docs. A RESYNC requested in an earlier task has made `down` active by now;
   * one waiting for a push to end keeps `up` active.
   */
  private idle(c: CollectionName): boolean {
    const internal = this.states[c].internalReplicationState;
    if (!internal || this.states[c].isStopped()) return false;
    return !internal.events.active.up.getValue() && !internal.events.active.down.getValue();
  }

  /** Resolves once every collection is in sync and the server's state after this device's own
   *  pushes has been pulled back (a push changes server-stamped fields and the version);
   *  rejects (`stopped`) when the replication is cancelled first (RxDB's own wait would never
   *  settle then). */
  async awaitInSync(): Promise<void> {
    const { tracker } = this.config;
    for (;;) {
      await Promise.race([Promise.all(COLLECTIONS.map((c) => this.states[c].awaitInSync())), this.cancelled]);
      const behind = tracker.behind();
      if (behind.length === 0) return;
      const ended = tracker.nextRunEnd(behind);
      for (const c of behind) if (!tracker.isPulling(c)) this.states[c].reSync();
      await Promise.race([ended, this.cancelled]);
    }
  }

  private signalCancelled!: () => void;
  private readonly cancelled = new Promise<never>((_, reject) => {
    this.signalCancelled = () => reject(new FamilyClientError('stopped', 'the client stopped before it was in sync'));
  });

  async cancel(): Promise<void> {
    this.cancelled.catch(() => undefined); // nobody waiting is fine
    this.signalCancelled();
    this.stopped = true;
    this.liveUnavailable();
    this.config.wakeup.wake();
    for (const c of COLLECTIONS) this.dropPrefetched(c);
    await Promise.all(COLLECTIONS.map((c) => this.states[c].cancel()));
    for (const c of COLLECTIONS) this.streams[c].complete();
  }

  private replicate(c: CollectionName): RxReplicationState<any, Checkpoint> {
    const { config } = this;
    const state = replicateRxCollection<any, Checkpoint>({
      collection: config.db[c] as RxCollection<any>,
      // Stable across restarts (RxDB keeps the checkpoint and the assumed server states under
      // it); per family, so another family's replica never resumes from this one's.
      replicationIdentifier: `family-shopping/${config.familyId}/${c}`,
      live: true,
      retryTime: config.retryTime,
      waitForLeadership: false,
      // The client decides which tab replicates (tabs.ts); a hidden leader keeps replicating.
      toggleOnDocumentVisible: false,
      autoStart: true,
      pull: {
        batchSize: Math.min(config.pullBatchSize, PULL_LIMIT_MAX),
        // Live patches (applyChanged). A stream event's checkpoint replaces RxDB's as is.
        stream$: this.streams[c].asObservable(),
        handler: async (checkpoint, batchSize) => {
          if (this.liveWait) await this.liveWait.promise;
          const from = this.checkpointFor(c, checkpoint ?? null);
          return this.tracked(c, from, () =>
            this.guarded(c, () =>
              this.retrying(async () => {
                config.tracker.pullStarting(c);
                const ahead = this.takePrefetched(c, from, batchSize);
                this.sentIn.set(c, ahead?.epoch ?? this.liveEpoch);
                this.sentAfterFrames.set(c, ahead?.frames ?? this.frames);
                const res = await (ahead?.response ?? config.rest.send('GET', this.pullPath(c, from, batchSize)));
                if (res.status === 410) {
                  await res.body?.cancel().catch(() => undefined);
                  config.hooks.checkpointExpired(c);
                  const result = await this.resyncFromScratch(c);
                  // RxDB keeps its stored checkpoint when a pull brings no document (a collection
                  // empty on both sides): pull from the new one instead of the expired one until
                  // RxDB stores another, or every pull would answer 410 again.
                  this.replaced.set(c, { expired: JSON.stringify(checkpoint ?? null), by: result.checkpoint ?? null });
                  config.tracker.pulled(c, result.documents.length, result.documents.length < batchSize);
                  return result;
                }
                const body = await this.answer<PullBody>(res);
                if (body.documents.length === batchSize && body.checkpoint) {
                  this.prefetch(c, body.checkpoint, batchSize);
                  await requestSent();
                }
                this.notePulled(c, body.checkpoint);
                config.tracker.pulled(c, body.documents.length, body.documents.length < batchSize);
                return { documents: body.documents, checkpoint: body.checkpoint ?? checkpoint ?? undefined };
              }),
            ),
          );
        },
      },
      push: {
        batchSize: Math.min(config.pushBatchSize, PUSH_MAX_ROWS),
        handler: async (rows) => {
          config.tracker.pushing(c);
          const window = this.openWindow(c);
          window.handlers++;
          try {
            return await this.guarded(c, () =>
              this.pushRows(
                c,
                window,
                rows.map((r) => ({
                  assumedMasterState: r.assumedMasterState ?? null,
                  newDocumentState: r.newDocumentState,
                })),
              ),
            );
          } finally {
            window.handlers--;
            this.closeWhenIdle(c, window);
          }
        },
      },
    });
    state.error$.subscribe((err) => {
      if (!this.stopped) config.hooks.error(c, err);
    });
    return state;
  }

  /**
   * A push window: from a push request until RxDB's upstream is idle again, i.e. it has stored
   * what the server acknowledged as its assumed server state and pushed any conflict's merge.
   * RxDB hands a pulled doc to the local database only when the local copy equals the assumed
   * server state; a pull whose answer RxDB handles inside the window may compare the pushed copy
   * with the state from before the push, pass the server's doc over as a local change not yet
   * pushed, and still move the checkpoint past it. (RxDB holds back the pulls it starts while a
   * push runs, but not one already running, nor one started between two rounds of a push, as
   * after a conflict.) The server's stamps of that push would then never arrive. So a pull that
   * ran during a window that applied rows is done again from where it started once the window
   * closes, and that window's push only counts as pulled back by a pull started after it.
   */
  private openWindow(c: CollectionName): PushWindow {
    // A page read before this push may miss what it changes, while the tracker would count the
    // pull that takes it as one started after the push: such a page is not used.
    this.dropPrefetched(c);
    let window = this.windows.get(c);
    if (!window) {
      window = {
        handlers: 0,
        applied: false,
        overlapped: this.pullingFrom.has(c),
        from: this.lastPullFrom.get(c) ?? null,
      };
      this.windows.set(c, window);
    }
    return window;
  }

  private closeWhenIdle(c: CollectionName, window: PushWindow): void {
    const up = this.states[c].internalReplicationState?.events.active.up;
    const close = () => {
      if (this.windows.get(c) !== window || window.handlers > 0) return;
      this.windows.delete(c);
      if (!window.applied || this.stopped) return;
      this.config.tracker.pushed(c);
      if (window.overlapped) {
        this.rewind.set(c, this.rewind.has(c) ? this.rewind.get(c)! : window.from);
        this.states[c].reSync();
      }
    };
    if (!up) return close();
    // Synchronously on RxDB's own "idle": before anything awaiting it (awaitInSync) goes on.
    const sub = up.subscribe((active) => {
      if (active) return;
      queueMicrotask(() => sub.unsubscribe());
      close();
    });
  }

  private async pushRows(c: CollectionName, window: PushWindow, rows: PushRow[]): Promise<any[]> {
    // Read-only collections (section memory) are never sent: the server derives them. A local
    // write there (the domain layer remembering a placement offline) stands until the server's
    // own doc replaces it on a pull.
    if ((READ_ONLY_COLLECTIONS as readonly string[]).includes(c)) return [];
    const conflicts: Doc<CollectionName>[] = [];
    let pending = rows;
    for (let attempt = 0; ; attempt++) {
      const body = await this.retrying(async () =>
        this.answer<PushBody>(await this.config.rest.send('POST', this.pushPath(c), pending)),
      );
      conflicts.push(...body.conflicts);
      if (body.rejected.length < pending.length) window.applied = true;
      const refused = body.rejected.filter((r) => r.code !== 'parent_missing');
      if (refused.length > 0) {
        // Their server state comes back in `conflicts`: the conflict handler must take it as is.
        const returned = new Set(body.conflicts.map((d) => d.id));
        this.config.refused.note(
          c,
          refused.map((r) => r.id).filter((id) => returned.has(id)),
        );
        this.config.hooks.rejected(c, refused);
      }
      // Rows naming a record whose own push has not landed yet: neither applied nor reverted.
      // Re-send just those after a while (the others are done; re-sending them is a no-op)...
      const waiting = new Set(body.rejected.filter((r) => r.code === 'parent_missing').map((r) => r.id));
      if (waiting.size === 0) return conflicts;
      pending = pending.filter((r) => waiting.has(r.newDocumentState.id));
      // ...unless what they name is not in the local database either (its insert was refused
      // and reverted, or it was deleted): then it will never land, and waiting would hold this
      // collection's replication (RxDB does not pull while a push runs). Such a row is an
      // orphan: it is reverted (a local tombstone), as a refused row is, and reported (a deletion
      // is not: below).
      const orphans = await this.orphans(
        c,
        pending.map((r) => r.newDocumentState),
      );
      if (orphans.length > 0) {
        const ids = new Set(orphans.map((d) => d.id));
        conflicts.push(...orphans.map((d) => ({ ...d, _deleted: true }) as Doc<CollectionName>));
        this.config.refused.note(c, ids);
        // A deletion loses nothing (its row was never on the server): not reported.
        const lost = orphans.filter((d) => !d._deleted);
        if (lost.length > 0) {
          this.config.hooks.rejected(
            c,
            lost.map((d) => ({
              id: d.id,
              code: 'parent_missing',
              message: 'It names a record that exists neither here nor on the server',
            })),
          );
        }
        pending = pending.filter((r) => !ids.has(r.newDocumentState.id));
        if (pending.length === 0) return conflicts;
      }
      await this.config.wakeup.wait(backoffDelay(attempt, { baseMs: 100, maxMs: this.config.backoff.maxMs }));
      if (this.stopped) throw new ReplicationHalted('replication stopped');
    }
  }

  /** Runs a pull from `from`: the collection's head is unknown meanwhile, and afterwards it is
   *  what RxDB will hold: the answer's checkpoint when it brought documents, else where it
   *  started (RxDB keeps its checkpoint when a pull brings none, and nothing lies past `from`). */
  private async tracked<T extends { documents: unknown[]; checkpoint?: Checkpoint | undefined }>(
    c: CollectionName,
    from: Checkpoint | null,
    pull: () => Promise<T>,
  ): Promise<T> {
    this.head.delete(c);
    this.pullingFrom.set(c, from);
    this.lastPullFrom.set(c, from);
    const window = this.windows.get(c);
    if (window) window.overlapped = true;
    try {
      const result = await pull();
      this.head.set(c, result.documents.length > 0 ? (result.checkpoint ?? null) : from);
      return result;
    } finally {
      this.pullingFrom.delete(c);
    }
  }

  /**
   * A full page means RxDB asks for the next one from its checkpoint as soon as it has stored
   * this one: that request goes out now, so the server reads the next page while RxDB stores
   * this one (an initial sync of many pages takes about the longer of the two instead of their
   * sum). Used only when RxDB's next pull of the collection starts from exactly that checkpoint
   * with the same page size, and no push of the collection began since it was sent (`openWindow`
   * drops it; none is sent while a push runs); otherwise dropped. An answer read earlier is as
   * good as any pull's: a `Changed` for a later commit finds `pulledVersion` behind and pulls
   * again.
   */
  private prefetch(c: CollectionName, checkpoint: Checkpoint, batchSize: number): void {
    this.dropPrefetched(c);
    if (this.stopped || this.windows.has(c)) return;
    const response = this.config.rest.send('GET', this.pullPath(c, checkpoint, batchSize));
    response.catch(() => undefined); // taken up by the pull that uses it, or dropped
    this.prefetched.set(c, {
      key: encodeCheckpoint(checkpoint),
      batchSize,
      response,
      epoch: this.liveEpoch,
      frames: this.frames,
    });
  }

  private takePrefetched(
    c: CollectionName,
    from: Checkpoint | null,
    batchSize: number,
  ): { response: Promise<Response>; epoch: number; frames: number } | undefined {
    const ahead = this.prefetched.get(c);
    if (!ahead) return undefined;
    if (from && ahead.batchSize === batchSize && ahead.key === encodeCheckpoint(from)) {
      this.prefetched.delete(c);
      return ahead;
    }
    this.dropPrefetched(c);
    return undefined;
  }

  private dropPrefetched(c: CollectionName): void {
    const ahead = this.prefetched.get(c);
    if (!ahead) return;
    this.prefetched.delete(c);
    void ahead.response.then((res) => res.body?.cancel()).catch(() => undefined);
  }

  /** The checkpoint to pull from: RxDB's, unless a push window asked to pull again from an
   *  earlier one or it is one a 410 replaced. */
  private checkpointFor(c: CollectionName, checkpoint: Checkpoint | null): Checkpoint | null {
    if (this.rewind.has(c)) {
      const from = this.rewind.get(c)!;
      this.rewind.delete(c);
      return from;
    }
    const replaced = this.replaced.get(c);
    if (!replaced) return checkpoint;
    if (JSON.stringify(checkpoint) === replaced.expired) return replaced.by;
    this.replaced.delete(c); // RxDB has stored a newer one
    return checkpoint;
  }

  /** The docs (of rows the server reported `parent_missing`) that name a record absent from the
   *  local database too: a parent that will never be pushed. */
  private async orphans(c: CollectionName, docs: Doc<CollectionName>[]): Promise<Doc<CollectionName>[]> {
    const refs = DOC_REFERENCES[c] ?? [];
    const out: Doc<CollectionName>[] = [];
    for (const doc of docs) {
      for (const [field, parent] of refs) {
        const id = (doc as Record<string, unknown>)[field];
        if (typeof id !== 'string') continue;
        const found = (await (this.config.db[parent] as RxCollection<any>).findByIds([id]).exec()).get(id);
        if (!found) {
          out.push(doc);
          break;
        }
      }
    }
    return out;
  }

  /**
   * 410: the checkpoint is older than the server's kept tombstones, so some deletions can no
   * longer be learned. Pull the whole collection from scratch and answer RxDB with those docs
   * plus a tombstone for every local doc the server no longer has. RxDB applies a pulled doc
   * (or tombstone) only where the local copy has no unpushed change, so:
   * - unchanged local docs the server deleted are dropped;
   * - docs with unpushed local changes (and local inserts never pushed) are kept and pushed;
   * - everything else takes the server's state.
   * The new checkpoint is the full pull's, so the next pulls continue from there.
   */
  private async resyncFromScratch(c: CollectionName) {
    const docs: Doc<CollectionName>[] = [];
    let checkpoint: Checkpoint | null = null;
    for (;;) {
      this.sentIn.set(c, this.liveEpoch);
      this.sentAfterFrames.set(c, this.frames);
      const res = await this.config.rest.send('GET', this.pullPath(c, checkpoint, PULL_LIMIT_MAX));
      const body = await this.answer<PullBody>(res);
      docs.push(...body.documents);
      checkpoint = body.checkpoint ?? checkpoint;
      if (body.documents.length < PULL_LIMIT_MAX) break;
    }
    // From scratch: what the collection holds now is what this pull saw (after a restore the
    // server's versions may be lower than the ones pulled before).
    this.pulledVersion.set(c, checkpoint?.version ?? -1);
    const onServer = new Set(docs.map((d) => d.id));
    const local = await (this.config.db[c] as RxCollection<any>).find().exec();
    const gone = local
      .filter((d) => !onServer.has(d.primary))
      .map((d) => ({ ...(d.toMutableJSON() as object), _deleted: true }));
    return { documents: [...docs, ...gone] as any[], checkpoint: checkpoint ?? undefined };
  }

  /** Runs one request, retrying while the server cannot be reached or cannot answer now. */
  private async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 0; ; n++) {
      if (this.stopped) throw new ReplicationHalted('replication stopped');
      try {
        return await attempt();
      } catch (err) {
        const retry =
          err instanceof FamilyApiError && (err.transient || err.code === 'schema_unsupported') && !this.stopped;
        if (!retry) throw err;
        // Never sooner than the server asked (Retry-After of a 429 or 503).
        await this.config.wakeup.wait(Math.max(backoffDelay(n, this.config.backoff), err.retryAfterMs ?? 0));
      }
    }
  }

  /** Runs a handler, retrying any other error after `retryTime` here rather than in RxDB, whose
   *  wait nothing can cut short: this one ends on a wakeup (network back, `sync()`). */
  private async guarded<T>(c: CollectionName, handler: () => Promise<T>): Promise<T> {
    for (;;) {
      if (this.stopped) throw new ReplicationHalted('replication stopped');
      try {
        return await handler();
      } catch (err) {
        if (err instanceof ReplicationHalted || this.stopped) throw err;
        this.config.hooks.error(c, err);
        await this.config.wakeup.wait(this.config.retryTime);
      }
    }
  }

  private async answer<T>(res: Response): Promise<T> {
    if (res.ok) return readJson<T>(res);
    const problem = await problemFrom(res);
    if (res.status === 426) {
      this.config.hooks.schemaOutdated();
      throw new ReplicationHalted(problem.message);
    }
    throw problem;
  }

  private notePulled(c: CollectionName, checkpoint: Checkpoint | null): void {
    if (checkpoint) this.pulledVersion.set(c, Math.max(this.pulledVersion.get(c) ?? -1, checkpoint.version));
  }

  private pullPath(c: CollectionName, checkpoint: Checkpoint | null, limit: number): string {
    return pullUrl(c, checkpoint, limit, this.config.schemaVersion);
  }

  private pushPath(c: CollectionName): string {
    return `${syncPath(c, 'push')}?schema=${this.config.schemaVersion}`;
  }
}
