// Routes are declared with their zod schemas; the same declaration validates requests, builds
// the OpenAPI document and drives the tenant-isolation test matrix (see `routes`).
import Router, { type RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { Actor, Deps } from '../context.js';
import { authenticate } from './auth.js';
import { notFound, nulErrors, validationFailed, zodErrors, type AppError } from '../errors.js';

export type Access = 'public' | 'member' | 'admin';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.core.$ZodType;
  /** For a problem response: the stable codes a client may see (else read from the description). */
  codes?: string[];
}

export interface RouteSpec<
  P extends z.core.$ZodType = z.core.$ZodType,
  Q extends z.core.$ZodType = z.core.$ZodType,
  B extends z.core.$ZodType = z.core.$ZodType,
> {
  method: Method;
  /** Koa path relative to /api, e.g. `/lists/:listId/items`. */
  path: string;
  summary: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
  /** Rate-limit bucket name (auth endpoints). */
  rateLimit?: string;
  /**
   * For the tenant-isolation matrix: body fields that reference family records (so another
   * family's id must be rejected with 400).
   */
  bodyRefs?: string[];
  /**
   * A path value that fails its schema names no record: it gets this error (default
   * `404 not_found`), as an unknown or another family's id does (contract: 404 for a record
   * named in the path that does not exist; 400 is for bodies and queries).
   */
  notFound?: () => AppError;
  /** False for routes that never touch the database (the API reference): no 503 documented. */
  usesDatabase?: boolean;
}

export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  actor: Actor;
}

export type Handler<P, Q, B> = (ctx: Context, input: Input<P, Q, B>) => Promise<void>;

/** Validates one part of a request; `checkText` also refuses NUL in its strings (query, body). */
export function parseOrThrow<T extends z.core.$ZodType>(
  schema: T,
  value: unknown,
  prefix: string,
  checkText = true,
): z.output<T> {
  const r = z.safeParse(schema, value);
  if (!r.success) throw validationFailed(zodErrors(r.error, prefix));
  const nul = checkText ? nulErrors(r.data, prefix) : [];
  if (nul.length) throw validationFailed(nul);
  return r.data;
}

function parseParams(spec: RouteSpec, value: unknown): unknown {
  const r = z.safeParse(spec.params!, value);
  if (r.success) return r.data;
  throw spec.notFound ? spec.notFound() : notFound();
}

export class ApiRouter {
  readonly router = new Router({ prefix: '/api' });
  readonly routes: RouteSpec[] = [];

  constructor(private readonly deps: Deps) {}

  add<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType>(
    spec: RouteSpec<P, Q, B>,
    handler: Handler<z.output<P>, z.output<Q>, z.output<B>>,
  ): void {
    this.routes.push(spec as unknown as RouteSpec);
    const deps = this.deps;
    const middlewares: RouterMiddleware[] = [];
    const limiter = spec.rateLimit
      ? (deps.rateLimiters as Record<string, RouterMiddleware> | undefined)?.[spec.rateLimit]
      : undefined;
    if (limiter) middlewares.push(limiter);
    middlewares.push(async (ctx) => {
      const actor = spec.access === 'public' ? (null as unknown as Actor) : await authenticate(deps, ctx, spec.access);
      // Path values are ids (validated as UUIDs) or link tokens that are only ever hashed; one
      // that is malformed names no record: 404, like an unknown id.
      const params = spec.params ? parseParams(spec, ctx.params) : ctx.params;
      const query = spec.query ? parseOrThrow(spec.query, ctx.query, 'query') : ctx.query;
      const body = spec.body
        ? parseOrThrow(spec.body, (ctx.request as unknown as { body?: unknown }).body ?? {}, 'body')
        : undefined;
      await handler(ctx, { params, query, body, actor } as Input<z.output<P>, z.output<Q>, z.output<B>>);
    });
    this.router[spec.method](spec.path, ...middlewares);
  }
}
