// Where a family event goes. Pure: the hub asks this for every event it receives from the bus.
//   - list events (with a listId) go to the sockets joined to that list;
//   - overview events go to every authenticated socket of the family;
//   - MemberRemoved / MemberRoleChanged are internal (they change sockets, they are not sent);
//   - anything else is not forwarded (new internal events must not leak by default).
import type { FamilyEvent } from '../events/bus.js';
import { LIST_EVENT_TYPES, OVERVIEW_EVENT_TYPES } from '@family-shopping/client/protocol';

export type Route =
  | { kind: 'list'; listId: string }
  | { kind: 'overview' }
  | { kind: 'memberRemoved'; userId: string }
  | { kind: 'memberRoleChanged'; userId: string; role: 'admin' | 'member' }
  | { kind: 'drop' };

const LIST_TYPES = new Set<string>(LIST_EVENT_TYPES);
const OVERVIEW_TYPES = new Set<string>(OVERVIEW_EVENT_TYPES);

export function routeEvent(e: FamilyEvent): Route {
  if (LIST_TYPES.has(e.type)) {
    return typeof e.listId === 'string' ? { kind: 'list', listId: e.listId.toLowerCase() } : { kind: 'drop' };
  }
  if (OVERVIEW_TYPES.has(e.type)) return { kind: 'overview' };
  if (e.type === 'MemberRemoved' && typeof e.userId === 'string') return { kind: 'memberRemoved', userId: e.userId };
  if (e.type === 'MemberRoleChanged' && typeof e.userId === 'string' && (e.role === 'admin' || e.role === 'member')) {
    return { kind: 'memberRoleChanged', userId: e.userId, role: e.role };
  }
  return { kind: 'drop' };
}
