// Rate limits of the auth endpoints: the public ones per client address (ctx.ip, which honours
// X-Forwarded-For only when TRUST_PROXY=true), the authenticated ones (/api/me/password,
// /api/me/email-confirmation) per user, counted only once the token is accepted (route.ts).
// koa-ratelimit counts; the in-memory driver is used by default and Redis (shared by every
// instance) when REDIS_URL is set. Past the limit the
// request is answered with 429 problem+json `rate_limited`, `Retry-After` and the IETF draft
// `RateLimit-Limit / -Remaining / -Reset / -Policy` headers (Reset as seconds from now).
//
// Redis unreachable: the limits fail open. The counters' connection has no offline queue and no
// retries (events/redis-connection.ts `failFast`), so a request passes at once, uncounted, rather
// than waiting for Redis; a connection known to be down is not even asked. One log line when the
// counters become unavailable and one when they work again, never one per request.
import { createRequire } from 'node:module';
import type { Context, Middleware, Next } from 'koa';
import type { Redis } from 'ioredis';
import { errorFields, type Logger } from '../log.js';
import { AppError } from '../errors.js';
import { connectRedis, failFast, type RedisStateListener } from '../events/public.js';

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
  // Self-service (contract section 7; docs/auth.md): confirm-email guesses tokens like
  // reset-password does; the other two cost an argon2 verification or send a mail.
  confirmEmail: { max: 10, durationMs: 15 * 60_000 },
  changePassword: { max: 10, durationMs: 15 * 60_000 },
  emailConfirmation: { max: 5, durationMs: 60 * 60_000 },
};

export type RateLimiters = Record<string, Middleware>;

export interface RateLimiterOptions {
  /** An ioredis client (make it with connectRateLimitRedis): counters live in Redis. Absent: in-process Maps. */
  redis?: Redis;
  /** Redis key prefix (`fs:rl` in production, server/server.ts); the bucket name is appended. */
  keyPrefix: string;
  log: Logger;
  rules?: Record<string, RateLimitRule>;
}

const H_LIMIT = 'RateLimit-Limit';
const H_REMAINING = 'RateLimit-Remaining';
const H_RESET = 'RateLimit-Reset';

/** The Redis connection of the counters: fails fast, so a request never waits for Redis. */
export function connectRateLimitRedis(url: string, log: Logger, onChange?: RedisStateListener): Promise<Redis> {
  return connectRedis(url, { ...failFast, log, name: 'fs-ratelimit', onChange });
}

export function createRateLimiters(options: RateLimiterOptions): RateLimiters {
  const rules = options.rules ?? RATE_LIMITS;
  const limiters: RateLimiters = {};
  const redis = options.redis;
  // Whether the last failure has been logged: once per outage, reset by the next counted request.
  let failing = false;
  for (const [bucket, rule] of Object.entries(rules)) {
    const memory = options.redis ? undefined : new Map<string, { reset: number }>();
    if (memory) sweepExpired(memory);
    const counter = ratelimit({
      driver: options.redis ? 'redis' : 'memory',
      db: options.redis ?? memory,
      namespace: `${options.keyPrefix}:${bucket}`,
      duration: rule.durationMs,
      max: rule.max,
      // Authenticated routes count per user (set by ApiRouter after authentication), public
      // ones per client address.
      id: (ctx: Context) => (ctx.state.rateLimitKey as string | undefined) ?? (ctx.ip || 'unknown'),
      headers: { remaining: H_REMAINING, reset: H_RESET, total: H_LIMIT },
    });
    const policy = `${rule.max};w=${Math.round(rule.durationMs / 1000)}`;

    limiters[bucket] = async (ctx: Context, next: Next) => {
      // Not connected (Redis down, reconnecting): pass uncounted without asking.
      if (redis && redis.status !== 'ready') {
        if (!failing) {
          failing = true;
          options.log.error({ bucket }, 'rate limiter unavailable (Redis not connected): requests pass uncounted');
        }
        await next();
        return;
      }
      let passed = false;
      try {
        await counter(ctx, async () => {
          passed = true;
          normaliseHeaders(ctx, policy, rule.durationMs);
          await next();
        });
      } catch (err) {
        if (passed) throw err;
        // The counter store failed (Redis down or not answering): let the request through rather
        // than lock every user out, and say so once.
        if (!failing) {
          failing = true;
          options.log.error({ bucket, err: errorFields(err) }, 'rate limiter unavailable: requests pass uncounted');
        }
        await next();
        return;
      }
      if (failing) {
        failing = false;
        options.log.info({ bucket }, 'rate limiter counting again');
      }
      if (passed) return;
      if (ctx.state.rateLimit) {
        const reset = normaliseHeaders(ctx, policy, rule.durationMs);
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

/** koa-ratelimit reports the reset as an epoch second; the IETF draft wants seconds from now.
 *  Never more than the window: the memory driver's clock (process.hrtime from its load) drifts
 *  from Date.now(), which made a one-second window answer `Retry-After: 2`. */
function normaliseHeaders(ctx: Context, policy: string, windowMs: number): number {
  const epoch = Number(ctx.response.get(H_RESET));
  const left = Number.isFinite(epoch) ? Math.ceil(epoch - Date.now() / 1000) : 0;
  const delta = Math.min(Math.ceil(windowMs / 1000), Math.max(0, left));
  ctx.set(H_RESET, String(delta));
  ctx.set('RateLimit-Policy', policy);
  return delta;
}
