import crypto from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { errorFields, type Logger } from '../log.js';
import { AppError, type ErrorCode } from '../errors.js';
import { TITLES, problem, type ProblemBody } from './errors.js';
import { mapPgError } from '../db/errors.js';
import type { DbAvailability } from '../db/availability.js';

function sendProblem(ctx: Context, body: ProblemBody, headers?: Record<string, string>) {
  ctx.status = body.status;
  ctx.type = 'application/problem+json';
  ctx.body = body;
  if (headers) for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** Request id, access log (route pattern, never the raw path: paths can carry invite tokens). */
export function requestContext(log: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const id = REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = id;
    ctx.state.log = log.child({ reqId: id });
    ctx.set('X-Request-Id', id);
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? '(unmatched)';
      (ctx.state.log as Logger).info(
        { method: ctx.method, route, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}

/** A year: browsers that saw the service on HTTPS use nothing else for it. */
export const HSTS = 'max-age=31536000';

/**
 * Headers every answer carries (api-contract §13 "Headers"): `X-Content-Type-Options: nosniff`
 * and `X-Frame-Options: DENY` (the API reference at /api/docs included: nothing of the service
 * is meant to be framed or sniffed), `Strict-Transport-Security` on HTTPS (TLS, or
 * `X-Forwarded-Proto: https` from a trusted proxy: Koa's `ctx.secure` with `app.proxy`), and
 * `Cache-Control: no-store` on the JSON answers of `/api` to an authenticated request, so no
 * shared or disk cache keeps a family's data. A route that chose its own caching keeps it.
 * The app's pages add their Content-Security-Policy in server/web/static.ts.
 */
export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      if (!ctx.response.get('X-Content-Type-Options')) ctx.set('X-Content-Type-Options', 'nosniff');
      if (!ctx.response.get('X-Frame-Options')) ctx.set('X-Frame-Options', 'DENY');
      if (ctx.secure) ctx.set('Strict-Transport-Security', HSTS);
      if (
        (ctx.path === '/api' || ctx.path.startsWith('/api/')) &&
        ctx.get('authorization') &&
        /json/.test(ctx.response.type) &&
        !ctx.response.get('Cache-Control')
      )
        ctx.set('Cache-Control', 'no-store');
    }
  };
}

export interface ErrorHandlerOptions {
  /** Told of every lost-database error, so an outage is logged once rather than per request. */
  db?: DbAvailability;
}

/** Turns every error into problem+json; unknown errors become a generic 500 (detail in the log). */
export function errorHandler(options: ErrorHandlerOptions = {}) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      // Every 405 is thrown as an AppError (methodNotAllowed, the probes, the web app's files).
      if (ctx.status === 404 && ctx.body === undefined) {
        sendProblem(ctx, problem(404, 'not_found', 'No such resource'));
      }
    } catch (err) {
      const e = err as {
        status?: number;
        type?: string;
        expose?: boolean;
        name?: string;
        message?: string;
        stack?: string;
        /** The parser's limit in bytes (raw-body), on a too-large body. */
        limit?: number;
      };
      if (err instanceof AppError) {
        sendProblem(ctx, problem(err.status, err.code, err.message, err.errors), err.headers);
        return;
      }
      if (isClientAbort(e)) {
        // The client went away while sending its body: nothing to answer, nobody's outage.
        (ctx.state.log as Logger | undefined)?.info({ method: ctx.method }, 'request aborted by the client');
        ctx.status = 400;
        ctx.body = '';
        return;
      }
      const mapped = mapPgError(err);
      if (mapped) {
        if (mapped.status === 503) options.db?.observe(err);
        sendProblem(ctx, problem(mapped.status, mapped.code, mapped.message), mapped.headers);
        return;
      }
      // Errors raised by the body parser and Koa itself.
      if (e.status === 413 || e.type === 'entity.too.large') {
        // The parser stopped reading part-way (a declared length over the limit, or a gzip or
        // deflate body that inflates past it): the rest of the body is still on the socket, so
        // this connection cannot carry another request. Read and discard what is left (briefly),
        // then answer and close it.
        await discardBody(ctx.req);
        // The route's own limit (1 MiB, or 20 MiB for a family import), as the parser knew it.
        const mib = typeof e.limit === 'number' && e.limit > 0 ? Math.round(e.limit / 1048576) : 1;
        sendProblem(ctx, problem(413, 'payload_too_large', `The request body exceeds ${mib} MiB`), {
          Connection: 'close',
        });
        return;
      }
      if (e.status === 415 || e.type === 'unsupported_media_type') {
        sendProblem(ctx, problem(415, 'unsupported_media_type', 'Send the request body as application/json'));
        return;
      }
      if (e.status === 400 && (e.type === 'entity.parse.failed' || e.type === 'entity.verify.failed')) {
        sendProblem(ctx, problem(400, 'invalid_json', 'The request body is not valid JSON'));
        return;
      }
      if (e.status === 400 && e.type === 'entity.decode.failed') {
        sendProblem(
          ctx,
          problem(400, 'invalid_body', 'The request body could not be decoded with its Content-Encoding'),
        );
        return;
      }
      if (e.status && e.status >= 400 && e.status < 500 && e.expose) {
        sendProblem(ctx, problem(e.status, 'bad_request', 'The request could not be processed'));
        return;
      }
      const log = (ctx.state.log as Logger | undefined) ?? undefined;
      log?.error({ err: errorFields(e) }, 'unhandled error');
      sendProblem(ctx, problem(500, 'internal_error', 'Something went wrong on our side'));
    }
  };
}

