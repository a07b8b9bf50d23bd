/**
 * One session and one replicating tab per origin and database (browsers).
 *
 * - Leadership: every started client asks for the Web Lock `family-shopping:leader:<db>`; the
 *   tab that holds it replicates, keeps the live channel and refreshes tokens ahead of expiry.
 *   When it stops or its tab closes, the lock passes to the next started tab.
 * - The session: kept in a local document of the shared database (IndexedDB, read fresh from
 *   storage) and announced on a BroadcastChannel, so a refresh in one tab reaches every tab.
 *   Refreshes run under the Web Lock `family-shopping:refresh:<db>`; inside it a tab first
 *   reads the stored session and adopts it when another tab rotated the refresh token since,
 *   so no tab ever refreshes with a rotated token (which would revoke every session).
 * - The other tabs mirror the leader: its state, pending count, pull progress and events
 *   arrive as messages; their `sync()`, `awaitInSync()` and `joinList()` are run by the leader.
 */
import { getSingleDocument } from 'rxdb';
import { getLocalDocStateByParent } from 'rxdb/plugins/local-documents';
import type { FamilyDatabase } from './database.js';
import type { SessionShare, SharedSessionRecord } from './session.js';
import type { ClientState, FamilyClientEvent } from './events.js';
import type { PullProgress } from './status.js';

const SESSION_DOC = 'family-shopping-session';

export type TabMessage =
  | { k: 'session'; record: SharedSessionRecord; from: string }
  /** The leader's status (on every change, and in answer to `hello`). */
  | { k: 'status'; from: string; state: ClientState; online: boolean; pending: number }
  | { k: 'event'; from: string; event: FamilyClientEvent }
  | { k: 'progress'; from: string; progress: PullProgress }
  /** A started follower asks the leader for its status (and re-sends its joins). */
  | { k: 'hello'; from: string }
  /** A new leader: followers re-send their joins and open requests. */
  | { k: 'leader'; from: string }
  | { k: 'request'; from: string; id: string; op: 'sync' | 'awaitInSync' }
  | { k: 'reply'; from: string; to: string; id: string; error?: { code: string; message: string } }
  | { k: 'join' | 'leave'; from: string; listId: string };

interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown>;
  request(name: string, callback: () => Promise<unknown>): Promise<unknown>;
}

function lockManager(): LockManagerLike | null {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  return locks && typeof locks.request === 'function' ? locks : null;
}

/** True where tabs can share a client (Web Locks and BroadcastChannel: browsers). */
export function tabsAvailable(): boolean {
  return !!lockManager() && typeof (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel === 'function';
}

export class Tabs implements SessionShare {
  readonly id = Math.random().toString(36).slice(2) + Date.now().toString(36);
  private readonly channel: BroadcastChannel;
  private readonly locks: LockManagerLike;
  private readonly listeners = new Set<(msg: TabMessage) => void>();
  private closed = false;

  constructor(
    private readonly db: FamilyDatabase,
    private readonly name: string,
  ) {
    this.locks = lockManager()!;
    this.channel = new BroadcastChannel(`family-shopping:${name}`);
    this.channel.onmessage = (ev: MessageEvent) => {
      const msg = ev.data as TabMessage;
      for (const l of [...this.listeners]) l(msg);
    };
  }

  post(msg: TabMessage): void {
    if (this.closed) return;
    try {
      this.channel.postMessage(msg);
    } catch {
      // an event that cannot be cloned: the other tabs miss it
    }
  }

  onMessage(listener: (msg: TabMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Asks for leadership; `onLead` runs once it is granted. Returns the release (also gives up
   *  a request not granted yet). */
  lead(onLead: () => void): () => void {
    const abort = new AbortController();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.locks
      .request(`family-shopping:leader:${this.name}`, { signal: abort.signal }, async () => {
        if (abort.signal.aborted) return;
        onLead();
        await held;
      })
      .catch(() => undefined); // aborted before it was granted
    return () => {
      abort.abort();
      release();
    };
  }

  /** Runs `fn` while no other tab runs a refresh. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.locks.request(`family-shopping:refresh:${this.name}`, fn) as Promise<T>;
  }

  /** The session as last stored by any tab (read from storage, not a cache); null: none stored. */
  async readSession(): Promise<SharedSessionRecord | null> {
    const state = await getLocalDocStateByParent(this.db as never);
    const doc = (await getSingleDocument(state.storageInstance, SESSION_DOC)) as
      { data?: SharedSessionRecord } | undefined;
    return doc?.data ?? null;
  }

  /** Stores the session for every tab and announces it. */
  async writeSession(record: SharedSessionRecord): Promise<void> {
    if (this.closed) return;
    await this.db.upsertLocal<SharedSessionRecord>(SESSION_DOC, record);
    this.post({ k: 'session', record, from: this.id });
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.channel.close();
  }
}
