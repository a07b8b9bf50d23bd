// Domain events leave a committed family write through a bus. The in-process bus delivers to
// subscribers of this process; the Redis bus (realtime/) fans out across instances. Delivery is
// always addressed by family id: a subscriber receives (familyId, events) and never anything
// not tagged with that family.
import type { ChangedFrame, ListEventFrame, OverviewEventFrame } from '@family-shopping/client/protocol';
import type { Role } from '../actor.js';

/** An event that the live channel sends as a frame, in the protocol's own shape: a list event
 *  (to the sockets joined to its list) or an overview event (to every socket of the family). A
 *  frame the protocol does not define does not compile. */
export type FrameEvent = ListEventFrame | OverviewEventFrame;

/** Membership changes: the live channel acts on them (closes or re-roles sockets) and never
 *  sends them. */
export type MembershipEvent =
  | { type: 'MemberJoined'; userId: string; role: Role }
  | { type: 'MemberRoleChanged'; userId: string; role: Role }
  | { type: 'MemberRemoved'; userId: string };

/** What a family write publishes after commit. */
export type FamilyEvent = FrameEvent | MembershipEvent;

/** The last event of every committed family write (api-contract §5, §7; docs/realtime.md):
 *  `previous` is the family version before the commit, `collections` the replication
 *  collections it wrote (absent: any), `docs` the live patch of a small commit. */
export type ChangedEvent = ChangedFrame & { previous: number };

export type FamilyEventHandler = (familyId: string, events: FamilyEvent[]) => void;

export interface EventBus {
  publish(familyId: string, events: FamilyEvent[]): Promise<void>;
  subscribe(handler: FamilyEventHandler): () => void;
  close(): Promise<void>;
}

export class InProcessBus implements EventBus {
  private handlers = new Set<FamilyEventHandler>();

  async publish(familyId: string, events: FamilyEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const h of this.handlers) {
      try {
        h(familyId, events);
      } catch {
        // A failing subscriber must not stop delivery to the others.
      }
    }
  }

  subscribe(handler: FamilyEventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
