// Names of the component schemas, by route. A route's request body and the record its success
// responses carry (the element, for a list) become `#/components/schemas/<name>`, and every other
// place the same zod schema appears (nested in another record, another route) refers to it.
// Keyed by route rather than set on the schemas so that the OpenAPI vocabulary lives here, in one
// table, whatever module declares the schema. A route missing here still gets a name, derived
// from its operation (`PatchMeInput`, `GetMeResponse`); the test asserts every entry below names
// a route that exists.
//
// Replication routes validate their bodies row by row in the handler (a bad row is `rejected`,
// not a 400), so the router has no body schema for them; `DOCUMENTED` gives the document the
// protocol's shapes of those bodies instead, per collection.
import { z } from 'zod';
import {
  COLLECTIONS,
  PUSH_MAX_ROWS,
  checkpointSchema,
  docSchemas,
  rejectedRowSchema,
  type CollectionName,
} from '@family-shopping/client/protocol';

export interface RouteNames {
  /** Name of the request body schema. */
  body?: string;
  /** Name of the record in the 2xx responses (of the array's element for a list). */
  ok?: string;
}

/** `method path` (koa path relative to /api) → names. */
export const ROUTE_NAMES: Record<string, RouteNames> = {
  // Accounts
  'post /auth/register': { body: 'RegisterInput', ok: 'Session' },
  'post /auth/login': { body: 'LoginInput', ok: 'Session' },
  'post /auth/refresh': { body: 'RefreshTokenInput', ok: 'Session' },
  'post /auth/logout': { body: 'RefreshTokenInput' },
  'get /auth/invite/:token': { ok: 'InvitationPreview' },
  'post /auth/forgot-password': { body: 'ForgotPasswordInput', ok: 'Message' },
  'post /auth/reset-password': { body: 'ResetPasswordInput', ok: 'Message' },
  'get /me': { ok: 'Me' },
  // Family
  'get /family': { ok: 'Family' },
  'post /family/invite-code': { ok: 'InviteCode' },
  'get /family/members': { ok: 'Member' },
  'patch /family/members/:userId': { body: 'MemberRoleInput', ok: 'Member' },
  'get /family/invites': { ok: 'Invitation' },
  'post /family/invites': { body: 'InvitationInput', ok: 'Invitation' },
  'post /family/invites/:id/resend': { ok: 'Invitation' },
  // Catalog
  'get /products': { ok: 'Product' },
  'post /products': { body: 'FamilyProductInput', ok: 'Product' },
  'patch /products/:familyProductId': { body: 'FamilyProductPatch', ok: 'Product' },
  'put /products/:productId/override': { body: 'ProductOverrideInput', ok: 'Product' },
  'get /units': { ok: 'Unit' },
  'post /units': { body: 'FamilyUnitInput', ok: 'Unit' },
  'patch /units/:unitId': { body: 'FamilyUnitPatch', ok: 'Unit' },
  // Stores
  'get /stores': { ok: 'Store' },
  'post /stores': { body: 'StoreInput', ok: 'Store' },
  'get /stores/:storeId': { ok: 'Store' },
  'patch /stores/:storeId': { body: 'StorePatch', ok: 'Store' },
  'get /stores/:storeId/sections': { ok: 'Section' },
  'post /stores/:storeId/sections': { body: 'SectionInput', ok: 'Section' },
  'put /stores/:storeId/sections/order': { body: 'SectionOrderInput', ok: 'Section' },
  'patch /stores/:storeId/sections/:sectionId': { body: 'SectionPatch', ok: 'Section' },
  // Lists
  'get /lists': { ok: 'List' },
  'post /lists': { body: 'ListInput', ok: 'List' },
  'get /lists/:listId': { ok: 'ListDetail' },
  'patch /lists/:listId': { body: 'ListPatch', ok: 'List' },
  'post /lists/:listId/archive': { ok: 'List' },
  'post /lists/:listId/unarchive': { ok: 'List' },
  'post /lists/:listId/items': { body: 'ItemInput', ok: 'Item' },
  'patch /lists/:listId/items/:itemId': { body: 'ItemPatch', ok: 'Item' },
  'delete /lists/:listId/items/:itemId': { ok: 'Item' },
  'post /lists/:listId/items/:itemId/toggle': { ok: 'Item' },
  'post /lists/:listId/items/:itemId/restore': { ok: 'Item' },
  'get /lists/:listId/suggestions': { ok: 'Suggestion' },
  'post /lists/:listId/clear-checked': { ok: 'ItemBatch' },
  'post /lists/:listId/restore-items': { body: 'RestoreItemsInput', ok: 'ItemBatch' },
  // Recipes
  'get /recipes': { ok: 'RecipeSummary' },
  'post /recipes': { body: 'RecipeInput', ok: 'Recipe' },
  'get /recipes/:recipeId': { ok: 'Recipe' },
  'patch /recipes/:recipeId': { body: 'RecipePatch', ok: 'Recipe' },
  'post /recipes/:recipeId/ingredients': { body: 'IngredientInput', ok: 'Ingredient' },
  'patch /recipes/:recipeId/ingredients/:ingredientId': { body: 'IngredientPatch', ok: 'Ingredient' },
  'post /recipes/:recipeId/copy-to-list': { body: 'CopyToListInput', ok: 'CopyToListResult' },
  // Replication (documented shapes below)
  'get /sync/:collection/pull': { ok: 'PullResponse' },
  'post /sync/:collection/push': { body: 'PushRequest', ok: 'PushResponse' },
  // Docs
  'get /openapi.json': { ok: 'OpenApiDocument' },
};

