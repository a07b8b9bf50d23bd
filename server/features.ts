// Each feature registers its routes here (routes → services → queries → db).
import type { ApiRouter } from './http/route.js';
import type { Deps } from './context.js';

export function registerFeatureRoutes(_api: ApiRouter, _deps: Deps): void {
  // Features are added here as they land.
}
