// The service's Prometheus metrics (contract §11, docs/operations.md "Metrics"), made with
// prom-client. Each running app has its own Registry (tests start several apps in one process,
// so nothing goes to prom-client's global registry). Made only when METRICS_PORT is set: with
// metrics off, `deps.metrics` is undefined and every hook is a no-op.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/knex.js';

const PREFIX = 'family_shopping_';

/** What a pool reports (knex's tarn pool, on PostgreSQL and on PGlite alike). */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
}

export type Dependency = 'database' | 'redis';

export class Metrics {
  readonly registry = new Registry();

  /** A counter of this app's registry, named with the service's prefix. */
  private counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) {
    return new Counter<L>({ name: PREFIX + name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge of this app's registry, named with the service's prefix. */
  private gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) {
    return new Gauge<L>({ name: PREFIX + name, help, labelNames, registers: [this.registry] });
  }

  /** Requests by method, route template and status; `_count` counts them. */
  readonly httpRequestDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests by method, route template and status, and how long they took to answer',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Frames sent to live sockets by the hub (a committed write's events, one per socket). */
  readonly liveEventsDelivered = this.counter(
    'live_events_delivered_total',
    'Live-channel event frames delivered to sockets',
  );

  readonly replicationRowsPulled = this.counter(
    'replication_rows_pulled_total',
    'Documents sent by replication pulls, by collection',
    ['collection'],
  );

  readonly replicationRowsPushed = this.counter(
    'replication_rows_pushed_total',
    'Rows received by replication pushes, by collection and outcome (accepted, conflict, rejected)',
    ['collection', 'outcome'],
  );

  readonly dependencyOutages = this.counter(
    'dependency_outages_total',
    'Times a dependency became unreachable, by dependency and connection',
    ['dependency', 'connection'],
  );

  readonly dependencyUnreachable = this.gauge(
    'dependency_unreachable',
    '1 while a dependency is unreachable, 0 when it answers, by dependency and connection',
    ['dependency', 'connection'],
  );

  private liveSocketCount: () => number = () => 0;

  constructor(db: Db) {
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    const sockets = (): number => this.liveSocketCount();
    new Gauge({
      name: `${PREFIX}live_sockets`,
      help: 'Open live-channel sockets (authenticated or not)',
      registers: [this.registry],
      collect() {
        this.set(sockets());
      },
    });
    const pool = (db.client as { pool?: TarnPool }).pool;
    new Gauge({
      name: `${PREFIX}db_pool_connections`,
      help: 'Database pool connections by state: used, free, pending (waiting for one), max',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        // knex makes the pool with its first query: before that, all zero.
        const p = (db.client as { pool?: TarnPool }).pool ?? pool;
        this.set({ state: 'used' }, p?.numUsed() ?? 0);
        this.set({ state: 'free' }, p?.numFree() ?? 0);
        this.set({ state: 'pending' }, (p?.numPendingAcquires() ?? 0) + (p?.numPendingCreates() ?? 0));
        this.set({ state: 'max' }, p?.max ?? 0);
      },
    });
    this.dependencyState('database', 'pool', false);
  }

  /** The live channel's socket count, read at each scrape. */
  countLiveSockets(count: () => number): void {
    this.liveSocketCount = count;
  }

  /** A dependency was lost (`down`) or answers again; called once per change of state. */
  dependencyState(dependency: Dependency, connection: string, down: boolean): void {
    if (down) this.dependencyOutages.inc({ dependency, connection });
    else this.dependencyOutages.inc({ dependency, connection }, 0); // the series exists from the start
    this.dependencyUnreachable.set({ dependency, connection }, down ? 1 : 0);
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