/** The body parser's error when the client aborted its request (raw-body: `request.aborted`),
 *  or the socket closed under a request still being read. */
function isClientAbort(e: { type?: string; code?: unknown; status?: number }): boolean {
  return e.type === 'request.aborted' || (e.code === 'ECONNABORTED' && e.status === 400);
}

/** How much of an oversized body is read and thrown away before the 413 goes out. */
const DISCARD_MAX_BYTES = 8 * 1024 * 1024;
const DISCARD_MAX_MS = 2_000;

/**
 * Reads and throws away the rest of a request body the parser gave up on, so that the answer
 * and the close that follows it do not race a client still sending (a close with unread data
 * resets the connection, and the client may lose the answer). Bounded: after 8 MiB or 2 s the
 * connection is closed regardless.
 */
export function discardBody(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_MAX_MS);
    timer.unref();
    // The body parser piped the request into a decompressor it then paused; take the request back.
    req.unpipe();
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/** The part of @koa/router's Router that methodNotAllowed looks routes up with. */
export interface RouteMatcher {
  match(path: string, method: string): { path: { path: string | RegExp; methods: string[] }[] };
}

/** Literal (parameter-free) segments of a route path: `/api/stores/:id/sections/order` has 4. */
function literalSegments(routePath: string | RegExp): number {
  if (typeof routePath !== 'string') return 0;
  return routePath.split('/').filter((seg) => seg !== '' && !/[:*(]/.test(seg)).length;
}

function refuseMethod(ctx: Context, allowed: Set<string>): void {
  allowed.add('OPTIONS');
  if (allowed.has('GET')) allowed.add('HEAD');
  const allow = [...allowed].join(', ');
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204;
    ctx.set('Allow', allow);
    return;
  }
  throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed here; allowed: ${allow}`, undefined, {
    Allow: allow,
  });
}

/**
 * Around the router: a path the API knows asked with a method it does not serve answers `405`
 * problem+json with `Allow` (an OPTIONS request gets `204` and `Allow`); an unknown path, with
 * any method, falls through to the `404` problem. Replaces the router's allowedMethods, which
 * answers a method outside its list (TRACE, PROPFIND, MKCOL, …) with a text/plain 501.
 *
 * A literal path segment names its own resource: `/stores/{id}/sections/order` is the order
 * route, never section `order` of `/stores/{id}/sections/{sectionId}`. So when the routes
 * matching a path with the most literal segments do not serve the method, the answer is `405`
 * at once, before any route authenticates or validates (api-contract §13), even if a route
 * with a parameter in that place would take the method.
 */
export function methodNotAllowed(router?: RouteMatcher) {
  return async (ctx: Context, next: Next) => {
    if (router && ctx.method !== 'OPTIONS') {
      const layers = router.match(ctx.path, ctx.method).path.filter((l) => l.methods.length > 0);
      if (layers.length > 1) {
        const best = Math.max(...layers.map((l) => literalSegments(l.path)));
        const own = layers.filter((l) => literalSegments(l.path) === best);
        const methods = new Set(own.flatMap((l) => l.methods));
        if (!methods.has(ctx.method) && !(ctx.method === 'HEAD' && methods.has('GET'))) {
          refuseMethod(ctx, methods);
          return;
        }
      }
    }
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const layers = (ctx as Context & { matched?: { methods: string[] }[] }).matched ?? [];
    const allowed = new Set<string>();
    for (const layer of layers) for (const m of layer.methods) allowed.add(m);
    if (allowed.size === 0) return;
    refuseMethod(ctx, allowed);
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Bodies on JSON endpoints must be JSON (415 otherwise). Empty bodies are fine. */
export function requireJson() {
  return async (ctx: Context, next: Next) => {
    if (BODY_METHODS.has(ctx.method) && ctx.path.startsWith('/api/')) {
      const length = Number(ctx.get('content-length') || 0);
      const hasBody = length > 0 || !!ctx.get('transfer-encoding');
      if (hasBody && !ctx.is('application/json', 'application/*+json')) {
        throw Object.assign(new Error('unsupported media type'), { status: 415, type: 'unsupported_media_type' });
      }
    }
    await next();
  };
}

/**
 * Node's answer to a request its HTTP parser refuses (bad request line, raw non-ASCII in the
 * target, oversized headers, header timeout) is a bare status line; answer problem+json like
 * every other error instead. For `server.on('clientError', …)`.
 */
export function clientErrorHandler() {
  return (err: Error & { code?: string }, socket: Duplex) => {
    // A response in flight whose head has gone out cannot be followed by another: just close.
    // One that has not (a request timed out while its body was still arriving, so the app is
    // still waiting for it) is replaced by the error answer, as Node itself would do.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, code, detail]: [number, ErrorCode, string] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'The request headers are too large']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request_timeout', 'The request took too long to arrive']
          : [400, 'bad_request', 'The request is not valid HTTP'];
    const body = JSON.stringify(problem(status, code, detail));
    socket.end(
      `HTTP/1.1 ${status} ${TITLES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
