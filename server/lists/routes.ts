// HTTP for shopping lists and items (contract §4 "Shopping lists and items").
import { z } from 'zod';
import type { Deps } from '../context.js';
import type { ApiRouter } from '../http/route.js';
import { notFound as notFoundError } from '../errors.js';
import { uuid, writeAs } from '../shared/common.js';
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
const notFound = { description: 'Not found' };

export function registerListRoutes(api: ApiRouter, deps: Deps): void {
  api.add(
    {
      method: 'get',
      path: '/lists',
      summary: 'List summaries (active or archived) with counts of active items',
      tag: TAG,
      access: 'member',
      query: ListsQuery,
      responses: { 200: { description: 'Lists', schema: z.array(ListSummarySchema) } },
    },
    async (ctx, { actor, query }) => {
      ctx.body = await listLists(deps, actor, query.archived === 'true');
    },
  );

  api.add(
    {
      method: 'post',
      path: '/lists',
      summary: 'Create a list, optionally for a store of the family',
      tag: TAG,
      access: 'member',
      body: ListBody,
      bodyRefs: ['storeId'],
      responses: {
        201: { description: 'Created', schema: ListSummarySchema },
        200: { description: 'A list with that id already exists in the family', schema: ListSummarySchema },
        400: { description: 'Invalid, or the store is not the family’s (store_not_found)' },
        409: { description: 'Id taken elsewhere (id_conflict)' },
      },
    },
    async (ctx, { actor, body }) => {
      const r = await writeAs(deps, actor, (w) => createList(w, actor, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
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
      responses: { 200: { description: 'List detail', schema: ListDetailSchema }, 404: notFound },
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

  api.add(
    {
      method: 'patch',
      path: '/lists/:listId',
      summary: 'Rename a list or change its store',
      tag: TAG,
      access: 'member',
      params: ListParams,
      body: ListPatchBody,
      bodyRefs: ['storeId'],
      responses: {
        200: { description: 'List', schema: ListSummarySchema },
        400: { description: 'Invalid, or the store is not the family’s (store_not_found)' },
        404: notFound,
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) => updateList(w, actor, params.listId, body));
    },
  );

  for (const [action, fn, summary] of [
    ['archive', archiveList, 'Archive a list'],
    ['unarchive', unarchiveList, 'Unarchive a list'],
  ] as const) {
    api.add(
      {
        method: 'post',
        path: `/lists/:listId/${action}`,
        summary,
        tag: TAG,
        access: 'member',
        params: ListParams,
        responses: { 200: { description: 'List', schema: ListSummarySchema }, 404: notFound },
      },
      async (ctx, { actor, params }) => {
        ctx.body = await writeAs(deps, actor, (w) => fn(w, actor, params.listId));
      },
    );
  }

  api.add(
    {
      method: 'delete',
      path: '/lists/:listId',
      summary: 'Delete a list and its items',
      tag: TAG,
      access: 'member',
      params: ListParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound },
    },
    async (ctx, { actor, params }) => {
      await writeAs(deps, actor, (w) => deleteList(w, actor, params.listId));
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'post',
      path: '/lists/:listId/items',
      summary: 'Add an item (a remembered section applies when none is given)',
      tag: TAG,
      access: 'member',
      params: ListParams,
      body: ItemBody,
      bodyRefs: ['sectionId', ...QUANTITY_REFS],
      responses: {
        201: { description: 'Created', schema: ItemSchema },
        200: { description: 'An item with that id already exists in the family', schema: ItemSchema },
        400: { description: 'Invalid; unit_not_found, product_not_found or section_not_found' },
        404: notFound,
        409: { description: 'Id taken elsewhere (id_conflict)' },
      },
    },
    async (ctx, { actor, params, body }) => {
      const r = await writeAs(deps, actor, (w) => createItem(w, actor, params.listId, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/lists/:listId/items/:itemId',
      summary: 'Edit an item (partial), including checked',
      tag: TAG,
      access: 'member',
      params: ItemParams,
      body: ItemPatchBody,
      bodyRefs: ['sectionId', ...QUANTITY_REFS],
      responses: {
        200: { description: 'Item', schema: ItemSchema },
        400: { description: 'Invalid; unit_not_found, product_not_found or section_not_found' },
        404: { description: 'Not found, or the item is removed' },
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) => updateItem(w, actor, params.listId, params.itemId, body));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/lists/:listId/items/:itemId/toggle',
      summary: 'Flip the checked state of an item',
      tag: TAG,
      access: 'member',
      params: ItemParams,
      responses: {
        200: { description: 'Item', schema: ItemSchema },
        404: { description: 'Not found, or the item is removed' },
      },
    },
    async (ctx, { actor, params }) => {
      ctx.body = await writeAs(deps, actor, (w) => toggleItem(w, actor, params.listId, params.itemId));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/lists/:listId/items/:itemId',
      summary: 'Remove an item (soft; undo with restore)',
      tag: TAG,
      access: 'member',
      params: ItemParams,
      responses: {
        200: { description: 'The removed item (unchanged when already removed)', schema: ItemSchema },
        404: notFound,
      },
    },
    async (ctx, { actor, params }) => {
      ctx.body = await writeAs(deps, actor, (w) => removeItem(w, actor, params.listId, params.itemId));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/lists/:listId/items/:itemId/restore',
      summary: 'Restore a removed item',
      tag: TAG,
      access: 'member',
      params: ItemParams,
      responses: {
        200: { description: 'The active item (unchanged when already active)', schema: ItemSchema },
        404: notFound,
      },
    },
    async (ctx, { actor, params }) => {
      ctx.body = await writeAs(deps, actor, (w) => restoreItem(w, actor, params.listId, params.itemId));
    },
  );

  // --- the daily loop (contract §10) ---------------------------------------------------------

  api.add(
    {
      method: 'get',
      path: '/lists/:listId/suggestions',
      summary:
        'Suggestions: what the family added in the last 180 days (removed items too) that is not on the list, most often added first',
      tag: TAG,
      access: 'member',
      params: ListParams,
      query: SuggestionsQuery,
      responses: {
        200: { description: 'Suggestions', schema: z.array(SuggestionSchema) },
        400: { description: 'Invalid limit (validation_failed)' },
        404: notFound,
      },
    },
    async (ctx, { actor, params, query }) => {
      ctx.body = await listSuggestions(deps, actor, params.listId, query.limit);
    },
  );

  const ItemsResult = z.object({ items: z.array(ItemSchema) });

  api.add(
    {
      method: 'post',
      path: '/lists/:listId/clear-checked',
      summary: 'Done shopping: remove every active checked item of the list (soft; undo with restore-items)',
      tag: TAG,
      access: 'member',
      params: ListParams,
      responses: { 200: { description: 'The items removed (none: empty)', schema: ItemsResult }, 404: notFound },
    },
    async (ctx, { actor, params }) => {
      ctx.body = { items: await writeAs(deps, actor, (w) => clearChecked(w, actor, params.listId)) };
    },
  );

  api.add(
    {
      method: 'post',
      path: '/lists/:listId/restore-items',
      summary: 'Restore many items of the list at once (undo of clear-checked)',
      tag: TAG,
      access: 'member',
      params: ListParams,
      body: RestoreItemsBody,
      // No bodyRefs: an id that is not this list's is `validation_failed` (§10), not `*_not_found`.
      responses: {
        200: { description: 'The items, active (those already active unchanged)', schema: ItemsResult },
        400: { description: 'Invalid, or an id is not an item of this list (validation_failed); nothing restored' },
        404: notFound,
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = { items: await writeAs(deps, actor, (w) => restoreItems(w, actor, params.listId, body.itemIds)) };
    },
  );
}
