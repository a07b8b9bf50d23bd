// Builds the Koa app (no listen), so tests can mount it on port 0.
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import type { Deps } from './context.js';
import { ApiRouter } from './http/route.js';
import { AppError } from './errors.js';
import { ping } from './db/knex.js';
import { errorHandler, methodNotAllowed, requestContext, requireJson, securityHeaders } from './http/middleware.js';
import { problem } from './http/errors.js';
import { registerFeatureRoutes } from './features.js';
import { DbAvailability } from './db/availability.js';
import { serveWebApp } from './web/static.js';
import { requestMetrics } from './http/metrics.js';

export const BODY_LIMIT = '1mb';

/** POST /api/family/import: a family export, up to IMPORT_BODY_LIMIT. */
export const IMPORT_PATH = '/api/family/import';
export const IMPORT_BODY_LIMIT = '20mb';

/** The JSON body parser, reading at most `jsonLimit`. */
function jsonBody(jsonLimit: string) {
  return bodyParser({
    enableTypes: ['json'],
    extendTypes: { json: ['application/*+json'] },
    jsonLimit,
    strict: true,
    onerror: (err: Error & { status?: number; type?: string }) => {
      // co-body marks unparsable JSON with status 400 and no type; size errors carry their own.
      if (!err.type && (err.status === 400 || err instanceof SyntaxError)) err.type = 'entity.parse.failed';
      // A body that does not decode with its Content-Encoding (zlib or brotli errors carry no status).
      const code = (err as { code?: unknown }).code;
      if (!err.status && typeof code === 'string' && /^(Z_|ERR__ERROR_|ERR_BROTLI)/.test(code)) {
        err.status = 400;
        err.type = 'entity.decode.failed';
      }
      throw err;
    },
  });
}

const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

export interface BuiltApp {
  app: Koa;
  api: ApiRouter;
  /** Whether the database is reachable (logs outages once each). */
  dbAvailability: DbAvailability;
}

export function buildApp(deps: Deps): BuiltApp {
  // maxIpsCount 1: behind the trusted proxy the client address is the right-most entry of
  // X-Forwarded-For, the one that proxy appended. Earlier entries are whatever the client sent,
  // so taking the left-most would let anyone pick a fresh address per request and walk past
  // the rate limits.
  const app = new Koa({ proxy: deps.config.TRUST_PROXY, maxIpsCount: 1 });
  app.silent = true; // errors are logged by our middleware, without stacks reaching clients

  const dbAvailability = new DbAvailability(deps.db, deps.log, undefined, (down) =>
    deps.metrics?.dependencyState('database', 'pool', down),
  );
  if (deps.metrics) app.use(requestMetrics(deps.metrics));
  app.use(requestContext(deps.log));
  app.use(securityHeaders());
  app.use(errorHandler({ db: dbAvailability }));

  // Liveness and readiness, outside /api.
  app.use(async (ctx, next) => {
    if (!HEALTH_PATHS.has(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      if (ctx.method === 'OPTIONS') {
        ctx.status = 204;
        ctx.set('Allow', 'GET, HEAD, OPTIONS');
        return;
      }
      throw new AppError(
        405,
        'method_not_allowed',
        `${ctx.method} is not allowed here; allowed: GET, HEAD, OPTIONS`,
        undefined,
        {
          Allow: 'GET, HEAD, OPTIONS',
        },
      );
    }
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    try {
      await ping(deps.db);
      dbAvailability.answered();
      ctx.body = { status: 'ready' };
    } catch (err) {
      dbAvailability.observe(err);
      ctx.status = 503;
      ctx.type = 'application/problem+json';
      ctx.body = problem(503, 'not_ready', 'The database is not reachable');
    }
  });

  // The web app owns every path outside /api and the probes (contract §9).
  app.use(serveWebApp());

  app.use(requireJson());
  // A family export may be bigger than BODY_LIMIT: its import alone reads up to
  // IMPORT_BODY_LIMIT (docs/api.md "Family export and import"); the parser after it then skips it.
  const importBody = jsonBody(IMPORT_BODY_LIMIT);
  app.use((ctx, next) => (ctx.method === 'POST' && ctx.path === IMPORT_PATH ? importBody(ctx, next) : next()));
  app.use(jsonBody(BODY_LIMIT));

  const api = new ApiRouter(deps);
  registerFeatureRoutes(api, deps);
  app.use(methodNotAllowed(api.router));
  app.use(api.router.routes());
  return { app, api, dbAvailability };
}
