// HTTP for shopping lists and items (contract §4 "Shopping lists and items").
import { z } from 'zod';
import type { Deps } from '../context.js';
import type { ApiRouter } from '../http/route.js';
import { notFound as notFoundError } from '../errors.js';
import { uuid } from '../shared/common.js';
import { featureRoutes } from '../http/feature-routes.js';
import { createdById, deleted, NOT_FOUND } from '../openapi/responses.js';
import { createItem, removeItem, restoreItem, toggleItem, updateItem } from './items.js';
import { clearChecked, restoreItems, RestoreItemsBody } from './done-shopping.js';
import { listSuggestions, SuggestionSchema, SuggestionsQuery } from './suggestions.js';
import {
  ItemBody,
  ItemPatchBody,
  ItemSchema,
  ListBody,
  ListDetailSchema,
  ListPatchBody,
  ListsQuery,
  ListSummarySchema,
  QUANTITY_REFS,
} from './schemas.js';
import {
  archiveList,
  createList,
  deleteList,
  listDetailReader,
  listLists,
  unarchiveList,
  updateList,
} from './service.js';

const ListParams = z.object({ listId: uuid() });
const ItemParams = z.object({ listId: uuid(), itemId: uuid() });
const TAG = 'Lists';
const itemGone = { description: 'Not found, or the item is removed' };
const itemRefsInvalid = { description: 'Invalid; unit_not_found, product_not_found or section_not_found' };
const storeInvalid = { description: 'Invalid, or the store is not the family’s (store_not_found)' };

