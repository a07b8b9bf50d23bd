/**
 * Which tab replicates, and what the tabs of an origin tell each other (tabs.ts carries the
 * messages and holds the Web Lock). A started client is the `leader` (it replicates) or, in a
 * browser while another tab holds the lock, a `follower` that mirrors the leader: its state,
 * pending count, pull progress and events arrive as messages, and its `sync()`,
 * `awaitInSync()` and `joinList()` are run by the leader. Outside browsers (no Tabs) a started
 * client always leads.
 */
import { FamilyClientError } from '../errors.js';
import type { ClientState, FamilyClientEvent, FamilyClientEventType } from '../events.js';
import type { SharedSessionRecord } from '../session.js';
import type { PullProgress } from '../status.js';
import type { TabMessage, Tabs } from '../tabs.js';
import type { ListJoins } from './list-joins.js';

export type TabRole = 'none' | 'leader' | 'follower';
export type TabOp = 'sync' | 'awaitInSync';

/** What the leader tells the other tabs, and they mirror. */
export interface LeaderStatus {
  state: ClientState;
  online: boolean;
  pending: number;
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

/** What tab coordination asks of the client. */
export interface LeadershipHost {
  /** This tab was granted the lock: replicate here (by calling `lead`). */
  granted(): void;
  /** A session change another tab stored. */
  adoptSession(record: SharedSessionRecord): void;
  /** Leader: its status now. */
  status(): LeaderStatus;
  /** Leader: a follower's `sync()` / `awaitInSync()`, run here. */
  run(op: TabOp): Promise<void>;
  /** Leader: the live channel joins or leaves a list for another tab. */
  joinLive(listId: string): void;
  leaveLive(listId: string): void;
  /** Follower: the leader's status (after `mirrored` took it), progress and events. */
  leaderStatus(status: LeaderStatus): void;
  progress(progress: PullProgress): void;
  event(event: FamilyClientEvent): void;
}

/** What leadership uses of the tabs (tabs.ts): the lock and the channel. */
export type TabLink = Pick<Tabs, 'id' | 'post' | 'onMessage' | 'lead' | 'close'>;

/** The list joins leadership keeps for other tabs, and reads of this one (list-joins.ts). */
export type TabJoins = Pick<ListJoins, 'joinFor' | 'leaveFor' | 'held' | 'ownLists'>;

interface OpenRequest {
  op: TabOp;
  resolve(): void;
  reject(err: unknown): void;
}

export class Leadership {
  private current: TabRole = 'none';
  private releaseLead: (() => void) | null = null;
  /** Follower: the leader's last status. */
  private mirroredStatus: { state: ClientState; online: boolean } | null = null;
  private readonly openRequests = new Map<string, OpenRequest>();
  private requestSeq = 0;
  private lastPosted = '';

  constructor(
    private readonly tabs: TabLink | undefined,
    private readonly joins: TabJoins,
    private readonly host: LeadershipHost,
  ) {
    tabs?.onMessage((msg) => this.onMessage(msg));
  }

  get role(): TabRole {
    return this.current;
  }

  /** Follower: the leader's last state and reachability (null until it told). */
  get mirrored(): { state: ClientState; online: boolean } | null {
    return this.mirroredStatus;
  }

  /** Whether started clients wait for the lock (browsers) rather than lead at once. */
  get shared(): boolean {
    return !!this.tabs;
  }

  /** Started with tabs: follow until this tab is granted the lock (`host.granted`). */
  follow(): void {
    const tabs = this.tabs!;
    this.current = 'follower';
    this.mirroredStatus = null;
    this.releaseLead = tabs.lead(() => this.host.granted());
    tabs.post({ k: 'hello', from: tabs.id });
  }

