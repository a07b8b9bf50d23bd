// Builds the OpenAPI 3.1 document from the route table (`ApiRouter.routes`): whatever is
// registered at runtime is documented, nothing is listed by hand. Request and response schemas
// come from the same zod declarations that validate requests (zod 4's `z.toJSONSchema`, JSON
// Schema 2020-12, which is OpenAPI 3.1's schema dialect).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { RouteSpec } from '../http/route.js';
import { TITLES } from '../http/errors.js';

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  tags: { name: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

const here = path.dirname(fileURLToPath(import.meta.url));

function packageVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(here, '../../package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

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

/** Collects named schemas (zod `.meta({ id })`) into components, renaming on clashes. */
class SchemaCollector {
  readonly schemas: Record<string, Json> = { Problem: PROBLEM_SCHEMA };
  private readonly seen = new Map<string, string>([['Problem', JSON.stringify(PROBLEM_SCHEMA)]]);

  convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    let json: Json;
    try {
      json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    } catch {
      return {}; // a schema zod cannot describe (should not happen with `unrepresentable: 'any'`)
    }
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    const renames = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) renames.set(name, this.register(name, def, io));
    for (const [name, def] of Object.entries(defs)) {
      const stored = rewriteRefs(def, renames);
      this.schemas[renames.get(name)!] = io === 'output' ? openObjects(stored) : stored;
    }
    const rewritten = rewriteRefs(json, renames);
    return io === 'output' ? openObjects(rewritten) : rewritten;
  }

  private register(name: string, def: Json, io: 'input' | 'output'): string {
    const body = JSON.stringify(def);
    let candidate = name;
    for (let n = 2; this.seen.has(candidate) && this.seen.get(candidate) !== body; n++) {
      candidate = io === 'input' && n === 2 ? `${name}Input` : `${name}${n}`;
    }
    this.seen.set(candidate, body);
    return candidate;
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

function problemResponse(description: string): Json {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

function parametersOf(
  collector: SchemaCollector,
  schema: z.ZodType | undefined,
  location: 'path' | 'query',
  names: string[],
): Json[] {
  const out: Json[] = [];
  const json = schema ? collector.convert(schema, 'input') : {};
  const props = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  const all = location === 'path' ? [...new Set([...names, ...Object.keys(props)])] : Object.keys(props);
  for (const name of all) {
    const { description, ...propSchema } = props[name] ?? { type: 'string' };
    out.push({
      name,
      in: location,
      required: location === 'path' ? true : required.has(name),
      ...(description ? { description } : {}),
      schema: propSchema,
    });
  }
  return out;
}

function bodyIsOptional(schema: z.ZodType): boolean {
  try {
    return schema.safeParse({}).success;
  } catch {
    return false;
  }
}

export function buildOpenApiDocument(routes: readonly RouteSpec[]): OpenApiDocument {
  const collector = new SchemaCollector();
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  const ids = new Set<string>();

  for (const spec of routes) {
    tags.add(spec.tag);
    const p = openApiPath(spec.path);
    const pathNames = pathParamNames(spec.path);
    let opId = operationId(spec);
    for (let n = 2; ids.has(opId); n++) opId = `${operationId(spec)}${n}`;
    ids.add(opId);

    const responses: Record<string, Json> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      const code = Number(status);
      if (code >= 400) responses[status] = problemResponse(r.description);
      else if (code === 204 || code === 205 || code === 304) responses[status] = { description: r.description };
      else {
        responses[status] = {
          description: r.description,
          content: { 'application/json': { schema: r.schema ? collector.convert(r.schema, 'output') : {} } },
        };
      }
    }
    const addProblem = (status: number, description: string) => {
      const key = String(status);
      if (!responses[key]) responses[key] = problemResponse(description);
    };
    if (spec.query || spec.body) addProblem(400, 'The request is not valid (`validation_failed`, `errors[].path` names the field)');
    if (spec.bodyRefs?.length) {
      const existing = responses['400']!;
      existing.description = `${existing.description}; a referenced record is not the family's (\`*_not_found\`)`;
    }
    if (spec.access !== 'public') addProblem(401, 'Missing, invalid or expired access token (`unauthenticated`)');
    if (spec.access === 'admin') addProblem(403, 'Only a family admin can do this (`forbidden`)');
    if (pathNames.length) addProblem(404, 'No such record in your family (`not_found`)');
    if (spec.body) {
      addProblem(413, 'The request body exceeds 1 MiB (`payload_too_large`)');
      addProblem(415, 'The request body is not JSON (`unsupported_media_type`)');
    }
    if (spec.rateLimit) addProblem(429, 'Too many requests (`rate_limited`); see `Retry-After`');
    addProblem(500, TITLES[500]!);

    const operation: Json = {
      operationId: opId,
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.access === 'admin' ? { description: 'Family admins only.' } : {}),
      security: spec.access === 'public' ? [] : [{ bearerAuth: [] }],
      parameters: [
        ...parametersOf(collector, spec.params, 'path', pathNames),
        ...parametersOf(collector, spec.query, 'query', []),
      ],
      ...(spec.body
        ? {
            requestBody: {
              required: !bodyIsOptional(spec.body),
              content: { 'application/json': { schema: collector.convert(spec.body, 'input') } },
            },
          }
        : {}),
      responses,
    };
    if (spec.bodyRefs?.length) operation['x-body-refs'] = spec.bodyRefs;
    (paths[p] ??= {})[spec.method] = operation;
  }

  return {
    openapi: '3.1.1',
    info: {
      title: 'Family Shopping API',
      version: packageVersion(),
      description:
        'Family shopping lists, stores, recipes and catalogs. Every data endpoint is scoped to the family in the bearer token; ' +
        "another family's ids behave as unknown (404 in a path, 400 in a body). Errors are `application/problem+json`.",
    },
    // Feature tags alphabetically, the documentation itself last.
    tags: [...tags].sort((x, y) => Number(x === 'Docs') - Number(y === 'Docs') || x.localeCompare(y)).map((name) => ({ name })),
    paths,
    components: {
      schemas: collector.schemas,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