export function registerListRoutes(api: ApiRouter, deps: Deps): void {
  const routes = featureRoutes(api, deps, TAG);

  routes.read(
    {
      method: 'get',
      path: '/lists',
      summary: 'List summaries (active or archived) with counts of active items',
      query: ListsQuery,
      responses: { 200: { description: 'Lists', schema: z.array(ListSummarySchema) } },
    },
    ({ actor, query }) => listLists(deps, actor, query.archived === 'true'),
  );

  routes.create(
    {
      method: 'post',
      path: '/lists',
      summary: 'Create a list, optionally for a store of the family',
      body: ListBody,
      bodyRefs: ['storeId'],
      responses: createdById(ListSummarySchema, 'A list', { 400: storeInvalid }),
    },
    (w, { actor, body }) => createList(w, actor, body),
  );

  const detailOf = listDetailReader(deps);
  api.memberRead(
    {
      method: 'get',
      path: '/lists/:listId',
      summary: 'List detail: active items grouped by section in walking order',
      tag: TAG,
      access: 'member',
      params: ListParams,
      responses: { 200: { description: 'List detail', schema: ListDetailSchema }, 404: NOT_FOUND },
    },
    async ({ who, params }) => {
      const { membership, body } = await detailOf(who, params.listId);
      // JSON built by the database (the ListDetail shape), passed through as is (UTF-8 bytes).
      return {
        membership,
        answer: body ? { body, type: 'application/json' } : { error: notFoundError('List not found') },
      };
    },
  );

  routes.write(
    {
      method: 'patch',
      path: '/lists/:listId',
      summary: 'Rename a list or change its store',
      params: ListParams,
      body: ListPatchBody,
      bodyRefs: ['storeId'],
      responses: { 200: { description: 'List', schema: ListSummarySchema }, 400: storeInvalid, 404: NOT_FOUND },
    },
    (w, { actor, params, body }) => updateList(w, actor, params.listId, body),
  );

  for (const [action, fn, summary] of [
    ['archive', archiveList, 'Archive a list'],
    ['unarchive', unarchiveList, 'Unarchive a list'],
  ] as const) {
    routes.write(
      {
        method: 'post',
        path: `/lists/:listId/${action}`,
        summary,
        params: ListParams,
        responses: { 200: { description: 'List', schema: ListSummarySchema }, 404: NOT_FOUND },
      },
      (w, { actor, params }) => fn(w, actor, params.listId),
    );
  }

  routes.remove(
    {
      method: 'delete',
      path: '/lists/:listId',
      summary: 'Delete a list and its items',
      params: ListParams,
      responses: deleted(),
    },
    (w, { actor, params }) => deleteList(w, actor, params.listId),
  );

  routes.create(
    {
      method: 'post',
      path: '/lists/:listId/items',
      summary: 'Add an item (a remembered section applies when none is given)',
      params: ListParams,
      body: ItemBody,
      bodyRefs: ['sectionId', ...QUANTITY_REFS],
      responses: createdById(ItemSchema, 'An item', { 400: itemRefsInvalid, 404: NOT_FOUND }),
    },
    (w, { actor, params, body }) => createItem(w, actor, params.listId, body),
  );

  routes.write(
    {
      method: 'patch',
      path: '/lists/:listId/items/:itemId',
      summary: 'Edit an item (partial), including checked',
      params: ItemParams,
      body: ItemPatchBody,
      bodyRefs: ['sectionId', ...QUANTITY_REFS],
      responses: { 200: { description: 'Item', schema: ItemSchema }, 400: itemRefsInvalid, 404: itemGone },
    },
    (w, { actor, params, body }) => updateItem(w, actor, params.listId, params.itemId, body),
  );

  // Item actions without a body: the item as it ends.
  for (const [method, suffix, fn, summary, answer, notFound] of [
    ['post', '/toggle', toggleItem, 'Flip the checked state of an item', 'Item', itemGone],
    [
      'delete',
      '',
      removeItem,
      'Remove an item (soft; undo with restore)',
      'The removed item (unchanged when already removed)',
      NOT_FOUND,
    ],
    [
      'post',
      '/restore',
      restoreItem,
      'Restore a removed item',
      'The active item (unchanged when already active)',
      NOT_FOUND,
    ],
  ] as const) {
    routes.write(
      {
        method,
        path: `/lists/:listId/items/:itemId${suffix}`,
        summary,
        params: ItemParams,
        responses: { 200: { description: answer, schema: ItemSchema }, 404: notFound },
      },
      (w, { actor, params }) => fn(w, actor, params.listId, params.itemId),
    );
  }

  // --- the daily loop (contract §10) ---------------------------------------------------------

  routes.read(
    {
      method: 'get',
      path: '/lists/:listId/suggestions',
      summary:
        'Suggestions: what the family added in the last 180 days (removed items too) that is not on the list, most often added first',
      params: ListParams,
      query: SuggestionsQuery,
      responses: {
        200: { description: 'Suggestions', schema: z.array(SuggestionSchema) },
        400: { description: 'Invalid limit (validation_failed)' },
        404: NOT_FOUND,
      },
    },
    ({ actor, params, query }) => listSuggestions(deps, actor, params.listId, query.limit),
  );

  const ItemsResult = z.object({ items: z.array(ItemSchema) });

  routes.write(
    {
      method: 'post',
      path: '/lists/:listId/clear-checked',
      summary: 'Done shopping: remove every active checked item of the list (soft; undo with restore-items)',
      params: ListParams,
      responses: { 200: { description: 'The items removed (none: empty)', schema: ItemsResult }, 404: NOT_FOUND },
    },
    async (w, { actor, params }) => ({ items: await clearChecked(w, actor, params.listId) }),
  );

  routes.write(
    {
      method: 'post',
      path: '/lists/:listId/restore-items',
      summary: 'Restore many items of the list at once (undo of clear-checked)',
      params: ListParams,
      body: RestoreItemsBody,
      // No bodyRefs: an id that is not this list's is `validation_failed` (§10), not `*_not_found`.
      responses: {
        200: { description: 'The items, active (those already active unchanged)', schema: ItemsResult },
        400: { description: 'Invalid, or an id is not an item of this list (validation_failed); nothing restored' },
        404: NOT_FOUND,
      },
    },
    async (w, { actor, params, body }) => ({ items: await restoreItems(w, actor, params.listId, body.itemIds) }),
  );
}
