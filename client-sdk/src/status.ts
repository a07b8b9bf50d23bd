/**
 * What the replication reports beyond RxDB's own state: `pending$` (local documents with
 * changes the server has not acknowledged), `progress$` (documents pulled by the running pull)
 * and the bookkeeping that lets `awaitInSync()` wait until the server's state after this
 * device's own pushes has been pulled back.
 */
import {
  BehaviorSubject,
  Subject,
  debounceTime,
  distinctUntilChanged,
  EMPTY,
  filter,
  firstValueFrom,
  from,
  merge,
  switchMap,
  tap,
  type Observable,
  type Subscription,
} from 'rxjs';
import {
  getAssumedMasterState,
  getChangedDocumentsSince,
  getHeightOfRevision,
  getLastCheckpointDoc,
  writeDocToDocState,
  type RxCollection,
} from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import type { CollectionName } from './protocol/index.js';

/** A page of the running pull of one collection: `pulled` documents so far in this pull;
 *  `done` on its last page. */
export interface PullProgress {
  collection: CollectionName;
  pulled: number;
  done: boolean;
}

export class SyncTracker {
  readonly progress$ = new Subject<PullProgress>();
  private readonly pendingBy = new Map<CollectionName, number>();
  private readonly recounts = new Map<CollectionName, number>();
  /** Collections where something that may change the count happened since their last count
   *  began; and the count running now per collection. */
  private readonly dirty = new Set<CollectionName>();
  private readonly counting = new Map<CollectionName, Promise<void>>();
  /** Collections whose push handler ran since their upstream was last idle. */
  private readonly pushes = new Set<CollectionName>();
  private readonly pendingSubject = new BehaviorSubject<number>(0);
  readonly pending$: Observable<number> = this.pendingSubject.pipe(distinctUntilChanged());
  private readonly runEnded = new Subject<CollectionName>();
  private seq = 0;
  /** Per collection: seq of the last push the server answered with an applied row. */
  private readonly pushedAt = new Map<CollectionName, number>();
  /** Per collection: seq at which the pull that is running started (none: no pull running). */
  private readonly runStart = new Map<CollectionName, number>();
  private readonly runPulled = new Map<CollectionName, number>();
  /** Per collection: seq at which the last completed pull started. */
  private readonly syncedFrom = new Map<CollectionName, number>();
  private subs: Subscription[] = [];

  get pending(): number {
    return this.pendingSubject.value;
  }

  /** A pull request of `c` is about to be sent. */
  pullStarting(c: CollectionName): void {
    if (!this.runStart.has(c)) {
      this.runStart.set(c, ++this.seq);
      this.runPulled.set(c, 0);
    }
  }

  /** A page of `c` arrived; `last`: the pull is complete. */
  pulled(c: CollectionName, documents: number, last: boolean): void {
    const pulled = (this.runPulled.get(c) ?? 0) + documents;
    this.runPulled.set(c, pulled);
    this.progress$.next({ collection: c, pulled, done: last });
    if (last) {
      this.syncedFrom.set(c, this.runStart.get(c) ?? this.seq);
      this.runStart.delete(c);
      this.runEnded.next(c);
    }
  }

  /** RxDB hands rows of `c` to the push handler. */
  pushing(c: CollectionName): void {
    this.pushes.add(c);
  }

  /** The server applied pushed rows of `c`: its state changed and must be pulled back. */
  pushed(c: CollectionName): void {
    this.pushedAt.set(c, ++this.seq);
  }

  /** Collections whose last completed pull started before their last applied push. */
  behind(): CollectionName[] {
    const out: CollectionName[] = [];
    for (const [c, at] of this.pushedAt) if ((this.syncedFrom.get(c) ?? 0) < at) out.push(c);
    return out;
  }

  isPulling(c: CollectionName): boolean {
    return this.runStart.has(c);
  }

  /** Resolves when a pull of one of `collections` completes. */
  nextRunEnd(collections: CollectionName[]): Promise<unknown> {
    return firstValueFrom(this.runEnded.pipe(filter((c) => collections.includes(c))));
  }

  private states: Record<CollectionName, RxReplicationState<any, any>> | null = null;

  /** Counts again now (e.g. once in sync, so `pending$` says 0 when `awaitInSync()` resolves):
   *  every collection whose count is not known to be 0 or that changed since it was counted. */
  async recountNow(): Promise<void> {
    const states = this.states;
    if (!states) return;
    await Promise.all(
      (Object.entries(states) as [CollectionName, RxReplicationState<any, any>][]).map(([c, s]) =>
        this.dirty.has(c) || this.pendingBy.get(c) !== 0 ? this.recount(c, s) : this.counting.get(c),
      ),
    );
  }

