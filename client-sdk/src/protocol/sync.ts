/**
 * Replication endpoints (api-contract §6), in the shape of RxDB's replication protocol:
 *
 *   GET  /api/sync/{collection}/pull?checkpoint=&limit=&schema=
 *        → 200 { documents: [doc], checkpoint }
 *   POST /api/sync/{collection}/push?schema=   body [{ assumedMasterState?, newDocumentState }]
 *        → 200 { conflicts: [doc], rejected: [{ id, code, message }] }
 */
import * as z from 'zod/mini';
import { COLLECTIONS, SCHEMA_VERSION, docSchemas, type CollectionName, type Doc } from './docs.js';

export const PULL_LIMIT_DEFAULT = 100;
export const PULL_LIMIT_MAX = 1000;
export const PUSH_MAX_ROWS = 500;

/** The doc fields that name a record of another family collection (a family's own unit or
 *  product for `units`/`products`). A pushed row naming one the server has never seen is
 *  `parent_missing`; a client may wait for that record's own push, or revert the row when the
 *  record is not in its local database either. */
export const DOC_REFERENCES: Partial<Record<CollectionName, ReadonlyArray<readonly [string, CollectionName]>>> = {
  lists: [['storeId', 'stores']],
  sections: [['storeId', 'stores']],
  items: [
    ['listId', 'lists'],
    ['sectionId', 'sections'],
    ['familyUnitOfMeasureId', 'units'],
    ['familyProductId', 'products'],
  ],
  ingredients: [
    ['recipeId', 'recipes'],
    ['familyUnitOfMeasureId', 'units'],
    ['familyProductId', 'products'],
  ],
};

// ---------------------------------------------------------------------------
// Checkpoint

/**
 * Pull cursor. `version`/`id` is the position in the family's `(version, id)` commit
 * order. The effective catalogs (`products`, `units`) also follow the global catalog
 * counter; their second cursor is `catalogVersion`/`catalogId` (absent for the other
 * collections and before the first catalog row). The client treats the checkpoint as
 * opaque and sends back the last one it received.
 */
export const checkpointSchema = z.object({
  version: z.int().check(z.minimum(0)),
  id: z.string().check(z.maxLength(64)),
  catalogVersion: z.optional(z.int().check(z.minimum(0))),
  catalogId: z.optional(z.string().check(z.maxLength(64))),
});
export type Checkpoint = z.output<typeof checkpointSchema>;

export class InvalidCheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidCheckpointError';
  }
}

/**
 * Encode a checkpoint for the `checkpoint` query parameter: URL-encoded JSON.
 * `url + '?checkpoint=' + encodeCheckpoint(cp)`. (`URLSearchParams.set('checkpoint',
 * JSON.stringify(cp))` is equivalent.)
 */
export function encodeCheckpoint(checkpoint: Checkpoint): string {
  return encodeURIComponent(JSON.stringify(checkpointSchema.parse(checkpoint)));
}

/**
 * Decode the `checkpoint` query parameter. Accepts the value either still URL-encoded
 * (`%7B...`) or already decoded by the HTTP framework (`{...}`). An absent or empty
 * value, or the JSON `null`, means "from the start" and yields `null`.
 * @throws InvalidCheckpointError on anything else that is not a valid checkpoint.
 */
