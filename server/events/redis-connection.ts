// Redis connections that never make a request wait for Redis.
//
// ioredis by default queues commands while it is disconnected and retries them after a reconnect,
// so a command sent while Redis is down waits for Redis to return. The rate limiter and the event
// publisher must never wait: `failFast` turns the queue and the retries off (a command fails at
// once while disconnected) and bounds a command on a live connection that gets no answer. ioredis
// keeps reconnecting on its own, so service resumes without a restart when Redis is back.
//
// `watchRedis` logs an outage once when a connection is lost and once when it is back, instead of
// ioredis' error event on every reconnect attempt.
import { Redis, type RedisOptions } from 'ioredis';
import { errorFields, type Logger } from '../log.js';

/** A command on a connected Redis that gets no answer in this time fails (the caller goes on). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

export const failFast: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  connectTimeout: 2_000,
  // Reconnect attempts: quickly at first, then every 2 s while Redis stays away.
  retryStrategy: (times: number) => Math.min(100 * times, 2_000),
};

/** Told when a connection is lost (`down`) and when it is back (the metrics, server/metrics). */
export type RedisStateListener = (connection: string, down: boolean) => void;

export function watchRedis(conn: Redis, log: Logger, name: string, onChange?: RedisStateListener): void {
  let down = false;
  let since = 0;
  onChange?.(name, false);
  conn.on('error', (err: Error) => {
    if (down) return;
    down = true;
    since = Date.now();
    log.error({ err: errorFields(err), redis: name }, 'redis unreachable');
    onChange?.(name, true);
  });
  // Emitted only for a connection lost unexpectedly (not after quit or disconnect).
  conn.on('reconnecting', () => {
    if (down) return;
    down = true;
    since = Date.now();
    log.error({ redis: name }, 'redis connection lost');
    onChange?.(name, true);
  });
  conn.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ redis: name, downMs: Date.now() - since }, 'redis reachable again');
    onChange?.(name, false);
  });
}

/**
 * Connects and waits until the connection is ready (start-up fails when Redis cannot be reached
 * in `timeoutMs`, as it does for the event bus).
 */
export async function connectRedis(
  url: string,
  options: RedisOptions & { log: Logger; name: string; timeoutMs?: number; onChange?: RedisStateListener },
): Promise<Redis> {
  const { log, name, timeoutMs = 10_000, onChange, ...redisOptions } = options;
  const conn = new Redis(url, { ...redisOptions, lazyConnect: true, connectionName: name });
  watchRedis(conn, log, name, onChange);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      conn.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Redis (${name}): not connected within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    conn.disconnect();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return conn;
}
