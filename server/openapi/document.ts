// Builds the OpenAPI 3.1 document from the route table (`ApiRouter.routes`): whatever is
// registered at runtime is documented, nothing is listed by hand. Request and response schemas
// come from the same zod declarations that validate requests (zod 4's `z.toJSONSchema`, JSON
// Schema 2020-12, which is OpenAPI 3.1's schema dialect).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ResponseSpec, RouteSpec } from '../http/route.js';
import { problem } from '../http/errors.js';
import type { ErrorCode } from '../errors.js';
import { serviceUnavailable } from '../db/errors.js';
import { DOCUMENTED, PART_NAMES, ROUTE_NAMES } from './names.js';

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string; license?: Json };
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

const here = path.dirname(fileURLToPath(import.meta.url));

function packageJson(): { version?: string; license?: string } {
  try {
    return JSON.parse(fs.readFileSync(path.join(here, '../../package.json'), 'utf8')) as {
      version?: string;
      license?: string;
    };
  } catch {
    return {};
  }
}

/** What each tag groups, shown by API browsers. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Accounts: registration, sign-in, sessions (short-lived access tokens, rotating refresh tokens), invitation lookup and password reset. Rate-limited per client address.',
  family: "The caller's family: its invite code, members and their roles, and email invitations.",
  Catalog:
    'Products and units: the global catalog (with per-family overrides of product names) and the family’s own products and units.',
  Stores: 'Stores and their sections (aisles) in walking order.',
  Lists: 'Shopping lists and their items: add, check off, remove and restore, archive.',
  Recipes: 'Recipes with their ingredients; copying ingredients onto a shopping list.',
  Replication:
    'RxDB replication of the family data, per collection: pull docs after a checkpoint, push rows (docs/sync.md).',
  Health: 'Liveness and readiness probes, outside /api (docs/operations.md).',
  Docs: 'This OpenAPI document and the browsable API reference.',
};

/** Sample `detail` of the problem examples; other codes show their humanised code. */
const EXAMPLE_DETAILS: Record<string, string> = {
  validation_failed: 'The request is not valid',
  bad_request: 'The request is not valid HTTP',
  unauthenticated: 'Authentication is required',
  invalid_credentials: 'Wrong email or password',
  forbidden: 'You are not allowed to do this',
  not_found: 'Not found',
  payload_too_large: 'The request body exceeds 1 MiB',
  unsupported_media_type: 'Send the request body as application/json',
  rate_limited: 'Too many requests; retry in 42 s',
  internal_error: 'Something went wrong on our side',
  service_unavailable: serviceUnavailable().message,
  not_ready: 'The database is not reachable',
  id_conflict: 'That id is taken by another record',
};

/** The code every problem of a status carries unless the route names others. */
const DEFAULT_CODES: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  426: 'schema_outdated',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** The stable codes a problem response names: declared, or written in its description (a code
 *  of one word is its status' default, `DEFAULT_CODES`, which a response naming none shows). */
export function codesOf(r: ResponseSpec): string[] {
  if (r.codes?.length) return [...new Set(r.codes)];
  return [...new Set([...r.description.matchAll(/(?<![\w*])[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)].map((m) => m[0]))];
}

/** `storeId` → `store_not_found`, `familyUnitOfMeasureId` → `unit_not_found` (body references). */
export function refCode(field: string): string {
  const last = field.split('.').pop()!;
  const base = last
    .replace(/^family(?=[A-Z])/, '')
    .replace(/OfMeasure/, '')
    .replace(/Ids?$/, '');
  return `${base
    .replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    .replace(/^_/, '')
    .toLowerCase()}_not_found`;
}

const humanise = (code: string) => code.charAt(0).toUpperCase() + code.slice(1).replace(/_/g, ' ');

export const PROBLEM_SCHEMA: Json = {
  type: 'object',
  description: 'RFC 9457 problem details; `code` is stable and machine-readable.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', examples: ['validation_failed', 'not_found'] },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string', examples: ['body.name'] }, message: { type: 'string' } },
      },
    },
  },
};

