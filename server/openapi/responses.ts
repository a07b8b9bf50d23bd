// Helpers for the `responses` of a route declaration. Error responses (problem+json) are added
// to the OpenAPI document from the declaration itself (validation, auth, path ids, body size),
// so a spec only needs its success response and the conflicts it can answer.
import { z } from 'zod';
import type { ResponseSpec } from '../http/route.js';

/** 200 with a JSON body (schema optional: documented as any JSON when missing). */
export const ok = (schema?: z.core.$ZodType, description = 'OK'): Record<number, ResponseSpec> => ({
  200: { description, schema },
});

/** 204 without a body. */
export const noContent = (description = 'Done, no content'): Record<number, ResponseSpec> => ({
  204: { description },
});

/** The 404 of a route whose path names a record. */
export const NOT_FOUND: ResponseSpec = { description: 'Not found' };

/** A create with a client-chosen id (`Created`): 201 with the new record, 200 with the record
 *  the family already has under that id (a re-send), 409 when the id is taken elsewhere; then
 *  the route's own (a status of both joins their codes: a 409 of the route's own adds to
 *  `id_conflict`). */
export const createdById = (
  schema: z.core.$ZodType,
  /** The record with its article, as the 200 names it: `A list`, `An item`. */
  aRecord: string,
  more: Record<number, ResponseSpec> = {},
): Record<number, ResponseSpec> =>
  responses(
    {
      201: { description: 'Created', schema },
      200: { description: `${aRecord} with that id already exists in the family`, schema },
      ...problem(409, 'id_conflict'),
    },
    more,
  );

/** A delete: 204 without a body, 404 when the path names no record; then the route's own. */
export const deleted = (more: Record<number, ResponseSpec> = {}): Record<number, ResponseSpec> => ({
  204: { description: 'Deleted' },
  404: NOT_FOUND,
  ...more,
});

/** An error response; the body is problem+json. List the `code`s the client may see (the
 *  document names them after the description). */
export const problem = (status: number, ...codes: string[]): Record<number, ResponseSpec> => ({
  [status]: { description: 'Refused', codes },
});

/** Merge several response helpers: `responses: responses(ok(X), problem(409, 'duplicate_name'))`. */
export function responses(...parts: Record<number, ResponseSpec>[]): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {};
  for (const p of parts) {
    for (const [status, spec] of Object.entries(p)) {
      const n = Number(status);
      const prev = out[n];
      // Several problem entries of one status: join their codes.
      out[n] =
        prev && n >= 400
          ? {
              description:
                prev.description === spec.description ? prev.description : `${prev.description}; ${spec.description}`,
              codes: [...(prev.codes ?? []), ...(spec.codes ?? [])],
            }
          : spec;
    }
  }
  return out;
}

/** A copy of `schema` named `id` in the OpenAPI components (like classic zod's `.meta({ id })`,
 *  which the protocol's `zod/mini` schemas do not have). */
export function named<T extends z.core.$ZodType>(schema: T, id: string): T {
  const copy = z.core.clone(schema);
  // The original's metadata (rules in JSON Schema form, protocol/rules.ts) stays with the copy.
  z.globalRegistry.add(copy, { ...z.globalRegistry.get(schema), id });
  return copy;
}