  /**
   * Counts pending documents of every replicated collection as their data changes. While a
   * collection has nothing pending, what the pull writes (a page, a live patch) cannot change
   * that: such writes and the downstream's own events are not counted again (a recount walks
   * the collection's changes since the upstream checkpoint, the main cost of a live patch on a
   * receiving device). A local write, a push, and anything while the count is above 0 are.
   */
  watch(states: Record<CollectionName, RxReplicationState<any, any>>): void {
    this.states = states;
    for (const [c, state] of Object.entries(states) as [CollectionName, RxReplicationState<any, any>][]) {
      const collection = state.collection as RxCollection<any>;
      const nonZero = () => this.pendingBy.get(c) !== 0;
      // RxDB's downstream writes with a context of its own ('replication-downstream-…').
      const written$ = collection.eventBulks$.pipe(
        filter((bulk) => nonZero() || !bulk.context.startsWith('replication-downstream-')),
      );
      // The upstream going idle: a push has been acknowledged and its assumed server state stored.
      // (The upstream also wakes for every pulled write, which it skips: only a push counts.)
      const up$ = from(state.startPromise).pipe(
        switchMap(() => state.internalReplicationState?.events.active.up ?? EMPTY),
        distinctUntilChanged(),
        filter((active) => {
          if (!this.pushes.has(c)) return nonZero();
          if (!active) this.pushes.delete(c);
          return true;
        }),
      );
      this.subs.push(
        merge(written$, up$, state.sent$, merge(state.active$, state.received$).pipe(filter(nonZero)))
          .pipe(
            tap(() => this.dirty.add(c)),
            debounceTime(50),
          )
          .subscribe(() => void this.recount(c, state)),
      );
      void state.startPromise.then(() => this.recount(c, state));
    }
  }

  stop(): void {
    this.states = null;
    for (const s of this.subs) s.unsubscribe();
    this.subs = [];
  }

  /** Documents written since the upstream checkpoint (what RxDB has not had acknowledged),
   *  except those whose current revision was written by the pull itself. */
  private recount(c: CollectionName, state: RxReplicationState<any, any>): Promise<void> {
    this.dirty.delete(c);
    const run = this.count(c, state);
    this.counting.set(c, run);
    void run.then(() => {
      if (this.counting.get(c) === run) this.counting.delete(c);
    });
    return run;
  }

  private async count(c: CollectionName, state: RxReplicationState<any, any>): Promise<void> {
    const internal = state.internalReplicationState;
    if (!internal || state.isStopped()) return;
    // Only the latest count of a collection stands (an earlier one may finish later).
    const mine = (this.recounts.get(c) ?? 0) + 1;
    this.recounts.set(c, mine);
    try {
      let checkpoint = (await getLastCheckpointDoc(internal, 'up')) as unknown;
      const identifier = internal.input.identifier;
      let count = 0;
      for (;;) {
        const page = await getChangedDocumentsSince(internal.input.forkInstance, 1000, checkpoint as any);
        const docs = page.documents as Array<{ id: string; _rev: string; _meta: Record<string, unknown> }>;
        // The state the server last acknowledged (RxDB's assumed master state): a doc equal to it
        // has nothing waiting, whoever wrote it (the pull writes server docs without revisions,
        // so RxDB's revision marker alone does not tell them apart).
        const assumed = await getAssumedMasterState(
          internal,
          docs.map((d) => d.id),
        );
        for (const doc of docs) {
          const pulledRevision = doc._meta[identifier];
          if (typeof pulledRevision === 'number' && getHeightOfRevision(doc._rev) === pulledRevision) continue;
          const master = assumed[doc.id];
          const state = writeDocToDocState(doc as any, false, false);
          if (master && internal.input.conflictHandler.isEqual(master.docData, state, 'pending-count')) continue;
          count++;
        }
        if (page.documents.length < 1000) break;
        checkpoint = page.checkpoint;
      }
      if (this.recounts.get(c) !== mine) return;
      this.pendingBy.set(c, count);
      let total = 0;
      for (const n of this.pendingBy.values()) total += n;
      this.pendingSubject.next(total);
    } catch {
      // closed meanwhile: the next change counts again
    }
  }
}