const pascal = (c: string) => c.charAt(0).toUpperCase() + c.slice(1);

/** `ListDoc`, `ItemDoc`, … `SectionMemoryDoc`: the replication doc of each collection. */
export const DOC_NAMES = new Map<z.core.$ZodType, string>(
  COLLECTIONS.map((c) => [docSchemas[c] as z.core.$ZodType, `${pascal(c.replace(/s$/, ''))}Doc`]),
);

const docOfAnyCollection = z
  .union(
    COLLECTIONS.map((c) => docSchemas[c as CollectionName]) as unknown as [
      z.core.$ZodType,
      z.core.$ZodType,
      ...z.core.$ZodType[],
    ],
  )
  .meta({ description: 'A doc of the collection named in the path (the record plus `_deleted`)' });

const pushRow = z.object({
  assumedMasterState: docOfAnyCollection
    .nullable()
    .optional()
    .meta({ description: "The server's doc as the client last saw it; absent or null for an insert" }),
  newDocumentState: docOfAnyCollection,
});

/** Shapes of bodies the router does not validate as a whole, for the document only. */
export const DOCUMENTED: Record<string, { body?: z.core.$ZodType; ok?: z.core.$ZodType }> = {
  'get /sync/:collection/pull': {
    ok: z.object({
      documents: z.array(docOfAnyCollection).meta({ description: 'Docs after the checkpoint, in commit order' }),
      checkpoint: z.nullable(checkpointSchema).meta({ description: 'Send it back as `checkpoint` on the next pull' }),
    }),
  },
  'post /sync/:collection/push': {
    body: z.array(pushRow).max(PUSH_MAX_ROWS),
    ok: z.object({
      conflicts: z
        .array(docOfAnyCollection)
        .meta({ description: "The server's docs for rows whose assumed state was stale" }),
      rejected: z
        .array(rejectedRowSchema)
        .meta({ description: 'Rows refused (reverted by the client), with a stable code' }),
    }),
  },
};

/** Names of schemas that are parts of the documented shapes. */
export const PART_NAMES = new Map<z.core.$ZodType, string>([
  [checkpointSchema, 'Checkpoint'],
  [rejectedRowSchema, 'RejectedRow'],
  [pushRow, 'PushRow'],
  [docOfAnyCollection, 'Doc'],
  ...DOC_NAMES,
]);
