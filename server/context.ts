import type { KeyObject } from 'node:crypto';
import type { Config } from './config.js';
import type { ChangedDocs, CollectionName } from '@family-shopping/client/protocol';
import type { Db, Trx } from './db/knex.js';
import type { EventBus } from './events/public.js';
import type { Logger } from './log.js';
import type { Mailer } from './mail/public.js';
import type { RateLimiters } from './http/ratelimit.js';
import type { ReadCache } from './db/read-cache.js';
import type { Metrics } from './metrics/public.js';

export type { Actor, Role } from './actor.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Reads the live patch of a commit in its transaction, just before commit: the docs it wrote
 *  per collection, or undefined when there are too many (realtime/patches.ts `committedDocs`,
 *  handed in as `deps.livePatch` so that db needs no feature's row mapping). */
export type LivePatchReader = (
  trx: Trx,
  familyId: string,
  version: string,
  collections: readonly CollectionName[],
) => Promise<ChangedDocs | undefined>;

/** What the app needs of the live channel (server/realtime/server.ts `RealtimeServer`). */
export interface LiveChannel {
  readonly hub: { stats(): { sockets: number } };
  /** Open sockets, authenticated or not. */
  connectionCount(): number;
  /** Closes every socket and stops accepting new ones. */
  close(code?: number, reason?: string): Promise<void>;
}

/** A copy of a list detail JSON body with the family version it was built at. */
export interface CachedDetail {
  version: string;
  /** The JSON text, encoded once (UTF-8) rather than on every answer. */
  body: Buffer;
}

/** Where list details last built are kept (server/lists/detail-cache.ts `DetailCache`). */
export interface DetailCopies {
  get(key: string): CachedDetail | undefined;
  set(key: string, version: string, body: Buffer): void;
  delete(key: string): void;
}

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
  realtime?: LiveChannel;
  /** List details last built, by family version (server/lists/detail-cache.ts); none: no copies. */
  listDetailCache?: DetailCopies;
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
  /** How replication pushes are applied (server/sync/push.ts); default: the bulk path on. */
  push?: PushOptions;
}

/** How replication pushes are applied (server/sync/push.ts). */
export interface PushOptions {
  /** A push of items is applied set-wise (server/sync/bulk.ts) when it can be. */
  bulk: boolean;
  /** Called once per push the bulk path applied (tests compare the two paths). */
  onBulk?: () => void;
}