export function decodeCheckpoint(raw: string | null | undefined): Checkpoint | null {
  if (raw == null) return null;
  let text = raw.trim();
  if (text === '') return null;
  if (!text.startsWith('{') && text !== 'null') {
    try {
      text = decodeURIComponent(text).trim();
    } catch {
      throw new InvalidCheckpointError('checkpoint is not valid URL encoding');
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InvalidCheckpointError('checkpoint is not valid JSON');
  }
  if (json === null) return null;
  const parsed = checkpointSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidCheckpointError(`checkpoint is invalid: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

// ---------------------------------------------------------------------------
// Query strings

/** `schema=`: the client's wire schema version (see SCHEMA_VERSION). Required. The
 * server answers one below MIN_SCHEMA_VERSION with `426 schema_outdated`. */
const schemaParam = z.pipe(z.coerce.number(), z.int().check(z.minimum(0)));

/**
 * Pull query string (values as strings, as HTTP frameworks hand them over).
 * Output: `{ checkpoint: Checkpoint | null, limit: number, schema: number }`.
 * An over-large `limit` fails validation (400), it is not clamped.
 */
export const pullQuerySchema = z.object({
  checkpoint: z.pipe(
    z.optional(z.string()),
    z.transform((raw: string | undefined, ctx): Checkpoint | null => {
      try {
        return decodeCheckpoint(raw);
      } catch (err) {
        ctx.issues.push({ code: 'custom', input: raw, message: (err as Error).message });
        return z.NEVER;
      }
    }),
  ),
  limit: z._default(
    z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(PULL_LIMIT_MAX))),
    PULL_LIMIT_DEFAULT,
  ),
  schema: schemaParam,
});
export type PullQuery = z.output<typeof pullQuerySchema>;

/** Push query string: `{ schema }`. */
export const pushQuerySchema = z.object({ schema: schemaParam });
export type PushQuery = z.output<typeof pushQuerySchema>;

// ---------------------------------------------------------------------------
// Bodies

function mapCollections<T>(make: <C extends CollectionName>(c: C) => T): Record<CollectionName, T> {
  return Object.fromEntries(COLLECTIONS.map((c) => [c, make(c)])) as Record<CollectionName, T>;
}

function pullResponseSchemaOf<C extends CollectionName>(c: C) {
  return z.object({
    documents: z.array(docSchemas[c]),
    checkpoint: z.nullable(checkpointSchema),
  });
}

function pushRowSchemaOf<C extends CollectionName>(c: C) {
  return z.object({
    assumedMasterState: z.optional(z.nullable(docSchemas[c])),
    newDocumentState: docSchemas[c],
  });
}

function pushResponseSchemaOf<C extends CollectionName>(c: C) {
  return z.object({
    conflicts: z.array(docSchemas[c]),
    rejected: z.array(rejectedRowSchema),
  });
}

export const rejectedRowSchema = z.object({
  id: z.string(),
  code: z.string(),
  message: z.string(),
});
export type RejectedRow = z.output<typeof rejectedRowSchema>;

/** `{ documents, checkpoint }` per collection, documents in checkpoint order. When
 * nothing is newer the server echoes the request's checkpoint (`null` only for an
 * empty pull from the start), so the client never moves backwards. */
export const pullResponseSchemas = {
  lists: pullResponseSchemaOf('lists'),
  items: pullResponseSchemaOf('items'),
  stores: pullResponseSchemaOf('stores'),
  sections: pullResponseSchemaOf('sections'),
  recipes: pullResponseSchemaOf('recipes'),
  ingredients: pullResponseSchemaOf('ingredients'),
  products: pullResponseSchemaOf('products'),
  units: pullResponseSchemaOf('units'),
  sectionMemory: pullResponseSchemaOf('sectionMemory'),
} as const;

/** One push row per collection. `assumedMasterState` absent or null: an insert. */
export const pushRowSchemas = {
  lists: pushRowSchemaOf('lists'),
  items: pushRowSchemaOf('items'),
  stores: pushRowSchemaOf('stores'),
  sections: pushRowSchemaOf('sections'),
  recipes: pushRowSchemaOf('recipes'),
  ingredients: pushRowSchemaOf('ingredients'),
  products: pushRowSchemaOf('products'),
  units: pushRowSchemaOf('units'),
  sectionMemory: pushRowSchemaOf('sectionMemory'),
} as const;

/** A whole, fully valid push body (what the SDK sends): at most PUSH_MAX_ROWS rows. */
export const pushRequestSchemas = mapCollections((c) =>
  z.array(pushRowSchemas[c]).check(z.maxLength(PUSH_MAX_ROWS)),
) as {
  readonly [C in CollectionName]: z.ZodMiniArray<(typeof pushRowSchemas)[C]>;
};

/**
 * Server side: the push body's envelope only. A row that fails validation must be
 * listed in `rejected` (not fail the whole request), so the server parses the body
 * with this schema (400 when even this fails: not an array, too many rows, a row
 * without an id), then validates each row with `pushRowSchemas[collection]`.
 */
export const pushEnvelopeSchema = z
  .array(
    z.object({
      assumedMasterState: z.optional(z.unknown()),
      newDocumentState: z.looseObject({ id: z.string().check(z.minLength(1), z.maxLength(64)) }),
    }),
  )
  .check(z.maxLength(PUSH_MAX_ROWS));
export type PushEnvelope = z.output<typeof pushEnvelopeSchema>;

/** `{ conflicts, rejected }` per collection. */
export const pushResponseSchemas = {
  lists: pushResponseSchemaOf('lists'),
  items: pushResponseSchemaOf('items'),
  stores: pushResponseSchemaOf('stores'),
  sections: pushResponseSchemaOf('sections'),
  recipes: pushResponseSchemaOf('recipes'),
  ingredients: pushResponseSchemaOf('ingredients'),
  products: pushResponseSchemaOf('products'),
  units: pushResponseSchemaOf('units'),
  sectionMemory: pushResponseSchemaOf('sectionMemory'),
} as const;

export interface PullResponse<C extends CollectionName> {
  documents: Doc<C>[];
  checkpoint: Checkpoint | null;
}

export interface PushRow<C extends CollectionName> {
  assumedMasterState?: Doc<C> | null;
  newDocumentState: Doc<C>;
}

export type PushRequest<C extends CollectionName> = PushRow<C>[];

export interface PushResponse<C extends CollectionName> {
  conflicts: Doc<C>[];
  rejected: RejectedRow[];
}

/** Path of a replication endpoint, relative to the server origin. */
export function syncPath(collection: CollectionName, op: 'pull' | 'push'): string {
  return `/api/sync/${collection}/${op}`;
}

/** A pull request's path and query (api-contract §6): the client's schema version, the page
 *  size and, from the second page on, the checkpoint (`encodeCheckpoint`). */
export function pullUrl(
  collection: CollectionName,
  checkpoint: Checkpoint | null,
  limit: number,
  schemaVersion: number = SCHEMA_VERSION,
): string {
  const cp = checkpoint ? `&checkpoint=${encodeCheckpoint(checkpoint)}` : '';
  return `${syncPath(collection, 'pull')}?schema=${schemaVersion}&limit=${limit}${cp}`;
}
