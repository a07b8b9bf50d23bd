// Event fan-out across server instances through Redis pub/sub (ioredis).
//
// - One channel, `fs:events`, carries every family's events as JSON
//   `{ familyId, events, origin }`. Every instance subscribes to it and hands each message to its
//   local subscribers (the realtime hub), which route by family at the source: the hub looks up
//   only that family's group. One channel keeps the subscription static (no SUBSCRIBE churn as
//   sockets come and go); per-family channels would only pay off at many thousands of families
//   per instance.
// - The publishing instance delivers to its own subscribers directly (lowest latency, and local
//   sockets still get events while Redis is unreachable) and skips its own echo by `origin`, a
//   random id per bus instance. So each instance delivers each publish exactly once.
// - Two connections: a subscriber connection (pub/sub) and a publisher connection. ioredis 6
//   speaks RESP3 by default, where pub/sub messages arrive as push frames and a subscribed
//   connection could also run commands; we keep them separate anyway so the code does not
//   depend on the protocol version (under RESP2 a subscribed connection can run nothing else).
//   ioredis re-subscribes after a reconnect; messages published while disconnected are lost
//   (pub/sub is at-most-once), which clients cover by pulling after `Changed` or a reconnect.
// - Publishing never waits on Redis: `publish` delivers locally and hands the message to the
//   publisher connection without awaiting it. That connection has no offline queue and no
//   retries (redis-connection.ts `failFast`), so while Redis is unreachable the message for other
//   instances is dropped at once (their devices catch up through the replication pull when they
//   next pull), and a write's answer never waits for Redis. Failures are logged once per outage.
import { Redis, type RedisOptions } from 'ioredis';
import crypto from 'node:crypto';
import type { EventBus, FamilyEvent, FamilyEventHandler } from './bus.js';
import { errorFields, type Logger } from '../log.js';
import { failFast, watchRedis, type RedisStateListener } from './redis-connection.js';

export const EVENTS_CHANNEL = 'fs:events';

export interface RedisBusOptions {
  url: string;
  log: Logger;
  channel?: string;
  /** Extra ioredis options (tests pass `protocol`). */
  redisOptions?: RedisOptions;
  /** How long start-up waits for the subscription before failing. */
  connectTimeoutMs?: number;
  /** Told when a connection is lost and back (the metrics). */
  onConnectionChange?: RedisStateListener;
}

interface Envelope {
  familyId: string;
  events: FamilyEvent[];
  origin: string;
}

export class RedisBus implements EventBus {
  readonly instanceId = crypto.randomUUID();
  readonly channel: string;
  private readonly handlers = new Set<FamilyEventHandler>();
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly log: Logger;
  private closed = false;
  private dropped = 0;
  private publishFailing = false;

  private constructor(options: RedisBusOptions) {
    this.channel = options.channel ?? EVENTS_CHANNEL;
    this.log = options.log;
    const base: RedisOptions = { ...options.redisOptions, lazyConnect: true };
    // A PUBLISH that cannot reach Redis must not hold the family write that triggered it.
    this.pub = new Redis(options.url, { ...base, ...failFast, connectionName: 'fs-events-pub' });
    this.sub = new Redis(options.url, {
      ...base,
      retryStrategy: failFast.retryStrategy,
      connectionName: 'fs-events-sub',
    });
    watchRedis(this.pub, this.log, 'fs-events-pub', options.onConnectionChange);
    watchRedis(this.sub, this.log, 'fs-events-sub', options.onConnectionChange);
    this.sub.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.onMessage(message);
    });
  }

  /** Connects both connections and subscribes before resolving, so no event published after
   *  start-up is missed by this instance. */
  static async connect(options: RedisBusOptions): Promise<RedisBus> {
    const bus = new RedisBus(options);
    const timeoutMs = options.connectTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.all([bus.pub.connect(), bus.sub.connect().then(() => bus.sub.subscribe(bus.channel))]),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Redis event bus: no subscription within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } catch (err) {
      bus.pub.disconnect();
      bus.sub.disconnect();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return bus;
  }

  /** Resolves once delivered to this instance's subscribers; never waits for Redis. */
  async publish(familyId: string, events: FamilyEvent[]): Promise<void> {
    if (events.length === 0 || this.closed) return;
    this.deliver(familyId, events);
    const envelope: Envelope = { familyId, events, origin: this.instanceId };
    if (this.pub.status !== 'ready') {
      this.dropped++; // Redis is unreachable (logged by watchRedis): other instances miss this one
      return;
    }
    this.pub.publish(this.channel, JSON.stringify(envelope)).then(
      () => {
        this.publishFailing = false;
      },
      (err: unknown) => {
        this.dropped++;
        if (this.publishFailing) return;
        this.publishFailing = true;
        this.log.error(
          { err: errorFields(err) },
          'redis event bus: publish failed, events for other instances dropped',
        );
      },
    );
  }

  /** Publishes that did not reach Redis (for tests and diagnostics). */
  get droppedCount(): number {
    return this.dropped;
  }

  subscribe(handler: FamilyEventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.handlers.clear();
    await Promise.all(
      [this.sub, this.pub].map((c) => (c.status === 'end' ? undefined : c.quit().catch(() => c.disconnect()))),
    );
  }

  private onMessage(message: string): void {
    let env: Partial<Envelope>;
    try {
      env = JSON.parse(message) as Partial<Envelope>;
    } catch {
      this.log.warn({ channel: this.channel }, 'redis event bus: message is not JSON');
      return;
    }
    if (env.origin === this.instanceId) return; // delivered locally at publish
    if (typeof env.familyId !== 'string' || !Array.isArray(env.events)) {
      this.log.warn({ channel: this.channel }, 'redis event bus: malformed envelope');
      return;
    }
    const events = env.events.filter(
      (e): e is FamilyEvent => !!e && typeof e === 'object' && typeof (e as FamilyEvent).type === 'string',
    );
    if (events.length > 0) this.deliver(env.familyId, events);
  }

  private deliver(familyId: string, events: FamilyEvent[]): void {
    for (const h of this.handlers) {
      try {
        h(familyId, events);
      } catch (err) {
        this.log.error({ err: errorFields(err) }, 'event subscriber failed');
      }
    }
  }
}
