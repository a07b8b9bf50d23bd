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
import { uuid } from '../shared/common.js';
import { featureRoutes } from '../http/feature-routes.js';
import { createdById, deleted, NOT_FOUND, problem } from '../openapi/responses.js';
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

const notAdmin = { description: 'Not an admin' };

export function registerStoreRoutes(api: ApiRouter, deps: Deps): void {
  const routes = featureRoutes(api, deps, 'Stores');

  routes.read(
    {
      method: 'get',
      path: '/stores',
      summary: "List the family's stores with their sections",
      responses: { 200: { description: 'Stores', schema: z.array(StoreSchema) } },
    },
    ({ actor }) => listStores(deps, actor),
  );

  routes.create(
    {
      method: 'post',
      path: '/stores',
      summary: 'Create a store with the default sections',
      body: StoreBody,
      responses: createdById(StoreSchema, 'A store', problem(409, 'duplicate_name')),
    },
    (w, { actor, body }) => createStore(w, actor, body),
  );

  routes.read(
    {
      method: 'get',
      path: '/stores/:storeId',
      summary: 'Get a store with its sections',
      params: StoreParams,
      responses: { 200: { description: 'Store', schema: StoreSchema }, 404: NOT_FOUND },
    },
    ({ actor, params }) => getStore(deps, actor, params.storeId),
  );

  routes.write(
    {
      method: 'patch',
      path: '/stores/:storeId',
      summary: 'Rename a store',
      params: StoreParams,
      body: StorePatch,
      responses: {
        200: { description: 'Store', schema: StoreSchema },
        404: NOT_FOUND,
        409: { description: 'Name taken (duplicate_name)' },
      },
    },
    (w, { actor, params, body }) => renameStore(w, actor, params.storeId, body),
  );

  routes.remove(
    {
      method: 'delete',
      path: '/stores/:storeId',
      summary: 'Delete a store; its lists lose their store and its items their section',
      params: StoreParams,
      responses: deleted(),
    },
    (w, { actor, params }) => deleteStoreAndDetachLists(w, actor, params.storeId),
  );

  routes.read(
    {
      method: 'get',
      path: '/stores/:storeId/sections',
      summary: "A store's sections in walking order",
      params: StoreParams,
      responses: { 200: { description: 'Sections', schema: z.array(SectionSchema) }, 404: NOT_FOUND },
    },
    ({ actor, params }) => listSections(deps, actor, params.storeId),
  );

  routes.create(
    {
      method: 'post',
      path: '/stores/:storeId/sections',
      summary: 'Add a section (appended when no position is given)',
      access: 'admin',
      params: StoreParams,
      body: SectionBody,
      responses: createdById(SectionSchema, 'A section', { 403: notAdmin, 404: NOT_FOUND }),
    },
    (w, { actor, params, body }) => createSection(w, actor, params.storeId, body),
  );

  // Registered before `/sections/:sectionId` so "order" is never taken for a section id.
  routes.write(
    {
      method: 'put',
      path: '/stores/:storeId/sections/order',
      summary: "Reorder a store's sections (exactly the store's section ids)",
      access: 'admin',
      params: StoreParams,
      body: OrderBody,
      bodyRefs: ['sectionIds'],
      responses: {
        200: { description: 'Sections in the new order', schema: z.array(SectionSchema) },
        400: { description: "Not exactly the store's section ids" },
        403: notAdmin,
        404: NOT_FOUND,
      },
    },
    (w, { actor, params, body }) => reorderSections(w, actor, params.storeId, body.sectionIds),
  );

  routes.write(
    {
      method: 'patch',
      path: '/stores/:storeId/sections/:sectionId',
      summary: 'Rename a section and/or set its category',
      access: 'admin',
      params: SectionParams,
      body: SectionPatch,
      responses: { 200: { description: 'Section', schema: SectionSchema }, 403: notAdmin, 404: NOT_FOUND },
    },
    (w, { actor, params, body }) => updateSection(w, actor, params.storeId, params.sectionId, body),
  );

  routes.remove(
    {
      method: 'delete',
      path: '/stores/:storeId/sections/:sectionId',
      summary: 'Delete a section; its items survive with sectionId null',
      access: 'admin',
      params: SectionParams,
      responses: deleted({ 403: notAdmin }),
    },
    (w, { actor, params }) => deleteSection(w, actor, params.storeId, params.sectionId),
  );
}
