// Starts the whole service: config → database → migrations → startup jobs → HTTP (+ WebSocket).
// Used by main.ts and by the tests (port 0).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from './config.js';
import { createLogger, errorFields, type Logger } from './log.js';
import { closeDb, createDb, isEmbedded, resolveTarget, type Db } from './db/knex.js';
import { ReadCache } from './db/read-cache.js';
import { migrateLatest } from './db/migrate.js';
import { runStartupJobs } from './startup/jobs.js';
import { InProcessBus, type EventBus } from './events/bus.js';
import { RedisBus } from './events/redis-bus.js';
import { attachRealtime, type RealtimeOptions } from './realtime/server.js';
import { committedDocs } from './realtime/patches.js';
import { systemClock, type Clock, type Deps, type PushOptions } from './context.js';
import { buildApp } from './app.js';
import { jwtKey } from './auth/tokens.js';
import { DetailCache } from './lists/detail-cache.js';
import { DETAIL_FUNCTION } from './lists/queries.js';
import { ITEM_PHASE_PAGE_FUNCTION, ITEMS_PAGE_FUNCTIONS } from './sync/queries.js';
import { createStatementFunction } from './db/statement-function.js';
import { clientErrorHandler } from './http/middleware.js';
import type { ApiRouter } from './http/route.js';
import { createMailer } from './mail/mailer.js';
import { ownBaseUrl } from './mail/base-url.js';
import { connectRateLimitRedis, createRateLimiters } from './http/ratelimit.js';
import { schedulePurge } from './sync/purge.js';
import { openControlSocket } from './ops/control.js';
import { loadTlsFiles } from './tls.js';
import { Metrics } from './metrics/metrics.js';
import { startMetricsEndpoint, type MetricsEndpoint } from './metrics/endpoint.js';

export interface StartOptions {
  env?: Record<string, string | undefined>;
  clock?: Clock;
  logger?: Logger;
  /** Reuse an existing database handle (tests share one PGlite across apps). */
  db?: Db;
  /**
   * Prefix of rate-limit keys in Redis (default `fs:rl`, shared by every instance). Under
   * NODE_ENV=test each app gets its own random prefix so test runs never share counters.
   */
  rateLimitKeyPrefix?: string;
  /** Live-channel tunables (tests shorten heartbeats, buffers and timeouts). */
  realtime?: RealtimeOptions;
  /** Slow-client limits (HTTP_TIMEOUTS); tests shorten them. */
  httpTimeouts?: Partial<typeof HTTP_TIMEOUTS>;
  /** How replication pushes are applied (default: the bulk path on); tests compare the paths. */
  push?: PushOptions;
}

/**
 * A request's headers must arrive within 10 s and the whole request within 30 s, else `408`
 * and the connection is closed (api-contract §13 "Slow clients"; Node's `headersTimeout` and
 * `requestTimeout`, answered by clientErrorHandler). Node checks them every `checkIntervalMs`.
 */
export const HTTP_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1_000 };

export interface CloseOptions {
  /** Close live sockets with 1012 (service restart) instead of 1001 (going away). */
  restart?: boolean;
}

export interface RunningServer {
  /** `https://…` when TLS_CERT_FILE / TLS_KEY_FILE are set, `http://…` otherwise. */
  url: string;
  port: number;
  /** `http://127.0.0.1:{port}/metrics` when METRICS_PORT is set (server/metrics). */
  metricsUrl?: string;
  deps: Deps;
  api: ApiRouter;
  server: http.Server;
  close(options?: CloseOptions): Promise<void>;
}

