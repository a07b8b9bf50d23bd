// Domain events leave a committed family write through a bus. The in-process bus delivers to
// subscribers of this process; the Redis bus (realtime/) fans out across instances. Delivery is
// always addressed by family id: a subscriber receives (familyId, events) and never anything
// not tagged with that family.
export interface FamilyEvent {
  type: string;
  [key: string]: unknown;
}

/** The last event of every committed family write (api-contract §5, §7; docs/realtime.md):
 *  `previous` is the family version before the commit, `collections` the replication
 *  collections it wrote (absent: any), `docs` the live patch of a small commit. */
export interface ChangedEvent extends FamilyEvent {
  type: 'Changed';
  version: number;
  previous: number;
  collections?: string[];
  docs?: Record<string, { documents: Array<Record<string, unknown>>; checkpoint: { version: number; id: string } }>;
}

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
