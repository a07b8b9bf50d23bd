// HTTP for stores and sections (contract §4 "Stores and sections").
import { z } from 'zod';
import type { Deps } from '../context.js';
import type { ApiRouter } from '../http/route.js';
import {
  recordSchemas,
  sectionAddInput,
  sectionOrderInput,
  sectionUpdateInput,
  storeCreateInput,
  storeUpdateInput,
} from '@family-shopping/client/protocol';
import { uuid, writeAs } from '../shared/common.js';
import { deleteStoreAndDetachLists } from '../lists/public.js';
import {
  createSection,
  createStore,
  deleteSection,
  getStore,
  listSections,
  listStores,
  renameStore,
  reorderSections,
  updateSection,
} from './service.js';

// Bodies and records: the protocol's inputs and shapes (the rules push and the SDK apply too).
export const SectionSchema = recordSchemas.sections;
export const StoreSchema = z.object({
  id: recordSchemas.stores.shape.id,
  name: recordSchemas.stores.shape.name,
  sections: z.array(recordSchemas.sections),
  createdAt: recordSchemas.stores.shape.createdAt,
  updatedAt: recordSchemas.stores.shape.updatedAt,
});

const StoreParams = z.object({ storeId: uuid() });
const SectionParams = z.object({ storeId: uuid(), sectionId: uuid() });

const StoreBody = storeCreateInput;
const StorePatch = storeUpdateInput;
const SectionBody = sectionAddInput;
const SectionPatch = sectionUpdateInput;
const OrderBody = sectionOrderInput;

const TAG = 'Stores';

export function registerStoreRoutes(api: ApiRouter, deps: Deps): void {
  api.add(
    {
      method: 'get',
      path: '/stores',
      summary: "List the family's stores with their sections",
      tag: TAG,
      access: 'member',
      responses: { 200: { description: 'Stores', schema: z.array(StoreSchema) } },
    },
    async (ctx, { actor }) => {
      ctx.body = await listStores(deps, actor);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/stores',
      summary: 'Create a store with the default sections',
      tag: TAG,
      access: 'member',
      body: StoreBody,
      responses: {
        201: { description: 'Created', schema: StoreSchema },
        200: { description: 'A store with that id already exists in the family', schema: StoreSchema },
        409: { description: 'Name taken (duplicate_name) or id taken elsewhere (id_conflict)' },
      },
    },
    async (ctx, { actor, body }) => {
      const r = await writeAs(deps, actor, (w) => createStore(w, actor, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
  );

  api.add(
    {
      method: 'get',
      path: '/stores/:storeId',
      summary: 'Get a store with its sections',
      tag: TAG,
      access: 'member',
      params: StoreParams,
      responses: { 200: { description: 'Store', schema: StoreSchema }, 404: { description: 'Not found' } },
    },
    async (ctx, { actor, params }) => {
      ctx.body = await getStore(deps, actor, params.storeId);
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/stores/:storeId',
      summary: 'Rename a store',
      tag: TAG,
      access: 'member',
      params: StoreParams,
      body: StorePatch,
      responses: {
        200: { description: 'Store', schema: StoreSchema },
        404: { description: 'Not found' },
        409: { description: 'Name taken (duplicate_name)' },
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) => renameStore(w, actor, params.storeId, body));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/stores/:storeId',
      summary: 'Delete a store; its lists lose their store and its items their section',
      tag: TAG,
      access: 'member',
      params: StoreParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    },
    async (ctx, { actor, params }) => {
      await writeAs(deps, actor, (w) => deleteStoreAndDetachLists(w, actor, params.storeId));
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'get',
      path: '/stores/:storeId/sections',
      summary: "A store's sections in walking order",
      tag: TAG,
      access: 'member',
      params: StoreParams,
      responses: {
        200: { description: 'Sections', schema: z.array(SectionSchema) },
        404: { description: 'Not found' },
      },
    },
    async (ctx, { actor, params }) => {
      ctx.body = await listSections(deps, actor, params.storeId);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/stores/:storeId/sections',
      summary: 'Add a section (appended when no position is given)',
      tag: TAG,
      access: 'admin',
      params: StoreParams,
      body: SectionBody,
      responses: {
        201: { description: 'Created', schema: SectionSchema },
        200: { description: 'A section with that id already exists in the family', schema: SectionSchema },
        403: { description: 'Not an admin' },
        404: { description: 'Not found' },
        409: { description: 'Id taken elsewhere (id_conflict)' },
      },
    },
    async (ctx, { actor, params, body }) => {
      const r = await writeAs(deps, actor, (w) => createSection(w, actor, params.storeId, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
  );

  // Registered before `/sections/:sectionId` so "order" is never taken for a section id.
  api.add(
    {
      method: 'put',
      path: '/stores/:storeId/sections/order',
      summary: "Reorder a store's sections (exactly the store's section ids)",
      tag: TAG,
      access: 'admin',
      params: StoreParams,
      body: OrderBody,
      bodyRefs: ['sectionIds'],
      responses: {
        200: { description: 'Sections in the new order', schema: z.array(SectionSchema) },
        400: { description: "Not exactly the store's section ids" },
        403: { description: 'Not an admin' },
        404: { description: 'Not found' },
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) => reorderSections(w, actor, params.storeId, body.sectionIds));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/stores/:storeId/sections/:sectionId',
      summary: 'Rename a section and/or set its category',
      tag: TAG,
      access: 'admin',
      params: SectionParams,
      body: SectionPatch,
      responses: {
        200: { description: 'Section', schema: SectionSchema },
        403: { description: 'Not an admin' },
        404: { description: 'Not found' },
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await writeAs(deps, actor, (w) => updateSection(w, actor, params.storeId, params.sectionId, body));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/stores/:storeId/sections/:sectionId',
      summary: 'Delete a section; its items survive with sectionId null',
      tag: TAG,
      access: 'admin',
      params: SectionParams,
      responses: {
        204: { description: 'Deleted' },
        403: { description: 'Not an admin' },
        404: { description: 'Not found' },
      },
    },
    async (ctx, { actor, params }) => {
      await writeAs(deps, actor, (w) => deleteSection(w, actor, params.storeId, params.sectionId));
      ctx.status = 204;
    },
  );
}
