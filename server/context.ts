import type { KeyObject } from 'node:crypto';
import type { Config } from './config.js';
import type { Db } from './db/knex.js';
import type { LivePatchReader } from './db/family-write.js';
import type { EventBus } from './events/bus.js';
import type { Logger } from './log.js';
import type { Mailer } from './mail/mailer.js';
import type { RateLimiters } from './http/ratelimit.js';
import type { RealtimeServer } from './realtime/server.js';
import type { DetailCache } from './lists/detail-cache.js';
import type { ReadCache } from './db/read-cache.js';
import type { Metrics } from './metrics/metrics.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Everything a service needs, passed explicitly (no module-level state). */
export interface Deps {
  config: Config;
  db: Db;
  bus: EventBus;
  log: Logger;
  clock: Clock;
  /** Secret for HS256 access tokens (from config or generated once and kept in the database). */
  jwtSecret: string;
  /** The same secret as a KeyObject, made once: what signs and verifies access tokens. */
  jwtKey: KeyObject;
  /** Reads a commit's live patch for the family write (realtime/patches.ts `committedDocs`). */
  livePatch: LivePatchReader;
  /** Optional ioredis client when REDIS_URL is set. */
  redis?: unknown;
  /** Outgoing email (SMTP or the dev outbox), see server/mail/mailer.ts. */
  mailer?: Mailer;
  /** Rate-limit middleware by bucket name (route specs name the bucket in `rateLimit`). */
  rateLimiters?: RateLimiters;
  /** The live channel (WebSocket hub), attached to the HTTP server at start. */
  realtime?: RealtimeServer;
  /** List details last built, by family version (server/lists/detail-cache.ts); none: no copies. */
  listDetailCache?: DetailCache;
  /**
   * Reads remembered until the next write (server/db/read-cache.ts): the membership check of a
   * request, `GET /api/me`. Only on the embedded database, whose every write goes through this
   * process; none on PostgreSQL, where every request asks the database.
   */
  readCache?: ReadCache;
  /** Hot statements run as the database functions made of them at start (PGlite only:
   *  server/db/statement-function.ts). */
  statementFunctions?: boolean;
  /** Prometheus metrics of this app (server/metrics); only when METRICS_PORT is set. */
  metrics?: Metrics;
  /** Extension slots filled by features (mailer, realtime hub, ...). */
  [key: string]: unknown;
}

export type Role = 'admin' | 'member';

/** The authenticated caller: user, the family stamped in the token, and the current role. */
export interface Actor {
  userId: string;
  familyId: string;
  role: Role;
  /** The session (refresh-token chain) named by the access token's `sid` claim, if any. */
  sessionId?: string;
}
