// Where a family event goes. Pure: the hub asks this for every event it receives from the bus.
//   - list events (with a listId) go to the sockets joined to that list;
//   - overview events go to every authenticated socket of the family;
//   - MemberRemoved is internal (it closes that member's sockets, it is not sent);
//   - anything else is not forwarded (new internal events must not leak by default).
// Events are typed (server/events/bus.ts), but an event from Redis is only JSON another instance
// sent: the checks below hold for whatever arrives.
import type { FamilyEvent } from '../events/public.js';
import {
  LIST_EVENT_TYPES,
  OVERVIEW_EVENT_TYPES,
  type ListEventFrame,
  type OverviewEventFrame,
} from '@family-shopping/client/protocol';

export type Route =
  | { kind: 'list'; listId: string; frame: ListEventFrame }
  | { kind: 'overview'; frame: OverviewEventFrame }
  | { kind: 'memberRemoved'; userId: string }
  | { kind: 'drop' };

const LIST_TYPES = new Set<string>(LIST_EVENT_TYPES);
const OVERVIEW_TYPES = new Set<string>(OVERVIEW_EVENT_TYPES);

const isListEvent = (e: FamilyEvent): e is ListEventFrame => LIST_TYPES.has(e.type);
const isOverviewEvent = (e: FamilyEvent): e is OverviewEventFrame => OVERVIEW_TYPES.has(e.type);

export function routeEvent(e: FamilyEvent): Route {
  if (isListEvent(e)) {
    return typeof e.listId === 'string' ? { kind: 'list', listId: e.listId.toLowerCase(), frame: e } : { kind: 'drop' };
  }
  if (isOverviewEvent(e)) return { kind: 'overview', frame: e };
  if (e.type === 'MemberRemoved' && typeof e.userId === 'string') return { kind: 'memberRemoved', userId: e.userId };
  return { kind: 'drop' };
}
