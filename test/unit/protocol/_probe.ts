import type { Doc, DocData } from '../../../client-sdk/src/protocol/docs.js';
import { rxSchemas, docSchemas } from '../../../client-sdk/src/protocol/docs.js';
import type { RxJsonSchema } from 'rxdb';
type X = Doc<'items'>;
const x: X = null as unknown as X;
export const q: number | null = x.quantity;
export const k: 'global' | 'family' = (null as unknown as Doc<'products'>).kind;
// @ts-expect-error
export const bad: string = x.quantity;
export const s: RxJsonSchema<DocData<'items'>> = rxSchemas.items;
export const s2: RxJsonSchema<DocData<'products'>> = rxSchemas.products;
type Y = Doc<'units'>;
declare const y: Y; export const yc: string | null = y.code;
export const z2 = docSchemas.items.shape.name;
