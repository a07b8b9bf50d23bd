// Rate limits of the public auth endpoints, per client address (ctx.ip, which honours
// X-Forwarded-For only when TRUST_PROXY=true). koa-ratelimit counts; the in-memory driver is
// used by default and Redis (shared by every instance) when REDIS_URL is set. Past the limit the
// request is answered with 429 problem+json `rate_limited`, `Retry-After` and the IETF draft
// `RateLimit-Limit / -Remaining / -Reset / -Policy` headers (Reset as seconds from now).
import { createRequire } from 'node:module';
import type { Context, Middleware, Next } from 'koa';
import { errorFields, type Logger } from '../log.js';
import { AppError } from './errors.js';

// koa-ratelimit ships no type declarations; this is the part of its options we use.
type KoaRateLimit = (opts: {
  driver: 'memory' | 'redis';
  db: unknown;
  namespace: string;
  duration: number;
  max: number;
  id: (ctx: Context) => string;
  headers: { remaining: string; reset: string; total: string };
}) => Middleware;
const ratelimit = createRequire(import.meta.url)('koa-ratelimit') as KoaRateLimit;

export interface RateLimitRule {
  max: number;
  /** Window in milliseconds. */
  durationMs: number;
}

/** Bucket name → rule. Route specs name the bucket in `rateLimit`. */
export const RATE_LIMITS: Record<string, RateLimitRule> = {
  login: { max: 10, durationMs: 60_000 },
  register: { max: 10, durationMs: 60 * 60_000 },
  forgotPassword: { max: 5, durationMs: 60 * 60_000 },
  resetPassword: { max: 10, durationMs: 15 * 60_000 },
};

export type RateLimiters = Record<string, Middleware>;

export interface RateLimiterOptions {
  /** An ioredis client: counters live in Redis. Absent: in-process Maps. */
  redis?: unknown;
  /** Redis key prefix; the bucket name is appended. */
  keyPrefix?: string;
  log: Logger;
  rules?: Record<string, RateLimitRule>;
}

const H_LIMIT = 'RateLimit-Limit';
const H_REMAINING = 'RateLimit-Remaining';
const H_RESET = 'RateLimit-Reset';

export function createRateLimiters(options: RateLimiterOptions): RateLimiters {
  const rules = options.rules ?? RATE_LIMITS;
  const limiters: RateLimiters = {};
  for (const [bucket, rule] of Object.entries(rules)) {
    const memory = options.redis ? undefined : new Map<string, { reset: number }>();
    if (memory) sweepExpired(memory);
    const counter = ratelimit({
      driver: options.redis ? 'redis' : 'memory',
      db: options.redis ?? memory,
      namespace: `${options.keyPrefix ?? 'fs:rl'}:${bucket}`,
      duration: rule.durationMs,
      max: rule.max,
      id: (ctx: Context) => ctx.ip || 'unknown',
      headers: { remaining: H_REMAINING, reset: H_RESET, total: H_LIMIT },
    });
    const policy = `${rule.max};w=${Math.round(rule.durationMs / 1000)}`;

    limiters[bucket] = async (ctx: Context, next: Next) => {
      let passed = false;
      try {
        await counter(ctx, async () => {
          passed = true;
          normaliseHeaders(ctx, policy);
          await next();
        });
      } catch (err) {
        if (passed) throw err;
        // The counter store failed (Redis down): let the request through rather than lock every
        // user out, and say so loudly.
        options.log.error({ bucket, err: errorFields(err) }, 'rate limiter unavailable');
        await next();
        return;
      }
      if (passed) return;
      if (ctx.state.rateLimit) {
        const reset = normaliseHeaders(ctx, policy);
        const retryAfter = String(Math.max(1, reset));
        throw new AppError(429, 'rate_limited', `Too many requests; retry in ${retryAfter} s`, undefined, {
          'Retry-After': retryAfter,
          [H_LIMIT]: String(rule.max),
          [H_REMAINING]: '0',
          [H_RESET]: String(reset),
          'RateLimit-Policy': policy,
        });
      }
    };
  }
  return limiters;
}

/**
 * koa-ratelimit's memory driver re-arms an expired entry on the next request but never deletes
 * one; drop them once a minute so a stream of distinct addresses cannot grow the Map forever.
 */
function sweepExpired(map: Map<string, { reset: number }>): void {
  const timer = setInterval(() => {
    const nowSeconds = Date.now() / 1000;
    for (const [key, entry] of map) if (entry.reset < nowSeconds) map.delete(key);
  }, 60_000);
  timer.unref();
}

/** koa-ratelimit reports the reset as an epoch second; the IETF draft wants seconds from now. */
function normaliseHeaders(ctx: Context, policy: string): number {
  const epoch = Number(ctx.response.get(H_RESET));
  const delta = Number.isFinite(epoch) ? Math.max(0, Math.ceil(epoch - Date.now() / 1000)) : 0;
  ctx.set(H_RESET, String(delta));
  ctx.set('RateLimit-Policy', policy);
  return delta;
}