/** The statements kept as functions on PGlite (server/db/statement-function.ts). */
const STATEMENT_FUNCTIONS = [
  DETAIL_FUNCTION,
  ITEMS_PAGE_FUNCTIONS.first,
  ITEMS_PAGE_FUNCTIONS.next,
  ITEM_PHASE_PAGE_FUNCTION,
];

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const config: Config = loadConfig(options.env ?? process.env);
  // Checked before anything is opened: bad files stop the start with the variable named.
  const tls = loadTlsFiles(config);
  const log = options.logger ?? createLogger(config.LOG_LEVEL);
  const ownsDb = !options.db;
  const target = resolveTarget(config.DATABASE_URL, config.DATA_DIR);
  const db = options.db ?? createDb(target, log);
  await migrateLatest(db);
  const { jwtSecret } = await runStartupJobs(db, config, log);
  const metrics = config.METRICS_PORT !== undefined ? new Metrics(db) : undefined;
  const onRedisChange = metrics && ((name: string, down: boolean) => metrics.dependencyState('redis', name, down));

  // With REDIS_URL, events fan out to every instance through Redis; otherwise in process.
  const bus: EventBus = config.REDIS_URL
    ? await RedisBus.connect({ url: config.REDIS_URL, log, onConnectionChange: onRedisChange })
    : new InProcessBus();
  const deps: Deps = {
    config,
    db,
    bus,
    log,
    clock: options.clock ?? systemClock,
    jwtSecret,
    jwtKey: jwtKey(jwtSecret),
    livePatch: committedDocs,
  };
  if (metrics) deps.metrics = metrics;
  if (options.push) deps.push = options.push;
  if (config.LIST_DETAIL_CACHE_MB > 0)
    deps.listDetailCache = new DetailCache(config.LIST_DETAIL_CACHE_MB * 1024 * 1024);
  // PGlite: this process makes every write, so a read can be remembered exactly until the next.
  if (isEmbedded(db)) {
    deps.readCache = new ReadCache(db);
    // PGlite prepares no statement: the hot statements' plans are kept by functions instead.
    for (const s of STATEMENT_FUNCTIONS) await createStatementFunction(db, s);
    deps.statementFunctions = true;
  }
  // The rate-limit counters' own connection, which never makes a request wait (ratelimit.ts).
  const redis = config.REDIS_URL ? await connectRateLimitRedis(config.REDIS_URL, log, onRedisChange) : undefined;
  if (redis) deps.redis = redis;
  deps.mailer = createMailer(config, log, config.APP_BASE_URL ? { appBaseUrl: config.APP_BASE_URL } : {});
  deps.rateLimiters = createRateLimiters({
    redis,
    log,
    keyPrefix:
      options.rateLimitKeyPrefix ??
      (config.NODE_ENV === 'test' ? `fs:rl:test-${Math.random().toString(36).slice(2, 10)}` : 'fs:rl'),
  });

  const { app, api, dbAvailability } = buildApp(deps);
  // TLS: HTTPS, and WSS through the same server's upgrade event (realtime/server.ts).
  const server = tls
    ? https.createServer({ cert: tls.cert, key: tls.key }, app.callback())
    : http.createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  const timeouts = { ...HTTP_TIMEOUTS, ...options.httpTimeouts };
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  // Read when the server starts listening (Node's default, 30 s, would let a request run 60 s).
  (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = timeouts.checkIntervalMs;
  server.on('clientError', clientErrorHandler());
  const realtime = attachRealtime(server, deps, options.realtime);
  deps.realtime = realtime;
  metrics?.countLiveSockets(() => realtime.connectionCount());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const stopPurge = schedulePurge(deps); // tombstone retention (unref'd interval)
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const protocol = tls ? 'https' : 'http';
  const url = `${protocol}://${host}:${port}`;
  // APP_BASE_URL unset: links in emails start with the address the server listens on.
  deps.mailer.setAppBaseUrl(config.APP_BASE_URL ?? ownBaseUrl(config.HOST, port, protocol));
  // The embedded database in a directory: `npm run backup` and `npm run admin` reach it through
  // this service, as no second process may open it (server/ops/control.ts).
  const control =
    ownsDb && target.kind === 'pglite' && target.dataDir
      ? await openControlSocket(target.dataDir, { deps, baseUrl: () => deps.mailer!.appBaseUrl() }).catch((err) => {
          log.warn({ err: errorFields(err) }, 'no control socket: backup and admin need the service stopped');
          return undefined;
        })
      : undefined;
  let metricsEndpoint: MetricsEndpoint | undefined;

  let closing: Promise<void> | undefined;
  const close = (closeOptions: CloseOptions = {}) =>
    (closing ??= (async () => {
      stopPurge();
      dbAvailability.close();
      await metricsEndpoint?.close();
      // Live sockets first, with a code that tells clients to reconnect (elsewhere).
      await realtime.close(closeOptions.restart ? 1012 : 1001);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections?.();
        setTimeout(() => server.closeAllConnections?.(), 5_000).unref();
      });
      await bus.close();
      await deps.mailer?.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await control?.close();
      if (ownsDb) await closeDb(db, target);
    })());

  const running: RunningServer = { url, port, deps, api, server, close };
  if (metrics && config.METRICS_PORT !== undefined) {
    try {
      metricsEndpoint = await startMetricsEndpoint(metrics, config.METRICS_PORT, log);
    } catch (err) {
      await close(); // METRICS_PORT taken: the start fails as a taken PORT does
      throw err;
    }
    running.metricsUrl = metricsEndpoint.url;
  }
  return running;
}
