// Builds the Koa app (no listen), so tests can mount it on port 0.
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import type { Deps } from './context.js';
import { ApiRouter } from './http/route.js';
import { errorHandler, problem, requestContext, requireJson } from './http/middleware.js';
import { registerFeatureRoutes } from './features.js';

export const BODY_LIMIT = '1mb';

export function buildApp(deps: Deps): { app: Koa; api: ApiRouter } {
  // maxIpsCount 1: behind the trusted proxy the client address is the right-most entry of
  // X-Forwarded-For, the one that proxy appended. Earlier entries are whatever the client sent,
  // so taking the left-most would let anyone pick a fresh address per request and walk past
  // the rate limits.
  const app = new Koa({ proxy: deps.config.TRUST_PROXY, maxIpsCount: 1 });
  app.silent = true; // errors are logged by our middleware, without stacks reaching clients

  app.use(requestContext(deps.log));
  app.use(errorHandler());

  // Liveness and readiness, outside /api.
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/readyz') {
      try {
        await deps.db.raw('select 1');
        ctx.body = { status: 'ready' };
      } catch {
        ctx.status = 503;
        ctx.type = 'application/problem+json';
        ctx.body = problem(503, 'not_ready', 'The database is not reachable');
      }
      return;
    }
    await next();
  });

  app.use(requireJson());
  app.use(
    bodyParser({
      enableTypes: ['json'],
      extendTypes: { json: ['application/*+json'] },
      jsonLimit: BODY_LIMIT,
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
    }),
  );

  const api = new ApiRouter(deps);
  registerFeatureRoutes(api, deps);
  app.use(api.router.routes());
  app.use(api.router.allowedMethods());
  return { app, api };
}
