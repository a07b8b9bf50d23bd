// Zod schemas of list and item request bodies and response records (validation and OpenAPI).
import { z } from 'zod';
import { name, note, quantity, uuid } from './common.js';

const ts = () => z.iso.datetime({ offset: true });

/** Quantity, unit pair, approximation, note and product pair: shared by items and ingredients. */
export const quantityFields = {
  quantity: quantity().nullable().optional(),
  unitOfMeasureId: uuid().nullable().optional(),
  familyUnitOfMeasureId: uuid().nullable().optional(),
  isApproximate: z.boolean().optional(),
  quantityNote: note().nullable().optional(),
  productId: uuid().nullable().optional(),
  familyProductId: uuid().nullable().optional(),
};

export const QUANTITY_REFS = ['unitOfMeasureId', 'familyUnitOfMeasureId', 'productId', 'familyProductId'];

export const ItemBody = z.object({
  id: uuid().optional(),
  name: name(500),
  ...quantityFields,
  sectionId: uuid().nullable().optional(),
});

export const ItemPatchBody = z.object({
  name: name(500).optional(),
  ...quantityFields,
  sectionId: uuid().nullable().optional(),
  checked: z.boolean().optional(),
});

export const ListBody = z.object({ id: uuid().optional(), name: name(200), storeId: uuid().nullable().optional() });
export const ListPatchBody = z.object({ name: name(200).optional(), storeId: uuid().nullable().optional() });
export const ListsQuery = z.object({ archived: z.enum(['true', 'false']).optional() });

export const ItemSchema = z.object({
  id: z.uuid(),
  listId: z.uuid(),
  name: z.string(),
  quantity: z.number().nullable(),
  unitOfMeasureId: z.uuid().nullable(),
  familyUnitOfMeasureId: z.uuid().nullable(),
  isApproximate: z.boolean(),
  quantityNote: z.string().nullable(),
  productId: z.uuid().nullable(),
  familyProductId: z.uuid().nullable(),
  sectionId: z.uuid().nullable(),
  checked: z.boolean(),
  checkedAt: ts().nullable(),
  removedAt: ts().nullable(),
  removedByUserId: z.uuid().nullable(),
  createdAt: ts(),
  updatedAt: ts(),
});

export const ListSummarySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  storeId: z.uuid().nullable(),
  archivedAt: ts().nullable(),
  itemCount: z.int(),
  checkedCount: z.int(),
  createdAt: ts(),
  updatedAt: ts(),
});

export const ListDetailSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  storeId: z.uuid().nullable(),
  archivedAt: ts().nullable(),
  createdAt: ts(),
  updatedAt: ts(),
  groups: z.array(
    z.object({
      sectionId: z.uuid().nullable(),
      name: z.string(),
      position: z.int().nullable(),
      items: z.array(ItemSchema),
    }),
  ),
});
