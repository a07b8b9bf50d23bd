// Metrics (contract §11): METRICS_PORT serves Prometheus text at /metrics on 127.0.0.1, a port
// of its own: requests by route, status and duration, live sockets, events delivered,
// replication rows pulled and pushed, database pool use, dependency outages. Read here after
// real traffic, as Prometheus would scrape them.
import { expect } from 'chai';
import { Gauge } from 'prom-client';
import { captureLogs } from '../../helpers/logs.js';
import { waitFor } from '../../helpers/wait.js';
import { request, startTestApp, testApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { TestSocket } from '../realtime/client.js';
import { listDoc, pull, push } from '../sync/helpers.js';
import { pgBinDir, redisServerBinary, ThrowawayPostgres, ThrowawayRedis } from './throwaway-services.js';
import { usingPostgres } from '../../helpers/env.js';
import type { RunningServer } from '../../../server/server.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape(app: RunningServer): Promise<{ samples: Sample[]; text: string; type: string }> {
  const res = await fetch(app.metricsUrl!);
  expect(res.status).to.equal(200);
  const text = await res.text();
  return { samples: parse(text), text, type: res.headers.get('content-type') ?? '' };
}

/** The samples of `name` whose labels include `labels`. */
function matching(samples: Sample[], name: string, labels: Record<string, string>): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample of `name` whose labels include `labels` (0 when there is none). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = matching(samples, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** The value of a sample that must be there (a series that exists from the start). */
function present(samples: Sample[], name: string, labels: Record<string, string>): number {
  const found = matching(samples, name, labels);
  expect(found, `${name} ${JSON.stringify(labels)}`).to.have.length(1);
  return found[0]!.value;
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const P = 'family_shopping_';

describe('metrics (METRICS_PORT)', function () {
  this.timeout(60_000);
  let app: RunningServer;
  before(async () => {
    app = await startTestApp({ envOverrides: { METRICS_PORT: '0' } });
  });
  after(async () => {
    await app?.close();
  });

  it('serves Prometheus text on 127.0.0.1 at a port of its own, not on the public port', async () => {
    expect(app.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/metrics$/);
    expect(new URL(app.metricsUrl!).port).to.not.equal(String(app.port));
    const { type, text } = await scrape(app);
    expect(type).to.match(/^text\/plain; version=0\.0\.4/);
    expect(text).to.include(`# TYPE ${P}http_request_duration_seconds histogram`);
    const onPublic = await request(app, 'GET', '/metrics');
    expect(onPublic.text).to.not.include(P);
    expect((await fetch(app.metricsUrl!.replace('/metrics', '/elsewhere'))).status).to.equal(404);
  });

  it('is off without METRICS_PORT', async () => {
    const shared = await testApp();
    expect(shared.metricsUrl).to.equal(undefined);
    expect(shared.deps.metrics).to.equal(undefined);
  });

  it('counts requests by route template and status, live sockets and the events they were sent', async () => {
    const f = await makeFamily(app);
    const token = f.admin.token;
    const socket = await TestSocket.connect(app, token);
    try {
      const created = await request(app, 'POST', '/api/lists', { token, body: { name: 'Weekly' } });
      expect(created.status).to.equal(201);
      const listId: string = created.body.id;
      await socket.next((fr) => fr.type === 'ListCreated' && fr.list?.id === listId);
      expect((await request(app, 'GET', `/api/lists/${listId}`, { token })).status).to.equal(200);
      expect((await request(app, 'GET', `/api/lists/${listId}`, { token })).status).to.equal(200);
      expect((await request(app, 'GET', `/api/lists/${crypto.randomUUID()}`, { token })).status).to.equal(404);
      expect((await request(app, 'GET', '/api/nowhere', { token })).status).to.equal(404);
      const page = await request(app, 'GET', `/lists/${listId}`);

      const { samples, text } = await scrape(app);
      const count = (labels: Record<string, string>) =>
        value(samples, `${P}http_request_duration_seconds_count`, labels);
      expect(count({ method: 'POST', route: '/api/lists', status: '201' })).to.equal(1);
      expect(count({ method: 'GET', route: '/api/lists/:listId', status: '200' })).to.equal(2);
      expect(count({ method: 'GET', route: '/api/lists/:listId', status: '404' })).to.equal(1);
      expect(count({ method: 'GET', route: '(unmatched)', status: '404' })).to.equal(1);
      // A page of the web app (every path outside /api): one route for all of them.
      expect(count({ method: 'GET', route: '(web)', status: String(page.status) })).to.be.at.least(1);
      // Durations: the histogram's buckets and sum for the same labels.
      const labels = { method: 'GET', route: '/api/lists/:listId', status: '200' };
      expect(value(samples, `${P}http_request_duration_seconds_bucket`, { ...labels, le: '+Inf' })).to.equal(2);
      expect(value(samples, `${P}http_request_duration_seconds_sum`, labels)).to.be.greaterThan(0);
      // Never a raw path: no id reaches a label.
      expect(text).to.not.include(listId);

      expect(value(samples, `${P}live_sockets`)).to.equal(1);
      expect(value(samples, `${P}live_events_delivered_total`)).to.be.at.least(1);
    } finally {
      socket.close();
    }
    await socket.closed;
    await eventually('the socket leaves the gauge', async () => {
      return value((await scrape(app)).samples, `${P}live_sockets`) === 0;
    });
  });

  it('counts replication rows pulled and pushed, by collection and outcome', async () => {
    const f = await makeFamily(app);
    const t = f.admin.token;
    const before = (await scrape(app)).samples;
    const a = listDoc({ name: 'A' });
    const b = listDoc({ name: 'B' });
    expect((await push(app, t, 'lists', [{ newDocumentState: a }, { newDocumentState: b }])).status).to.equal(200);
    // The same id again, assuming nothing: a conflict.
    const again = await push(app, t, 'lists', [{ newDocumentState: { ...a, name: 'A2' } }]);
    expect(again.body.conflicts).to.have.length(1);
    const page = await pull(app, t, 'lists');
    expect(page.body.documents).to.have.length(2);
    expect((await pull(app, t, 'stores')).body.documents).to.have.length(0);

    const after = (await scrape(app)).samples;
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, `${P}${name}`, labels) - value(before, `${P}${name}`, labels);
    expect(moved('replication_rows_pushed_total', { collection: 'lists', outcome: 'accepted' })).to.equal(2);
    expect(moved('replication_rows_pushed_total', { collection: 'lists', outcome: 'conflict' })).to.equal(1);
    expect(moved('replication_rows_pushed_total', { collection: 'lists', outcome: 'rejected' })).to.equal(0);
    expect(moved('replication_rows_pulled_total', { collection: 'lists' })).to.equal(2);
    expect(moved('replication_rows_pulled_total', { collection: 'stores' })).to.equal(0);
  });

  it('reports the database pool and that the database is reachable', async () => {
    const { samples } = await scrape(app);
    const pool = (state: string) => value(samples, `${P}db_pool_connections`, { state });
    expect(pool('max')).to.be.at.least(1);
    expect(pool('used') + pool('free')).to.be.within(1, pool('max'));
    expect(pool('pending')).to.equal(0);
    const db = { dependency: 'database', connection: 'pool' };
    // Both series exist from the start, at 0: an alert on them needs no first outage.
    expect(present(samples, `${P}dependency_unreachable`, db)).to.equal(0);
    expect(present(samples, `${P}dependency_outages_total`, db)).to.equal(0);
  });

  it('shows a connection in use while a transaction holds it', async () => {
    const trx = await app.deps.db.transaction();
    try {
      await trx.raw('select 1');
      const { samples } = await scrape(app);
      expect(present(samples, `${P}db_pool_connections`, { state: 'used' })).to.be.at.least(1);
    } finally {
      await trx.rollback();
    }
  });

  it('counts a query waiting for a connection as pending while every connection is held', async () => {
    const db = app.deps.db;
    const max = present((await scrape(app)).samples, `${P}db_pool_connections`, { state: 'max' });
    expect(max).to.be.at.least(1);
    const held = await Promise.all(Array.from({ length: max }, () => db.transaction()));
    let waiting: Promise<unknown> | undefined;
    try {
      await Promise.all(held.map((trx) => trx.raw('select 1')));
      waiting = db.raw('select 1').then(() => 'answered');
      await waitFor(
        async () => present((await scrape(app)).samples, `${P}db_pool_connections`, { state: 'pending' }) >= 1,
        'a pending connection',
      );
    } finally {
      await Promise.all(held.map((trx) => trx.rollback()));
    }
    expect(await waiting).to.equal('answered');
  });

  it('answers only GET and HEAD at /metrics, whatever its query; HEAD without a body', async () => {
    const post = await fetch(app.metricsUrl!, { method: 'POST' });
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
    expect(await post.text()).to.equal('Method not allowed\n');
    const head = await fetch(app.metricsUrl!, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(await head.text()).to.equal('');
    const queried = await fetch(`${app.metricsUrl!}?name[]=x`);
    expect(queried.status).to.equal(200);
    expect(await queried.text()).to.include(`${P}live_sockets`);
    const elsewhere = await fetch(app.metricsUrl!.replace('/metrics', '/'));
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(await elsewhere.text()).to.equal('Not found\n');
  });

  it('answers 500 when a metric cannot be collected: the error is logged (no stack), never sent', async () => {
    const captured = captureLogs();
    const own = await startTestApp({ db: app.deps.db, envOverrides: { METRICS_PORT: '0' }, logger: captured.logger });
    try {
      new Gauge({
        name: `${P}test_broken`,
        help: 'a gauge whose collection fails',
        registers: [own.deps.metrics!.registry],
        collect() {
          throw new Error('secret detail of the failure');
        },
      });
      const res = await fetch(own.metricsUrl!);
      expect(res.status).to.equal(500);
      const body = await res.text();
      expect(body).to.equal('Metrics could not be collected\n');
      expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      const logged = captured.lines.filter((l) => l.msg === 'metrics could not be collected');
      expect(logged).to.have.length(1);
      expect(logged[0]!.level).to.equal(50);
      expect(logged[0]!.err).to.deep.include({ message: 'secret detail of the failure' });
      expect(JSON.stringify(logged[0])).to.not.include('at ');
    } finally {
      await own.close();
    }
  });

  it('refuses to start when METRICS_PORT is taken', async () => {
    const taken = new URL(app.metricsUrl!).port;
    let failed: unknown;
    try {
      const other = await startTestApp({ db: app.deps.db, envOverrides: { METRICS_PORT: taken } });
      await other.close();
    } catch (err) {
      failed = err;
    }
    expect(failed, 'the start failed').to.be.instanceOf(Error);
    expect((failed as NodeJS.ErrnoException).code).to.equal('EADDRINUSE');
  });

  it('gives each app its own registry: a second app counts only its own requests', async () => {
    const other = await startTestApp({ db: app.deps.db, envOverrides: { METRICS_PORT: '0' } });
    try {
      expect(other.metricsUrl).to.not.equal(app.metricsUrl);
      await request(other, 'GET', '/healthz');
      await request(other, 'GET', '/healthz');
      const mine = (await scrape(app)).samples;
      const theirs = (await scrape(other)).samples;
      const healthz = { method: 'GET', route: '/healthz', status: '200' };
      expect(value(theirs, `${P}http_request_duration_seconds_count`, healthz)).to.equal(2);
      expect(value(mine, `${P}http_request_duration_seconds_count`, healthz)).to.equal(0);
    } finally {
      await other.close();
    }
  });

  describe('a Redis outage', () => {
    let redis: ThrowawayRedis;
    let withRedis: RunningServer;
    before(async function () {
      if (!redisServerBinary()) this.skip(); // CI installs redis-server in every leg
      redis = await ThrowawayRedis.start();
      withRedis = await startTestApp({ envOverrides: { METRICS_PORT: '0', REDIS_URL: redis.url } });
    });
    after(async () => {
      await withRedis?.close();
      await redis?.destroy();
    });

    it('is counted once per connection and shown while it lasts', async () => {
      const series = (connection: string) => ({ dependency: 'redis', connection });
      const connections = ['fs-events-pub', 'fs-events-sub', 'fs-ratelimit'];
      let { samples } = await scrape(withRedis);
      for (const c of connections) {
        expect(value(samples, `${P}dependency_unreachable`, series(c)), c).to.equal(0);
        expect(value(samples, `${P}dependency_outages_total`, series(c)), c).to.equal(0);
      }
      await redis.stop();
      await eventually('every Redis connection is reported unreachable', async () => {
        samples = (await scrape(withRedis)).samples;
        return connections.every((c) => value(samples, `${P}dependency_unreachable`, series(c)) === 1);
      });
      for (const c of connections) expect(value(samples, `${P}dependency_outages_total`, series(c)), c).to.equal(1);
      await redis.start();
      await eventually('every Redis connection is reported back', async () => {
        samples = (await scrape(withRedis)).samples;
        return connections.every((c) => value(samples, `${P}dependency_unreachable`, series(c)) === 0);
      });
      for (const c of connections) expect(value(samples, `${P}dependency_outages_total`, series(c)), c).to.equal(1);
    });
  });

  describe('a database outage', () => {
    let pg: ThrowawayPostgres;
    let withPg: RunningServer;
    before(async function () {
      // A PostgreSQL cluster of the test's own, in the PostgreSQL leg (as outages.test.ts).
      if (!usingPostgres || !pgBinDir()) this.skip();
      this.timeout(120_000);
      pg = await ThrowawayPostgres.start();
      withPg = await startTestApp({ envOverrides: { METRICS_PORT: '0', DATABASE_URL: pg.url } });
    });
    after(async () => {
      await withPg?.close();
      await pg?.destroy();
    });

    it('is counted once and shown while it lasts, with the pool of PostgreSQL', async () => {
      const db = { dependency: 'database', connection: 'pool' };
      const f = await makeFamily(withPg);
      expect((await request(withPg, 'GET', '/api/lists', { token: f.admin.token })).status).to.equal(200);
      let { samples } = await scrape(withPg);
      expect(value(samples, `${P}db_pool_connections`, { state: 'max' })).to.equal(20);
      expect(value(samples, `${P}dependency_unreachable`, db)).to.equal(0);

      await pg.stop();
      for (let i = 0; i < 3; i++) {
        expect((await request(withPg, 'GET', '/api/lists', { token: f.admin.token })).status).to.equal(503);
      }
      samples = (await scrape(withPg)).samples;
      expect(value(samples, `${P}dependency_unreachable`, db)).to.equal(1);
      expect(value(samples, `${P}dependency_outages_total`, db)).to.equal(1);
      expect(
        value(samples, `${P}http_request_duration_seconds_count`, {
          method: 'GET',
          route: '/api/lists',
          status: '503',
        }),
      ).to.equal(3);

      await pg.start();
      await eventually('the database is reported back', async () => {
        samples = (await scrape(withPg)).samples;
        return value(samples, `${P}dependency_unreachable`, db) === 0;
      });
      expect(value(samples, `${P}dependency_outages_total`, db)).to.equal(1);
    });
  });
});
