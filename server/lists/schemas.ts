// Request bodies and response records of lists and items: the protocol's inputs and shapes (the
// same rules push and the SDK's domain layer apply), named as the routes use them.
import { z } from 'zod';
import {
  QUANTITY_REFS as PROTOCOL_QUANTITY_REFS,
  itemAddInput,
  itemUpdateInput,
  listCreateInput,
  listDetailSchema,
  listSummarySchema,
  listUpdateInput,
  recordSchemas,
} from '@family-shopping/client/protocol';

export const QUANTITY_REFS: string[] = [...PROTOCOL_QUANTITY_REFS];

export const ItemBody = itemAddInput;
export const ItemPatchBody = itemUpdateInput;
export const ListBody = listCreateInput;
export const ListPatchBody = listUpdateInput;
export const ListsQuery = z.object({ archived: z.enum(['true', 'false']).optional() });

export const ItemSchema = recordSchemas.items;
export const ListSummarySchema = listSummarySchema;
export const ListDetailSchema = listDetailSchema;
