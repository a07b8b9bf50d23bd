// The in-process registry of live sockets, partitioned by family at the source: sockets live in
// a Map<familyId, FamilyGroup>, and an event published for family F is looked up in F's group
// only. There is no code path that walks every socket for an event, so a family's events cannot
// be addressed to another family's sockets even if an event were malformed.
import type { FamilyEvent, FrameEvent } from '../events/public.js';
import type { Logger } from '../log.js';
import { CLOSE_CODES, serverFrameSchema } from '@family-shopping/client/protocol';
import { routeEvent } from './routing.js';

/** What the hub needs from a connection (implemented by RealtimeConnection). */
export interface HubMember {
  readonly familyId: string;
  readonly userId: string;
  /** List ids this socket has joined (kept by the hub). */
  readonly lists: Set<string>;
  /** Sends already encoded text frames back to back, in this order (the connection applies the
   *  slow-consumer bound). The buffers are shared by every socket of the audience: read only. */
  sendFrames(frames: readonly Buffer[]): void;
  close(code: number, reason: string): void;
}

interface FamilyGroup {
  /** The overview group: every authenticated socket of the family. */
  all: Set<HubMember>;
  /** One group per joined list. */
  lists: Map<string, Set<HubMember>>;
}

export class RealtimeHub {
  private readonly families = new Map<string, FamilyGroup>();

  constructor(
    private readonly log: Logger,
    /** Told how many frames each delivery sent (the metrics, server/metrics). */
    private readonly onDelivered?: (frames: number) => void,
  ) {}

  add(m: HubMember): void {
    let g = this.families.get(m.familyId);
    if (!g) {
      g = { all: new Set(), lists: new Map() };
      this.families.set(m.familyId, g);
    }
    g.all.add(m);
  }

  remove(m: HubMember): void {
    const g = this.families.get(m.familyId);
    if (!g) return;
    g.all.delete(m);
    for (const listId of m.lists) this.dropFromList(g, listId, m);
    m.lists.clear();
    if (g.all.size === 0) this.families.delete(m.familyId);
  }

  /** Joins a list group. The caller has checked that the list is the family's. */
  join(m: HubMember, listId: string): void {
    const g = this.families.get(m.familyId);
    if (!g || !g.all.has(m)) return;
    let set = g.lists.get(listId);
    if (!set) {
      set = new Set();
      g.lists.set(listId, set);
    }
    set.add(m);
    m.lists.add(listId);
  }

  leave(m: HubMember, listId: string): void {
    const g = this.families.get(m.familyId);
    m.lists.delete(listId);
    if (g) this.dropFromList(g, listId, m);
  }

  private dropFromList(g: FamilyGroup, listId: string, m: HubMember): void {
    const set = g.lists.get(listId);
    if (!set) return;
    set.delete(m);
    if (set.size === 0) g.lists.delete(listId);
  }

  /**
   * Bus handler: delivers a committed write's events to the sockets of that family only. Each
   * frame is encoded once for its whole audience (one Buffer every socket of the group sends as
   * is). A commit's frames go to each socket back to back, in one write (socket by socket, each
   * socket's frames in event order) rather than event by event across all sockets: a device then
   * reads the whole commit (e.g. `ListProgress` and `Changed`) in one wake-up instead of one per
   * frame, a hundred sends apart, and the server makes one write per socket, not one per frame.
   * Frames queued before a member is removed are sent first.
   */
  deliver(familyId: string, events: FamilyEvent[]): void {
    const g = this.families.get(familyId);
    if (!g) return;
    const outbox = new Map<HubMember, Buffer[]>();
    const queue = (targets: Set<HubMember>, e: FrameEvent) => {
      if (targets.size === 0) return;
      const frame = this.encode(e);
      for (const m of targets) {
        const frames = outbox.get(m);
        if (frames) frames.push(frame);
        else outbox.set(m, [frame]);
      }
    };
    const flush = () => {
      // A send may close a slow consumer, which drops its remaining frames (a closed connection
      // sends nothing).
      let frames = 0;
      for (const [m, list] of outbox) {
        m.sendFrames(list);
        frames += list.length;
      }
      outbox.clear();
      if (frames > 0) this.onDelivered?.(frames);
    };
    for (const e of events) {
      const route = routeEvent(e);
      switch (route.kind) {
        case 'list': {
          const set = g.lists.get(route.listId);
          if (set) queue(set, route.frame);
          break;
        }
        case 'overview':
          queue(g.all, route.frame);
          if (e.type === 'ListDeleted' && typeof e.listId === 'string') this.dissolveList(g, e.listId.toLowerCase());
          break;
        case 'memberRemoved':
          flush();
          for (const m of [...g.all]) {
            if (m.userId === route.userId) m.close(CLOSE_CODES.REMOVED_FROM_FAMILY, 'removed from the family');
          }
          break;
        case 'drop':
          break;
      }
    }
    flush();
  }

  /** A deleted list's group is dissolved: its sockets heard ListDeleted on the overview. */
  private dissolveList(g: FamilyGroup, listId: string): void {
    const set = g.lists.get(listId);
    if (!set) return;
    for (const m of set) m.lists.delete(listId);
    g.lists.delete(listId);
  }

  /** Encodes once per event, for every socket that gets it: the frame's UTF-8 bytes, which ws
   *  sends as they are (a string would be encoded again for each socket). Producers are typed
   *  with the protocol's frames (a shape it does not define does not compile); at run time
   *  frames are still checked against the wire schema: a known key set is sent (unknown keys
   *  stripped), and a frame the schema rejects (a rule types do not express, or an event from an
   *  instance of another version through Redis) is still sent but logged, so a drifting producer
   *  is visible without silencing live updates. */
  private encode(e: FrameEvent): Buffer {
    const parsed = serverFrameSchema.safeParse(e);
    if (parsed.success) return Buffer.from(JSON.stringify(parsed.data));
    this.log.warn(
      { eventType: e.type, issues: parsed.error.issues.slice(0, 5) },
      'realtime event does not match the protocol schema',
    );
    return Buffer.from(JSON.stringify(e));
  }

  /** Keeps a user at `max` sockets: beyond it the user's oldest sockets (the first added) are
   *  closed with 4429, the newest kept. */
  limitUser(m: HubMember, max: number): void {
    const g = this.families.get(m.familyId);
    if (!g) return;
    const own = [...g.all].filter((x) => x.userId === m.userId);
    for (const old of own.slice(0, Math.max(0, own.length - max))) {
      if (old !== m) old.close(CLOSE_CODES.TOO_MANY_SOCKETS, 'too many live connections of this user');
    }
  }

  stats(): { families: number; sockets: number } {
    let sockets = 0;
    for (const g of this.families.values()) sockets += g.all.size;
    return { families: this.families.size, sockets };
  }
}
