// Request metrics (server/metrics): every request's method, route template (never the raw path,
// which can carry ids and invite tokens), status and duration. Outermost middleware, so the
// status is the one the client gets, problem+json answers included.
import type { Context, Next } from 'koa';
import type { Metrics } from '../metrics/public.js';

const PROBES = new Set(['/healthz', '/readyz']);

/** The route label: the matched template, a probe's path, or one of two fixed names. */
export function routeLabel(ctx: Context): string {
  const matched = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
  if (matched) return matched;
  if (PROBES.has(ctx.path)) return ctx.path;
  // The web app answers every path outside /api (contract §9): its files are one route.
  if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return '(web)';
  return '(unmatched)';
}

export function requestMetrics(metrics: Metrics) {
  return async (ctx: Context, next: Next) => {
    const stop = metrics.httpRequestDuration.startTimer();
    let status: number | undefined;
    try {
      await next();
      status = ctx.status;
    } finally {
      stop({ method: ctx.method, route: routeLabel(ctx), status: String(status ?? 500) });
    }
  };
}
