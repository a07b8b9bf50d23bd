// Each feature registers its routes here (routes → services → queries → db).
import type { ApiRouter } from './http/route.js';
import type { Deps } from './context.js';
import { registerAuthRoutes } from './auth/routes.js';
import { registerFamilyRoutes } from './family/routes.js';
import { registerCatalogRoutes } from './catalog/routes.js';
import { registerOpenApiRoutes } from './openapi/routes.js';
import { registerStoreRoutes } from './stores/routes.js';
import { registerListRoutes } from './lists/routes.js';
import { registerRecipeRoutes } from './recipes/routes.js';
import { registerSyncRoutes } from './sync/routes.js';

export function registerFeatureRoutes(api: ApiRouter, deps: Deps): void {
  registerAuthRoutes(api, deps); // accounts, sessions, passwords, /me
  registerFamilyRoutes(api, deps); // the family: invitations, members, export and import
  registerCatalogRoutes(api, deps); // products and units
  registerStoreRoutes(api, deps); // stores and sections
  registerListRoutes(api, deps); // shopping lists and items
  registerRecipeRoutes(api, deps); // recipes, ingredients, copy-to-list
  registerSyncRoutes(api, deps); // replication pull/push
  registerOpenApiRoutes(api, deps); // /api/openapi.json and /api/docs (documents every route above and below)
  // Features are added here as they land.
}