  /** This client replicates from now: `startReplicating` sets it up, then the other tabs are
   *  told, and what this tab asked while it followed runs here. */
  lead(startReplicating: () => void): void {
    this.current = 'leader';
    this.mirroredStatus = null;
    startReplicating();
    const tabs = this.tabs;
    if (!tabs) return;
    tabs.post({ k: 'leader', from: tabs.id });
    this.postStatus();
    for (const [id, r] of this.openRequests) {
      this.openRequests.delete(id);
      this.host.run(r.op).then(r.resolve, r.reject);
    }
  }

  /** The client stops: no role; what this tab asked the leader fails with `stopped`. Returns
   *  whether it led (then it stops replicating before `release()`). */
  stepDown(): boolean {
    const wasLeader = this.current === 'leader';
    this.current = 'none';
    for (const [id, r] of this.openRequests) {
      this.openRequests.delete(id);
      r.reject(new FamilyClientError('stopped', 'the client stopped before it was in sync'));
    }
    return wasLeader;
  }

  /** Gives the lock to the next started tab (once this one no longer replicates). */
  release(): void {
    this.releaseLead?.();
    this.releaseLead = null;
    this.mirroredStatus = null;
  }

  /** Follower: the leader runs `sync()` / `awaitInSync()` and answers. */
  ask(op: TabOp): Promise<void> {
    const tabs = this.tabs!;
    const id = `${tabs.id}:${++this.requestSeq}`;
    return new Promise<void>((resolve, reject) => {
      this.openRequests.set(id, { op, resolve, reject });
      tabs.post({ k: 'request', from: tabs.id, id, op });
    });
  }

  /** Follower: this tab joined or left a list: the leader's live channel does it. */
  joined(listId: string): void {
    if (this.current === 'follower' && this.tabs) this.tabs.post({ k: 'join', from: this.tabs.id, listId });
  }

  left(listId: string): void {
    if (this.current === 'follower' && this.tabs) this.tabs.post({ k: 'leave', from: this.tabs.id, listId });
  }

  /** Leader: tell the other tabs its status when it changed (`force`: anyway). */
  postStatus(force = false): void {
    if (!this.tabs || this.current !== 'leader') return;
    const status = this.host.status();
    const key = JSON.stringify(status);
    if (!force && key === this.lastPosted) return;
    this.lastPosted = key;
    this.tabs.post({ k: 'status', from: this.tabs.id, ...status });
  }

  /** Leader: an event the other tabs report too. */
  forward(event: FamilyClientEvent): void {
    if (this.tabs && this.current === 'leader' && FORWARDED.has(event.type)) {
      this.tabs.post({ k: 'event', from: this.tabs.id, event });
    }
  }

  progress(progress: PullProgress): void {
    if (this.tabs) this.tabs.post({ k: 'progress', from: this.tabs.id, progress });
  }

  close(): void {
    this.tabs?.close();
  }

  private onMessage(msg: TabMessage): void {
    const tabs = this.tabs!;
    if (msg.k === 'session') {
      this.host.adoptSession(msg.record);
      return;
    }
    if (this.current === 'leader') {
      switch (msg.k) {
        case 'hello':
          this.postStatus(true);
          return;
        case 'request':
          this.host.run(msg.op).then(
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
        case 'join':
          this.joins.joinFor(msg.from, msg.listId);
          this.host.joinLive(msg.listId);
          return;
        case 'leave':
          if (this.joins.leaveFor(msg.from, msg.listId) && !this.joins.held(msg.listId)) {
            this.host.leaveLive(msg.listId);
          }
          return;
        default:
          return;
      }
    }
    if (this.current !== 'follower') return;
    switch (msg.k) {
      case 'leader':
        for (const listId of this.joins.ownLists()) tabs.post({ k: 'join', from: tabs.id, listId });
        for (const [id, r] of this.openRequests) tabs.post({ k: 'request', from: tabs.id, id, op: r.op });
        return;
      case 'status':
        this.mirroredStatus = { state: msg.state, online: msg.online };
        this.host.leaderStatus({ state: msg.state, online: msg.online, pending: msg.pending });
        return;
      case 'progress':
        this.host.progress(msg.progress);
        return;
      case 'event':
        this.host.event(msg.event);
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
}
