// HTTP for replication (contract §6): GET /api/sync/:collection/pull, POST /api/sync/:collection/push.
// Order of checks: authentication (401) → collection (404) → schema version (426 / 400) →
// checkpoint, limit, body (400) → 410 for an expired checkpoint.
import { z } from 'zod';
import type { Deps } from '../context.js';
import type { ApiRouter } from '../http/route.js';
import { AppError, badRequest, notFound, validationFailed } from '../errors.js';
import { zodErrors } from '../errors.js';
import {
  COLLECTIONS,
  PULL_LIMIT_DEFAULT,
  PULL_LIMIT_MAX,
  MIN_SCHEMA_VERSION,
  PUSH_MAX_ROWS,
  SCHEMA_VERSION,
  checkpointSchema,
  decodeCheckpoint,
  isCollectionName,
  rejectedRowSchema,
  type CollectionName,
} from '@family-shopping/client/protocol';
import { pullBody, pullDocs } from './pull.js';
import { pushDocs } from './push.js';

const TAG = 'Replication';
// A string here, so that an unknown collection reaches collectionOf (404); documented as the enum.
const Params = z.object({
  collection: z.string().meta({ description: `One of ${COLLECTIONS.join(', ')}`, enum: [...COLLECTIONS] }),
});
const PullQuery = z.object({
  checkpoint: z
    .string()
    .optional()
    .meta({ description: 'URL-encoded JSON of the last response checkpoint; absent: from the start' }),
  limit: z
    .string()
    .optional()
    // Parsed by the handler (parseLimit); the document gives the number it must be.
    .meta({
      description: `Page size, default ${PULL_LIMIT_DEFAULT}, max ${PULL_LIMIT_MAX}`,
      type: 'integer',
      minimum: 1,
      maximum: PULL_LIMIT_MAX,
      default: PULL_LIMIT_DEFAULT,
    }),
  schema: z
    .string()
    .optional()
    // Optional here so that its absence reaches checkSchema (426); documented as required.
    .meta({
      description:
        `Client schema version: ${SCHEMA_VERSION} (current) or ${MIN_SCHEMA_VERSION} (the oldest served: its docs ` +
        `leave out the fields added since, e.g. a product's englishName); below ${MIN_SCHEMA_VERSION}: 426 schema_outdated`,
      // No minimum/maximum: below MIN_SCHEMA_VERSION answers 426, not the 400 a bound promises.
      type: 'integer',
      'x-required': true,
    }),
});
const PushQuery = z.object({ schema: PullQuery.shape.schema });
const Doc = z.looseObject({ id: z.string(), _deleted: z.boolean() });

function collectionOf(raw: string): CollectionName {
  if (!isCollectionName(raw)) throw notFound('Unknown collection');
  return raw;
}

/** `schema=`: absent or older than MIN_SCHEMA_VERSION → 426 schema_outdated; newer than this
 *  server → 400; else the version the client speaks. */
export function checkSchema(raw: string | undefined): number {
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  if (raw !== undefined && raw !== '' && !Number.isInteger(n)) {
    throw validationFailed([{ path: 'query.schema', message: 'must be an integer' }]);
  }
  if (Number.isNaN(n) || n < MIN_SCHEMA_VERSION) {
    throw new AppError(
      426,
      'schema_outdated',
      `This client speaks an outdated schema; upgrade to schema ${SCHEMA_VERSION}`,
    );
  }
  if (n > SCHEMA_VERSION) {
    throw badRequest('schema_unsupported', `This server speaks schema ${SCHEMA_VERSION}`, [
      { path: 'query.schema', message: `at most ${SCHEMA_VERSION}` },
    ]);
  }
  return n;
}

/** Made once: building a zod schema costs more than checking a value with it. */
const Limit = z.coerce.number().int().min(1).max(PULL_LIMIT_MAX);

function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return PULL_LIMIT_DEFAULT;
  const r = Limit.safeParse(raw);
  if (!r.success) throw validationFailed(zodErrors(r.error, 'query.limit'));
  return r.data;
}

function parseCheckpoint(raw: string | undefined) {
  try {
    return decodeCheckpoint(raw);
  } catch (err) {
    throw validationFailed([{ path: 'query.checkpoint', message: (err as Error).message }]);
  }
}

export function registerSyncRoutes(api: ApiRouter, deps: Deps): void {
  api.add(
    {
      method: 'get',
      path: '/sync/:collection/pull',
      summary: 'Replication pull: docs after a checkpoint, in commit order',
      tag: TAG,
      access: 'member',
      params: Params,
      query: PullQuery,
      responses: {
        200: {
          description: 'A page of docs and the next checkpoint',
          schema: z.object({ documents: z.array(Doc), checkpoint: z.nullable(checkpointSchema) }),
        },
        400: { description: 'Invalid checkpoint or limit (validation_failed), or a newer schema (schema_unsupported)' },
        404: { description: 'Unknown collection' },
        410: { description: 'checkpoint_expired: re-sync from scratch' },
        426: { description: 'schema_outdated: upgrade the client' },
      },
    },
    async (ctx, { params, query, actor }) => {
      const collection = collectionOf(params.collection);
      const schema = checkSchema(query.schema);
      const limit = parseLimit(query.limit);
      const checkpoint = parseCheckpoint(query.checkpoint);
      ctx.type = 'application/json';
      const page = await pullDocs(deps, actor.familyId, collection, checkpoint, limit, schema);
      ctx.body = pullBody(page);
      deps.metrics?.replicationRowsPulled.inc(
        { collection },
        Array.isArray(page.documents) ? page.documents.length : page.documents.count,
      );
    },
  );

  api.add(
    {
      method: 'post',
      path: '/sync/:collection/push',
      summary: `Replication push: up to ${PUSH_MAX_ROWS} rows of { assumedMasterState?, newDocumentState }, applied in one transaction`,
      tag: TAG,
      access: 'member',
      params: Params,
      query: PushQuery,
      responses: {
        200: {
          description: 'Conflicts (server docs to merge) and rejected rows',
          schema: z.object({ conflicts: z.array(Doc), rejected: z.array(rejectedRowSchema) }),
        },
        400: { description: 'Not an array of push rows, or more than 500 (validation_failed)' },
        404: { description: 'Unknown collection' },
        426: { description: 'schema_outdated: upgrade the client' },
      },
    },
    async (ctx, { params, query, actor }) => {
      const collection = collectionOf(params.collection);
      const schema = checkSchema(query.schema);
      const body = (ctx.request as unknown as { body?: unknown }).body;
      const result = await pushDocs(deps, actor, collection, body, deps.push ?? { bulk: true }, schema);
      ctx.body = result;
      if (deps.metrics && Array.isArray(body)) {
        // A rejected row's server state is in `conflicts` too: it counts as rejected only.
        const rejectedIds = new Set(result.rejected.map((r) => r.id));
        const conflicts = result.conflicts.filter((d) => !rejectedIds.has(String(d.id))).length;
        const rejected = result.rejected.length;
        const pushed = deps.metrics.replicationRowsPushed;
        pushed.inc({ collection, outcome: 'accepted' }, Math.max(0, body.length - conflicts - rejected));
        pushed.inc({ collection, outcome: 'conflict' }, conflicts);
        pushed.inc({ collection, outcome: 'rejected' }, rejected);
      }
    },
  );
}
