// HTTP for the product and unit catalogs (contract section 4, Products and Units).
import { z } from 'zod';
import type { Deps } from '../context.js';
import type { ApiRouter } from '../http/route.js';
import { familyWrite } from '../db/family-write.js';
import { deleteProductAndUnlinkItems } from '../lists/public.js';
import {
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  productCreateInput,
  productOverrideInput,
  productUpdateInput,
  unitCreateInput,
  unitUpdateInput,
} from '@family-shopping/client/protocol';
import { ProductRecordSchema, UnitRecordSchema } from './records.js';
import { uuid } from '../shared/common.js';
import {
  clearOverride,
  createFamilyProduct,
  createFamilyUnit,
  deleteFamilyUnit,
  listUnits,
  searchProducts,
  setOverride,
  updateFamilyProduct,
  updateFamilyUnit,
} from './service.js';
import { createdById, noContent, ok, problem, responses } from '../openapi/responses.js';

export { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX };

const SearchQuery = z.object({
  q: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Case-insensitive substring of the name; prefix matches first' }),
  limit: z.coerce.number().int().min(1).max(SEARCH_LIMIT_MAX).default(SEARCH_LIMIT_DEFAULT),
});
const FamilyProductParams = z.object({ familyProductId: uuid() });
const ProductParams = z.object({ productId: uuid() });
const UnitParams = z.object({ unitId: uuid() });

// Bodies: the protocol's inputs (the rules push and the SDK apply too).
const FamilyProductCreate = productCreateInput;
const FamilyProductPatch = productUpdateInput;
const OverrideBody = productOverrideInput;
const FamilyUnitCreate = unitCreateInput;
const FamilyUnitPatch = unitUpdateInput;

export function registerCatalogRoutes(api: ApiRouter, deps: Deps): void {
  const tag = 'Catalog';

  api.add(
    {
      method: 'get',
      path: '/products',
      summary: 'Search the effective product catalog (global with overrides, plus family products)',
      tag,
      access: 'member',
      query: SearchQuery,
      responses: ok(z.array(ProductRecordSchema)),
    },
    async (ctx, { query, actor }) => {
      ctx.body = await searchProducts(deps.db, actor.familyId, query.q ?? '', query.limit);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/products',
      summary: 'Create a family product',
      tag,
      access: 'member',
      body: FamilyProductCreate,
      responses: createdById(ProductRecordSchema, 'A product', problem(409, 'duplicate_name')),
    },
    async (ctx, { body, actor }) => {
      const r = await familyWrite(deps, actor.familyId, (w) => createFamilyProduct(w, actor, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/products/:familyProductId',
      summary: 'Change a family product',
      tag,
      access: 'member',
      params: FamilyProductParams,
      body: FamilyProductPatch,
      responses: responses(ok(ProductRecordSchema), problem(409, 'duplicate_name')),
    },
    async (ctx, { params, body, actor }) => {
      ctx.body = await familyWrite(deps, actor.familyId, (w) =>
        updateFamilyProduct(w, actor, params.familyProductId, body),
      );
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/products/:familyProductId',
      summary: 'Delete a family product (items and ingredients keep their name, lose the link)',
      tag,
      access: 'member',
      params: FamilyProductParams,
      responses: noContent(),
    },
    async (ctx, { params, actor }) => {
      await familyWrite(deps, actor.familyId, (w) => deleteProductAndUnlinkItems(w, actor, params.familyProductId));
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'put',
      path: '/products/:productId/override',
      summary: "Set the family's override of a global product",
      tag,
      access: 'member',
      params: ProductParams,
      body: OverrideBody,
      responses: ok(ProductRecordSchema, 'The effective product'),
    },
    async (ctx, { params, body, actor }) => {
      ctx.body = await familyWrite(deps, actor.familyId, (w) => setOverride(w, actor, params.productId, body));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/products/:productId/override',
      summary: "Drop the family's override of a global product",
      tag,
      access: 'member',
      params: ProductParams,
      responses: noContent(),
    },
    async (ctx, { params, actor }) => {
      await familyWrite(deps, actor.familyId, (w) => clearOverride(w, actor, params.productId));
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'get',
      path: '/units',
      summary: 'The effective unit catalog: global units, then the family units',
      tag,
      access: 'member',
      responses: ok(z.array(UnitRecordSchema)),
    },
    async (ctx, { actor }) => {
      ctx.body = await listUnits(deps.db, actor.familyId);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/units',
      summary: 'Create a family unit',
      tag,
      access: 'member',
      body: FamilyUnitCreate,
      responses: createdById(UnitRecordSchema, 'A unit', problem(409, 'abbreviation_taken')),
    },
    async (ctx, { body, actor }) => {
      const r = await familyWrite(deps, actor.familyId, (w) => createFamilyUnit(w, actor, body));
      ctx.status = r.created ? 201 : 200;
      ctx.body = r.record;
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/units/:unitId',
      summary: 'Change a family unit',
      tag,
      access: 'member',
      params: UnitParams,
      body: FamilyUnitPatch,
      responses: responses(ok(UnitRecordSchema), problem(409, 'abbreviation_taken')),
    },
    async (ctx, { params, body, actor }) => {
      ctx.body = await familyWrite(deps, actor.familyId, (w) => updateFamilyUnit(w, actor, params.unitId, body));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/units/:unitId',
      summary: 'Delete a family unit (blocked while an ingredient or any list item uses it)',
      tag,
      access: 'member',
      params: UnitParams,
      responses: responses(noContent(), problem(409, 'unit_in_use')),
    },
    async (ctx, { params, actor }) => {
      await familyWrite(deps, actor.familyId, (w) => deleteFamilyUnit(w, actor, params.unitId));
      ctx.status = 204;
    },
  );
}
