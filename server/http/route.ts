// Routes are declared with their zod schemas; the same declaration validates requests, builds
// the OpenAPI document and drives the tenant-isolation test matrix (see `routes`).
import Router, { type RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { Actor, Deps } from '../context.js';
import { authenticate, memberOrRefuse, verifiedClaims, type TokenMembership } from './auth.js';
import type { AccessClaims } from '../auth/public.js';
import { notFound, nulErrors, validationFailed, zodErrors, type AppError } from '../errors.js';

export type Access = 'public' | 'member' | 'admin';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.core.$ZodType;
  /** Media type(s) of a success body that is not JSON (e.g. `text/html`). */
  contentType?: string | string[];
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
  /** The caller (none on public routes). */
  actor: Actor;
}

export type Handler<P, Q, B> = (ctx: Context, input: Input<P, Q, B>) => Promise<void>;

/** What the handler of a `memberRead` route is given: the request, and whom the verified token
 *  names, whose membership is not checked yet (no `ctx`: it cannot answer by itself). */
export interface ReadInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  who: { userId: string; familyId: string };
}

/** What the handler of a `memberRead` route gives back: the membership row it read in the
 *  statement of its data, and the answer, sent only once the route layer has judged that row. */
export interface MemberRead<T> {
  membership: TokenMembership;
  answer: { body: T; type?: string } | { error: AppError };
}

export type ReadHandler<P, Q, B, T> = (input: ReadInput<P, Q, B>) => Promise<MemberRead<T>>;

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
    this.mount(spec as unknown as RouteSpec, false, (ctx, input) =>
      handler(ctx, input as Input<z.output<P>, z.output<Q>, z.output<B>>),
    );
  }

  /**
   * A `member` read whose membership check (spec 5.2) is read in the statement of its data,
   * saving the request a round trip. The route verifies the token only; the handler reads its
   * data with the membership row the token names and returns both (`MemberRead`); the route
   * judges that row (`memberOrRefuse`, as `authenticate` does: same status, code and headers)
   * before anything is sent. The handler gets no `ctx` and no token: it cannot answer, nor
   * judge, by itself. A request whose path, query or body is invalid gets the full check
   * first, so it is refused exactly as on any other route.
   */
  memberRead<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType, T>(
    spec: RouteSpec<P, Q, B> & { access: 'member' },
    handler: ReadHandler<z.output<P>, z.output<Q>, z.output<B>, T>,
  ): void {
    if (spec.rateLimit) throw new Error(`${spec.path}: a rate limit needs the full check first`);
    this.mount(spec as unknown as RouteSpec, true, async (ctx, { params, query, body }, claims) => {
      const read = await handler({
        params,
        query,
        body,
        who: { userId: claims!.sub, familyId: claims!.family_id },
      } as ReadInput<z.output<P>, z.output<Q>, z.output<B>>);
      memberOrRefuse(claims!, read.membership);
      if ('error' in read.answer) throw read.answer.error;
      if (read.answer.type) ctx.type = read.answer.type;
      ctx.body = read.answer.body;
    });
  }

  private mount(
    spec: RouteSpec,
    membershipInRead: boolean,
    run: (ctx: Context, input: Input<unknown, unknown, unknown>, claims?: AccessClaims) => Promise<void>,
  ): void {
    this.routes.push(spec);
    const deps = this.deps;
    const middlewares: RouterMiddleware[] = [];
    const limiter = spec.rateLimit
      ? (deps.rateLimiters as Record<string, RouterMiddleware> | undefined)?.[spec.rateLimit]
      : undefined;
    // The limit of an authenticated route counts per user, after authentication (api-contract
    // §13): a request without a valid token is refused (401) before it is counted, so nobody
    // can spend another user's allowance.
    const authFirst = !!limiter && spec.access !== 'public';
    if (authFirst) {
      middlewares.push(async (ctx, next) => {
        const actor = await authenticate(deps, ctx, spec.access as 'member' | 'admin');
        ctx.state.actor = actor;
        ctx.state.rateLimitKey = `user:${actor.userId}`;
        await next();
      });
    }
    if (limiter) middlewares.push(limiter);
    middlewares.push(async (ctx) => {
      let actor = null as unknown as Actor;
      let claims: AccessClaims | undefined;
      if (authFirst) actor = ctx.state.actor as Actor;
      else if (membershipInRead) claims = verifiedClaims(deps, ctx);
      else if (spec.access !== 'public') actor = await authenticate(deps, ctx, spec.access);
      let params: unknown, query: unknown, body: unknown;
      try {
        // Path values are ids (validated as UUIDs) or link tokens that are only ever hashed; one
        // that is malformed names no record: 404, like an unknown id.
        params = spec.params ? parseParams(spec, ctx.params) : ctx.params;
        query = spec.query ? parseOrThrow(spec.query, ctx.query, 'query') : ctx.query;
        body = spec.body
          ? parseOrThrow(spec.body, (ctx.request as unknown as { body?: unknown }).body ?? {}, 'body')
          : undefined;
      } catch (err) {
        // A removed member is refused (401) before being told anything about the request.
        if (claims) await authenticate(deps, ctx, 'member');
        throw err;
      }
      await run(ctx, { params, query, body, actor }, claims);
    });
    this.router[spec.method](spec.path, ...middlewares);
  }
}
