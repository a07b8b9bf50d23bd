// Each feature registers its routes here (routes → services → queries → db).
import type { ApiRouter } from './http/route.js';
import type { Deps } from './context.js';
import { registerAccountRoutes } from './auth/routes.js';
import { registerCatalogRoutes } from './catalog/routes.js';
import { registerOpenApiRoutes } from './openapi/routes.js';
import { registerStoreRoutes } from './stores/routes.js';
import { registerListRoutes } from './lists/routes.js';
import { registerRecipeRoutes } from './recipes/routes.js';
import { registerSyncRoutes } from './sync/routes.js';

export function registerFeatureRoutes(api: ApiRouter, deps: Deps): void {
  registerAccountRoutes(api, deps); // auth + family (accounts, invitations, members)
  registerCatalogRoutes(api, deps); // products and units
  registerStoreRoutes(api, deps); // stores and sections
  registerListRoutes(api, deps); // shopping lists and items
  registerRecipeRoutes(api, deps); // recipes, ingredients, copy-to-list
  registerSyncRoutes(api, deps); // replication pull/push
  registerOpenApiRoutes(api, deps); // /api/openapi.json and /api/docs (documents every route above and below)
  // Features are added here as they land.
}