/** Koa path (`/lists/:listId`) → OpenAPI path (`/api/lists/{listId}`). */
export function openApiPath(koaPath: string): string {
  return '/api' + koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function pathParamNames(koaPath: string): string[] {
  return [...koaPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

function operationId(spec: RouteSpec): string {
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const parts = spec.path
    .split('/')
    .filter(Boolean)
    .map((seg) =>
      seg.startsWith(':')
        ? 'By' + cap(seg.slice(1))
        : seg
            .split(/[^A-Za-z0-9]+/)
            .filter(Boolean)
            .map(cap)
            .join(''),
    );
  return spec.method + parts.join('');
}

/**
 * Collects named schemas into components, renaming on clashes. A schema's name comes from
 * `names` (names.ts, by route) or its zod `.meta({ id })`; other metadata (descriptions) is the
 * schema's own.
 */
class SchemaCollector {
  readonly schemas: Record<string, Json> = { Problem: PROBLEM_SCHEMA, ...HEALTH_SCHEMAS };
  private readonly seen = new Map<string, string>(Object.entries(this.schemas).map(([k, v]) => [k, JSON.stringify(v)]));
  private readonly metadata: z.core.$ZodRegistry<Record<string, unknown>>;

  constructor(names: ReadonlyMap<z.core.$ZodType, string>) {
    const registry = z.registry<Record<string, unknown>>();
    registry.get = ((schema: z.core.$ZodType) => {
      const base = z.globalRegistry.get(schema);
      const id = names.get(schema);
      return id ? { ...base, id } : base;
    }) as typeof registry.get;
    this.metadata = registry;
  }

  convert(schema: z.core.$ZodType, io: 'input' | 'output'): Json {
    let json: Json;
    try {
      json = z.toJSONSchema(schema, {
        target: 'draft-2020-12',
        io,
        unrepresentable: 'any',
        metadata: this.metadata,
      }) as Json;
    } catch {
      return {}; // a schema zod cannot describe (should not happen with `unrepresentable: 'any'`)
    }
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    // A name already taken by a different schema (another shape, or the input side of an output
    // one) gets a suffix; renaming one def changes the defs that refer to it, so settle all of
    // them together before storing.
    const finalForm = (def: Json, renames: Map<string, string>) => {
      const stored = rewriteRefs(def, renames);
      return io === 'output' ? openObjects(stored) : stored;
    };
    const renames = new Map<string, string>(Object.keys(defs).map((name) => [name, name]));
    for (let changed = true, rounds = 0; changed && rounds < 20; rounds++) {
      changed = false;
      for (const [name, def] of Object.entries(defs)) {
        const body = JSON.stringify(finalForm(def, renames));
        const current = renames.get(name)!;
        if (this.fits(current, body)) continue;
        renames.set(name, this.candidate(name, body, io));
        changed = true;
      }
    }
    for (const [name, def] of Object.entries(defs)) {
      const stored = finalForm(def, renames);
      const id = renames.get(name)!;
      this.seen.set(id, JSON.stringify(stored));
      this.schemas[id] = stored;
    }
    return finalForm(json, renames);
  }

  private fits(candidate: string, body: string): boolean {
    return !this.seen.has(candidate) || this.seen.get(candidate) === body;
  }

  /** Another name for a def whose own is taken (it is asked only then). */
  private candidate(name: string, body: string, io: 'input' | 'output'): string {
    if (io === 'input' && this.fits(`${name}Input`, body)) return `${name}Input`;
    for (let n = 2; ; n++) if (this.fits(`${name}${n}`, body)) return `${name}${n}`;
  }
}

function rewriteRefs(value: Json, renames: Map<string, string>): Json {
  return JSON.parse(JSON.stringify(value), (key, v) => {
    if (key === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
      const name = v.slice('#/$defs/'.length);
      return `#/components/schemas/${renames.get(name) ?? name}`;
    }
    return v;
  }) as Json;
}

/** Responses document what is sent; other fields may be added later, so objects stay open. */
function openObjects(value: Json): Json {
  return JSON.parse(JSON.stringify(value), (_key, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && v.additionalProperties === false) {
      const { additionalProperties: _drop, ...rest } = v as Json;
      return rest;
    }
    return v;
  }) as Json;
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
};

/** A problem+json response with one example per stable code it can carry, each named in its
 *  description (those the description does not name yet are added after it). */
function problemResponse(status: number, description: string, codes: string[]): Json {
  const examples: Record<string, Json> = {};
  const shown = codes.length ? codes : [DEFAULT_CODES[status] ?? 'error'];
  const unnamed = shown.filter((code) => !new RegExp(`(?<!\\w)${code}(?!\\w)`).test(description));
  if (unnamed.length) description = `${description} (${unnamed.map((c) => `\`${c}\``).join(', ')})`;
  for (const code of shown) {
    // Codes come from route declarations; each is registered (foundation/error-codes.test.ts).
    const value = problem(status, code as ErrorCode, EXAMPLE_DETAILS[code] ?? humanise(code)) as unknown as Json;
    if (code === 'validation_failed')
      value.errors = [{ path: 'body.name', message: 'Too small: expected string to have >=1 characters' }];
    examples[code] = { summary: code, value };
  }
  return {
    description,
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples } },
  };
}

const HEALTH_SCHEMAS: Record<string, Json> = {
  Health: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', const: 'ok' } },
  },
  Readiness: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', const: 'ready' } },
  },
};

/** `/healthz` and `/readyz`, served outside the router (server/app.ts). */
function healthPaths(): OpenApiDocument['paths'] {
  const badRequest = problemResponse(400, 'The request is not valid HTTP (`bad_request`)', ['bad_request']);
  const op = (operationId: string, summary: string, schema: string, extra: Record<string, Json>): Json => ({
    operationId,
    summary,
    tags: ['Health'],
    security: [],
    responses: {
      200: {
        description: 'OK',
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
      },
      400: badRequest,
      ...extra,
    },
  });
  return {
    '/healthz': { get: op('getHealthz', 'Liveness: the process is up (whatever its dependencies)', 'Health', {}) },
    '/readyz': {
      get: op('getReadyz', 'Readiness: the database answers', 'Readiness', {
        503: problemResponse(503, 'The database is not reachable (`not_ready`)', ['not_ready']),
      }),
    },
  };
}

/** The fields of a route's path or query schema (every path parameter is declared in its
 *  route's `params`: the document test checks each is documented, required). */
function parametersOf(
  collector: SchemaCollector,
  schema: z.core.$ZodType | undefined,
  location: 'path' | 'query',
): Json[] {
  const out: Json[] = [];
  const json = schema ? collector.convert(schema, 'input') : {};
  const props = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  for (const [name, prop] of Object.entries(props)) {
    // `x-required`: a query field the router lets through absent so that its handler gives the
    // answer (replication's `schema`: 426 schema_outdated) is documented as required all the same.
    const { description, 'x-required': xRequired, ...propSchema } = prop;
    if (xRequired === true) required.add(name);
    out.push({
      name,
      in: location,
      required: required.has(name),
      ...(description ? { description } : {}),
      schema: propSchema,
    });
  }
  return out;
}

const bodyIsOptional = (schema: z.core.$ZodType): boolean => z.safeParse(schema, {}).success;

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const routeKey = (spec: RouteSpec) => `${spec.method} ${spec.path}`;

/** A list response names its element. */
function recordOf(schema: z.core.$ZodType): z.core.$ZodType {
  return schema instanceof z.core.$ZodArray ? (schema._zod.def.element as z.core.$ZodType) : schema;
}

export function buildOpenApiDocument(routes: readonly RouteSpec[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();

  // Operation ids, then the names of every body and record (names.ts; derived where missing).
  // Unique for our routes: the document tests check it (a clash fails them, never gets a number).
  const opIds = new Map<RouteSpec, string>(routes.map((spec) => [spec, operationId(spec)]));
  const names = new Map<z.core.$ZodType, string>(PART_NAMES);
  const nameOnce = (schema: z.core.$ZodType, name: string) => {
    if (!names.has(schema) && !z.globalRegistry.get(schema)?.id) names.set(schema, name);
  };
  for (const spec of routes) {
    const given = ROUTE_NAMES[routeKey(spec)] ?? {};
    const documented = DOCUMENTED[routeKey(spec)] ?? {};
    const body = documented.body ?? spec.body;
    if (body) nameOnce(body, given.body ?? `${pascal(opIds.get(spec)!)}Input`);
    for (const [status, r] of Object.entries(spec.responses)) {
      const schema = Number(status) < 300 ? (documented.ok ?? r.schema) : undefined;
      if (schema) nameOnce(recordOf(schema), given.ok ?? `${pascal(opIds.get(spec)!)}Response`);
    }
  }
  const collector = new SchemaCollector(names);

  for (const spec of routes) {
    tags.add(spec.tag);
    const p = openApiPath(spec.path);
    const pathNames = pathParamNames(spec.path);
    const opId = opIds.get(spec)!;
    const documented = DOCUMENTED[routeKey(spec)] ?? {};
    const requestBody = documented.body ?? spec.body;

    // Problem responses: the route's own, then those every route of its kind can answer; each
    // lists the codes it carries, with an example of each.
    const problems = new Map<number, { description: string; codes: string[] }>();
    // A status the route declares keeps its description; the codes every such route can answer
    // are added to it (a 404 keeps its own: the invitation lookup answers `invitation_invalid`).
    const addProblem = (status: number, description: string, codes: string[]) => {
      const existing = problems.get(status);
      if (!existing) problems.set(status, { description, codes: [...codes] });
      else if (status !== 404) existing.codes.push(...codes.filter((c) => !existing.codes.includes(c)));
    };
    const responses: Record<string, Json> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      const code = Number(status);
      if (code >= 400) addProblem(code, r.description, codesOf(r));
      else if (code === 204 || code === 205 || code === 304) responses[status] = { description: r.description };
      else {
        const schema = documented.ok ?? r.schema;
        responses[status] = {
          description: r.description,
          content: r.contentType
            ? Object.fromEntries([r.contentType].flat().map((type) => [type, { schema: { type: 'string' } }]))
            : { 'application/json': { schema: schema ? collector.convert(schema, 'output') : {} } },
        };
      }
    }
    if (spec.query || requestBody) {
      addProblem(400, 'The request is not valid (`validation_failed`, `errors[].path` names the field)', [
        'validation_failed',
      ]);
    }
    if (spec.bodyRefs?.length) {
      const codes = [...new Set(spec.bodyRefs.map(refCode))];
      addProblem(400, '', codes);
      const existing = problems.get(400)!;
      if (!codes.every((c) => existing.description.includes(c))) {
        existing.description = `${existing.description}; a referenced record is not the family's (${codes.map((c) => `\`${c}\``).join(', ')})`;
      }
    }
    if (spec.access !== 'public')
      addProblem(401, 'Missing, invalid or expired access token (`unauthenticated`)', ['unauthenticated']);
    if (spec.access === 'admin') addProblem(403, 'Only a family admin can do this (`forbidden`)', ['forbidden']);
    if (pathNames.length) addProblem(404, 'No such record in your family (`not_found`)', ['not_found']);
    if (requestBody) {
      addProblem(413, 'The request body exceeds 1 MiB (`payload_too_large`); the connection is closed', [
        'payload_too_large',
      ]);
      addProblem(415, 'The request body is not JSON (`unsupported_media_type`)', ['unsupported_media_type']);
    }
    if (spec.rateLimit) addProblem(429, 'Too many requests (`rate_limited`); see `Retry-After`', ['rate_limited']);
    if (![...problems.keys()].some((s) => s < 500)) {
      addProblem(400, 'The request is not valid HTTP (`bad_request`), e.g. raw non-ASCII in the target', [
        'bad_request',
      ]);
    }
    addProblem(500, 'Something went wrong on our side (`internal_error`)', ['internal_error']);
    if (spec.usesDatabase !== false) {
      addProblem(503, 'The database cannot be reached (`service_unavailable`); see `Retry-After`', [
        'service_unavailable',
      ]);
    }
    for (const [status, { description, codes }] of [...problems].sort(([x], [y]) => x - y)) {
      responses[String(status)] = problemResponse(status, description, codes);
    }

    const operation: Json = {
      operationId: opId,
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.access === 'admin' ? { description: 'Family admins only.' } : {}),
      security: spec.access === 'public' ? [] : [{ bearerAuth: [] }],
      parameters: [...parametersOf(collector, spec.params, 'path'), ...parametersOf(collector, spec.query, 'query')],
      ...(requestBody
        ? {
            requestBody: {
              required: !bodyIsOptional(requestBody),
              content: { 'application/json': { schema: collector.convert(requestBody, 'input') } },
            },
          }
        : {}),
      responses,
    };
    if (spec.bodyRefs?.length) operation['x-body-refs'] = spec.bodyRefs;
    (paths[p] ??= {})[spec.method] = operation;
  }
  Object.assign(paths, healthPaths());
  tags.add('Health');

  const pkg = packageJson();
  return {
    openapi: '3.1.1',
    info: {
      title: 'Family Shopping API',
      version: pkg.version ?? '0.0.0',
      description:
        'Family shopping lists, stores, recipes and catalogs. Every data endpoint is scoped to the family in the bearer token; ' +
        "another family's ids behave as unknown (404 in a path, 400 in a body). Errors are `application/problem+json` " +
        'with a stable `code`. While the database cannot be reached, requests answer `503 service_unavailable` with ' +
        '`Retry-After`.',
      // package.json's license; npm's `UNLICENSED` (not licensed for use by others) is no SPDX
      // id, so it is given as an SPDX custom reference.
      ...(pkg.license
        ? {
            license: {
              name: pkg.license,
              identifier: pkg.license === 'UNLICENSED' ? 'LicenseRef-UNLICENSED' : pkg.license,
            },
          }
        : {}),
    },
    servers: [{ url: '/', description: 'The server that serves this document (paths carry their /api prefix)' }],
    // Feature tags alphabetically (case-insensitive), then health and the documentation itself.
    tags: [...tags]
      .sort((x, y) => rank(x) - rank(y) || x.localeCompare(y, 'en', { sensitivity: 'base' }))
      .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Endpoints of ${name}` })),
    paths,
    components: {
      schemas: collector.schemas,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}

const rank = (tag: string) => (tag === 'Docs' ? 2 : tag === 'Health' ? 1 : 0);
