// How to call each family-data route of the route table: the path ids of the caller's own
// records, a minimal valid body, and which of another family's ids to put where. The isolation
// matrix and the version test read the running app's route table and look routes up here; a
// route missing from these tables fails those tests, so every new route gets an entry.
import type { RouteSpec } from '../../../server/http/route.js';
import { COLLECTIONS, SCHEMA_VERSION } from '@family-shopping/client/protocol';
import { newId } from '../../../server/db/ids.js';
import type { Fixture } from './fixture.js';
import { tag } from './fixture.js';

export const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method.toUpperCase()} ${r.path}`;

/** Path params that do not name a family record (nothing to isolate through them). */
export const NON_ID_PARAMS: Record<string, string> = {
  token: 'a secret invite token (public lookup; the token itself is the credential)',
  asset: 'a static file of the API reference page',
  collection: 'a replication collection name',
};

/**
 * The caller's own record for a path param (a successful call), or another family's record for
 * the isolation matrix. Throws for a param the matrix does not know: add it here.
 */
export function paramValue(route: RouteSpec, name: string, fx: Fixture, foreign: boolean): string {
  switch (name) {
    case 'storeId':
      return fx.storeId;
    case 'sectionId':
      return fx.sectionId;
    case 'listId':
      return fx.listId;
    case 'itemId':
      return fx.itemId;
    case 'recipeId':
      return fx.recipeId;
    case 'ingredientId':
      return fx.ingredientId;
    case 'familyProductId':
      return fx.familyProductId;
    case 'productId':
      // Global products are shared, so the foreign record is the other family's own product.
      return foreign ? fx.familyProductId : fx.globalProductId;
    case 'unitId':
      // Own calls delete/patch the spare unit (the main one is in use).
      return foreign ? fx.familyUnitId : fx.spareUnitId;
    case 'userId':
      return fx.member.userId;
    case 'id':
      if (route.path.startsWith('/family/invites/')) return fx.inviteId;
      break;
  }
  throw new Error(
    `isolation matrix: no fixture id for path param :${name} of ${routeKey(route)} (add it to test/integration/isolation/calls.ts)`,
  );
}

/** Another family's value for a body field declared in `bodyRefs` (dotted paths allowed). */
export function foreignRef(field: string, a: Fixture): unknown {
  const leaf = field.split('.').pop()!;
  switch (leaf) {
    case 'storeId':
      return a.storeId;
    case 'sectionId':
      return a.sectionId;
    case 'sectionIds':
      return [a.sectionId, a.otherSectionId];
    case 'listId':
      return a.listId;
    case 'itemId':
      return a.itemId;
    case 'itemIds':
      return [a.itemId];
    case 'recipeId':
      return a.recipeId;
    case 'ingredientIds':
      return [a.ingredientId];
    case 'unitOfMeasureId':
    case 'familyUnitOfMeasureId':
      return a.familyUnitId;
    case 'productId':
    case 'familyProductId':
      return a.familyProductId;
  }
  throw new Error(
    `isolation matrix: no foreign value for body ref "${field}" (add it to foreignRef in test/integration/isolation/calls.ts)`,
  );
}

/** Values to try for non-id path params on reads of the caller's own data (each one is read). */
export const NON_ID_PARAM_VALUES: Record<string, readonly string[]> = {
  collection: COLLECTIONS,
};

/** Query strings reads need (else none). */
export const READ_QUERIES: Record<string, string> = {
  'GET /sync/:collection/pull': `schema=${SCHEMA_VERSION}&limit=1000`,
};

export interface ValidCall {
  /** A minimal valid body for a successful call by the fixture family's admin. */
  body?: (fx: Fixture) => unknown;
  /** Values of non-id path params. */
  params?: Record<string, string>;
  /** Query string. */
  query?: string;
  /** The route changes the caller's own account, not family data: the family version stays. */
  account?: true;
  /** The route writes into a family with no data of its own (the family import): the version
   *  test calls it as the admin of a new, empty family. */
  emptyFamily?: true;
}

/** A small family export: one of every record, referring only to itself. */
export function familyDocument(): Record<string, unknown> {
  const now = new Date().toISOString();
  const t = { createdAt: now, updatedAt: now };
  const [store, section, list, item, recipe, ingredient, product, unit] = Array.from({ length: 8 }, () => newId());
  const noQuantity = {
    quantity: null,
    unitOfMeasureId: null,
    familyUnitOfMeasureId: null,
    isApproximate: false,
    quantityNote: null,
    productId: null,
    familyProductId: null,
  };
  return {
    format: 'family-shopping',
    version: 1,
    exportedAt: now,
    family: { name: 'Exported family' },
    stores: [{ id: store, name: `Store ${tag()}`, ...t }],
    sections: [{ id: section, storeId: store, name: 'Produce', position: 0, ...t }],
    lists: [{ id: list, name: 'Imported list', storeId: store, archivedAt: null, ...t }],
    items: [
      {
        id: item,
        listId: list,
        name: 'Imported item',
        ...noQuantity,
        sectionId: section,
        checked: false,
        checkedAt: null,
        removedAt: null,
        removedByUserId: null,
        ...t,
      },
    ],
    recipes: [{ id: recipe, name: 'Imported recipe', servings: 2, instructions: null, ...t }],
    ingredients: [{ id: ingredient, recipeId: recipe, name: 'Flour', ...noQuantity, position: 0, ...t }],
    products: [
      { id: product, kind: 'family', name: `Product ${tag()}`, unitCategoryFlags: ['Count'], overridden: false, ...t },
    ],
    units: [
      {
        id: unit,
        kind: 'family',
        code: null,
        name: 'Imported unit',
        abbreviation: `i${tag()}`,
        category: 'Count',
        ...t,
      },
    ],
    sectionMemory: [
      { id: newId(), storeId: store, productId: null, familyProductId: product, sectionId: section, updatedAt: now },
    ],
  };
}

const named = (prefix: string) => () => ({ name: `${prefix} ${tag()}` });

/** One entry per family-data route with a body or side effect (every non-GET member/admin route). */
export const VALID_CALLS: Record<string, ValidCall> = {
  // The caller's own account
  'PATCH /me': { body: () => ({ userName: `renamed-${tag()}` }), account: true },
  'POST /me/password': {
    body: (fx) => ({ currentPassword: fx.admin.password, newPassword: 'another long password' }),
    account: true,
  },
  'POST /me/email-confirmation': { account: true },
  // Accounts and family (admin)
  'PATCH /family': { body: named('Renamed family') },
  'POST /family/invite-code': {},
  'PATCH /family/members/:userId': { body: () => ({ role: 'admin' }) },
  'DELETE /family/members/:userId': {},
  'POST /family/invites': { body: () => ({ email: `new-${tag()}@example.test` }) },
  'POST /family/invites/:id/resend': {},
  'DELETE /family/invites/:id': {},
  'POST /family/import': { body: () => familyDocument(), emptyFamily: true },
  // Catalog
  'POST /products': { body: named('Product') },
  'PATCH /products/:familyProductId': { body: named('Renamed product') },
  'DELETE /products/:familyProductId': {},
  'PUT /products/:productId/override': { body: named('Override') },
  'DELETE /products/:productId/override': {},
  'POST /units': { body: () => ({ name: 'Unit', abbreviation: `v${tag()}`, category: 'Count' }) },
  'PATCH /units/:unitId': { body: named('Renamed unit') },
  'DELETE /units/:unitId': {},
  // Stores and sections
  'POST /stores': { body: named('Store') },
  'PATCH /stores/:storeId': { body: named('Renamed store') },
  'DELETE /stores/:storeId': {},
  'POST /stores/:storeId/sections': { body: named('Section') },
  'PUT /stores/:storeId/sections/order': { body: (fx) => ({ sectionIds: [fx.otherSectionId, fx.sectionId] }) },
  'PATCH /stores/:storeId/sections/:sectionId': { body: named('Renamed section') },
  'DELETE /stores/:storeId/sections/:sectionId': {},
  // Lists and items
  'POST /lists': { body: (fx) => ({ name: `List ${tag()}`, storeId: fx.storeId }) },
  'PATCH /lists/:listId': { body: named('Renamed list') },
  'POST /lists/:listId/archive': {},
  'POST /lists/:listId/unarchive': {},
  'DELETE /lists/:listId': {},
  'POST /lists/:listId/items': { body: named('Item') },
  'PATCH /lists/:listId/items/:itemId': { body: named('Renamed item') },
  'POST /lists/:listId/items/:itemId/toggle': {},
  'DELETE /lists/:listId/items/:itemId': {},
  'POST /lists/:listId/items/:itemId/restore': {},
  'POST /lists/:listId/clear-checked': {},
  'POST /lists/:listId/restore-items': { body: (fx) => ({ itemIds: [fx.itemId] }) },
  // Recipes
  'POST /recipes': { body: () => ({ name: `Recipe ${tag()}`, ingredients: [{ name: 'Flour' }] }) },
  'PATCH /recipes/:recipeId': { body: named('Renamed recipe') },
  'DELETE /recipes/:recipeId': {},
  'POST /recipes/:recipeId/ingredients': { body: named('Ingredient') },
  'PATCH /recipes/:recipeId/ingredients/:ingredientId': { body: named('Renamed ingredient') },
  'DELETE /recipes/:recipeId/ingredients/:ingredientId': {},
  'POST /recipes/:recipeId/copy-to-list': { body: (fx) => ({ listId: fx.listId }) },
  // Replication: one new list pushed.
  'POST /sync/:collection/push': {
    params: { collection: 'lists' },
    query: `schema=${SCHEMA_VERSION}`,
    body: () => {
      const now = new Date().toISOString();
      return [
        {
          newDocumentState: {
            id: newId(),
            name: `Pushed ${tag()}`,
            storeId: null,
            archivedAt: null,
            createdAt: now,
            updatedAt: now,
            _deleted: false,
          },
        },
      ];
    },
  },
};

/**
 * Body references a route's `bodyRefs` does not declare (nested ones), checked the same way.
 * The route's valid body must contain the parent (here: one ingredient).
 */
export const NESTED_REFS: Record<string, string[]> = {
  // Not a bodyRef (whose code would be `item_not_found`): §10 answers `validation_failed`.
  'POST /lists/:listId/restore-items': ['itemIds'],
  'POST /recipes': [
    'ingredients.0.unitOfMeasureId',
    'ingredients.0.familyUnitOfMeasureId',
    'ingredients.0.productId',
    'ingredients.0.familyProductId',
  ],
};

/** Sets a dotted path (`ingredients.0.productId`) in a JSON body. */
export function setPath(body: Record<string, unknown>, dotted: string, value: unknown): Record<string, unknown> {
  const out = structuredClone(body);
  const keys = dotted.split('.');
  let cur: Record<string, unknown> = out;
  for (const [i, k] of keys.slice(0, -1).entries()) {
    if (cur[k] == null || typeof cur[k] !== 'object') cur[k] = /^\d+$/.test(keys[i + 1]!) ? [] : {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
  return out;
}
