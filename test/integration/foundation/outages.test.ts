// What the service does while Redis or PostgreSQL cannot be reached (contract §7 "Failure
// statuses"), against a real redis-server and a real PostgreSQL cluster that the test stops and
// starts. Both are the test's own (free ports, temp directories: throwaway-services.ts), so the
// servers the rest of the suite uses are never disturbed.
//
// They run in the PostgreSQL + Redis leg only (DATABASE_URL is a postgres:// URL and REDIS_URL is
// set) and when the server binaries are installed (CI installs them in every leg). Why that leg:
// it is the production topology these outages belong to (an embedded PGlite has no server to
// lose), the code under test does not depend on the leg (each test brings its own servers), and
// a PostgreSQL cluster's initdb costs seconds, which the two embedded legs would pay again for
// nothing new.
//
// The issue asks for logins within 1 s and writes within 300 ms while Redis is down. Each is
// measured as the median of several requests (one slow request on a loaded 2-core machine is not
// a hang; before, every one of them waited 2 s or ~60 s), with a ceiling of 5 s on each. A login
// is mostly argon2, which on a machine loaded by a parallel suite alone can take ~800 ms with
// Redis up; so the bound is 1 s (300 ms) or, where the same requests with Redis up are already
// slower than that allows, their median plus 500 ms (200 ms): what is asserted is that a Redis
// outage adds no wait.
import { expect } from 'chai';
import { SCHEMA_VERSION } from '@family-shopping/client/protocol';
import { request, startTestApp, type HttpResult } from '../../helpers/app.js';
import { usingPostgres, usingRedis } from '../../helpers/env.js';
import { DEFAULT_PASSWORD, makeFamily, registerViaApi } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { TestSocket } from '../realtime/client.js';
import { pgBinDir, redisServerBinary, ThrowawayPostgres, ThrowawayRedis } from './throwaway-services.js';
import net from 'node:net';
import { closeDb, createDb, PG_CONNECT_TIMEOUT_MS, resolveTarget } from '../../../server/db/knex.js';
import { isDbUnavailable, mapPgError } from '../../../server/db/errors.js';
import { captureLogs, type LogLine } from '../../helpers/logs.js';

const inLeg = usingPostgres && usingRedis;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('outages: Redis unreachable', function () {
  this.timeout(120_000);
  let redis: ThrowawayRedis;
  let a: RunningServer;
  let b: RunningServer;
  let logs: LogLine[];

  before(async function () {
    if (!inLeg || !redisServerBinary()) this.skip(); // see the header
    redis = await ThrowawayRedis.start();
    const captured = captureLogs();
    logs = captured.lines;
    a = await startTestApp({ envOverrides: { REDIS_URL: redis.url }, logger: captured.logger });
    b = await startTestApp({ envOverrides: { REDIS_URL: redis.url } });
  });

  after(async () => {
    await a?.close();
    await b?.close();
    await redis?.destroy();
  });

  it('logins answer at once and pass uncounted, writes do not wait on the bus, and all recovers when Redis is back', async () => {
    const fam = await makeFamily(a);
    const login = () =>
      request(a, 'POST', '/api/auth/login', { body: { email: fam.admin.email, password: DEFAULT_PASSWORD } });
    expect((await login()).status).to.equal(200);
    const onA = await TestSocket.connect(a, fam.admin.token);
    const onB = await TestSocket.connect(b, fam.admin.token);
    const createList = (name: string) => request(a, 'POST', '/api/lists', { token: fam.admin.token, body: { name } });
    const before = await createList('Before');
    await onB.next((f) => f.type === 'ListCreated' && f.list?.id === before.body.id);

    // The same requests with Redis up, for the bounds (see the header).
    const baseLogins: number[] = [];
    const baseWrites: number[] = [];
    for (let i = 0; i < 5; i++) baseLogins.push((await timed(login)).ms);
    for (let i = 0; i < 5; i++) baseWrites.push((await timed(() => createList(`Baseline ${i}`))).ms);
    const loginBound = Math.max(1_000, median(baseLogins) + 500);
    const writeBound = Math.max(300, median(baseWrites) + 200);

    await redis.stop();

    // Rate-limited endpoints answer at once (before: ~60 s in ioredis' offline queue).
    const logins: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { ms, value } = await timed(login);
      expect(value.status, 'login while Redis is down').to.equal(200);
      expect(ms).to.be.below(5_000);
      logins.push(ms);
    }
    expect(median(logins), `login times ${logins.map(Math.round).join(', ')} ms`).to.be.below(loginBound);
    const others: [string, () => Promise<HttpResult>, number][] = [
      ['register', () => registerViaApi(a, { newFamilyName: 'Outage family' }) as unknown as Promise<HttpResult>, 201],
      [
        'forgot-password',
        () => request(a, 'POST', '/api/auth/forgot-password', { body: { email: fam.admin.email } }),
        200,
      ],
      [
        'reset-password',
        () =>
          request(a, 'POST', '/api/auth/reset-password', {
            body: { token: 'x'.repeat(43), newPassword: 'a new long password' },
          }),
        400,
      ],
    ];
    for (const [label, call, status] of others) {
      const { ms, value } = await timed(call);
      expect(value.status, label).to.equal(status);
      expect(ms, label).to.be.below(2_000);
    }
    // Uncounted: past the limit of 5 an hour, forgot-password still passes.
    for (let i = 0; i < 6; i++) {
      expect(
        (await request(a, 'POST', '/api/auth/forgot-password', { body: { email: fam.admin.email } })).status,
      ).to.equal(200);
    }

    // Writes do not wait on the event bus (before: the 2 s publish timeout each), and sockets of
    // the writing instance still get their events.
    const writes: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { ms, value } = await timed(() => createList(`During ${i}`));
      expect(value.status).to.equal(201);
      expect(ms).to.be.below(5_000);
      writes.push(ms);
      ids.push(value.body.id);
      await onA.next((f) => f.type === 'ListCreated' && f.list?.id === value.body.id);
    }
    expect(median(writes), `write times ${writes.map(Math.round).join(', ')} ms`).to.be.below(writeBound);
    // Events for the other instance were dropped; its devices catch up through the pull.
    const pulled = await request(b, 'GET', `/api/sync/lists/pull?schema=${SCHEMA_VERSION}&limit=200`, {
      token: fam.admin.token,
    });
    expect(pulled.status).to.equal(200);
    expect(pulled.body.documents.map((d: { id: string }) => d.id)).to.include.members(ids);

    // One line for the outage, not one per request.
    expect(logs.filter((l) => l.msg.startsWith('rate limiter unavailable')).length).to.be.within(1, 2);
    expect(logs.filter((l) => l.msg === 'unhandled error')).to.deep.equal([]);

    await redis.start();

    // Without a restart: events cross instances again …
    await eventually('events reach instance two again', async () => {
      const r = await createList('After');
      return await onB.next((f) => f.type === 'ListCreated' && f.list?.id === r.body.id, 1_000);
    });
    // … and the limits count again (Redis came back empty: 5 pass, the 6th is limited).
    await eventually('rate limits count again', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push(
          (await request(a, 'POST', '/api/auth/forgot-password', { body: { email: fam.admin.email } })).status,
        );
      }
      return statuses.includes(429) ? statuses : undefined;
    });
    expect(logs.some((l) => l.msg === 'redis reachable again')).to.equal(true);
    onA.ws.close();
    onB.ws.close();
  });
});

describe('outages: PostgreSQL unreachable', function () {
  this.timeout(180_000);
  let pg: ThrowawayPostgres;
  let app: RunningServer;
  let logs: LogLine[];

  before(async function () {
    if (!inLeg || !pgBinDir()) this.skip(); // see the header
    pg = await ThrowawayPostgres.start();
    const captured = captureLogs();
    logs = captured.lines;
    app = await startTestApp({ envOverrides: { DATABASE_URL: pg.url }, logger: captured.logger });
  });

  after(async () => {
    await app?.close();
    await pg?.destroy();
  });

  it('answers 503 service_unavailable with Retry-After within 5 s, logs the outage once, and recovers without a restart', async () => {
    const fam = await makeFamily(app);
    const t = fam.admin.token;
    expect((await request(app, 'GET', '/api/lists', { token: t })).status).to.equal(200);

    await pg.stop();

    const calls: [string, () => Promise<HttpResult>][] = [
      ['read', () => request(app, 'GET', '/api/lists', { token: t })],
      ['write', () => request(app, 'POST', '/api/lists', { token: t, body: { name: 'Offline' } })],
      [
        'login',
        () => request(app, 'POST', '/api/auth/login', { body: { email: fam.admin.email, password: DEFAULT_PASSWORD } }),
      ],
      ['pull', () => request(app, 'GET', `/api/sync/lists/pull?schema=${SCHEMA_VERSION}`, { token: t })],
      ['family', () => request(app, 'GET', '/api/family', { token: t })],
    ];
    // Several rounds, some concurrent: each answers 503 within 5 s.
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(calls.map(async ([label, call]) => ({ label, ...(await timed(call)) })));
      for (const { label, ms, value } of results) {
        expect(value.status, label).to.equal(503);
        expect(value.headers.get('content-type'), label).to.match(/^application\/problem\+json/);
        expect(value.body, label).to.include({ status: 503, code: 'service_unavailable' });
        expect(value.headers.get('retry-after'), label).to.match(/^[1-9][0-9]*$/);
        expect(ms, label).to.be.below(5_000);
        expect(value.text, label).to.not.match(/ECONNREFUSED|127\.0\.0\.1|select|terminat/i);
      }
    }
    expect((await request(app, 'GET', '/readyz')).status).to.equal(503);
    expect((await request(app, 'GET', '/healthz')).status).to.equal(200);
    expect(logs.filter((l) => l.msg.startsWith('database unreachable')).length, 'one line per outage').to.equal(1);
    expect(logs.filter((l) => l.msg === 'unhandled error' || l.source === 'knex')).to.deep.equal([]);

    await pg.start();

    // Without a restart: the next requests are served again.
    await eventually('requests served again', async () => {
      const r = await request(app, 'GET', '/api/lists', { token: t });
      return r.status === 200 ? r : undefined;
    });
    const created = await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Back' } });
    expect(created.status).to.equal(201);
    await eventually(
      'the return is logged',
      async () => (logs.some((l) => l.msg === 'database reachable again') ? true : undefined),
      10_000,
    );
    expect(logs.filter((l) => l.msg.startsWith('database unreachable')).length).to.equal(1);
  });
});

// Runs in every leg: it needs no server binary, only a socket that never answers.
describe('outages: a PostgreSQL host that accepts connections but never answers', function () {
  this.timeout(30_000);

  it('gives up connecting after the connect timeout, and the request would answer 503', async () => {
    const accepted: net.Socket[] = [];
    // Accepts and says nothing, like a frozen host behind a live port.
    const silent = net.createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const target = resolveTarget(`postgres://postgres@127.0.0.1:${port}/postgres`, '.');
    const db = createDb(target);
    try {
      const started = performance.now();
      const err = await db.raw('select 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      const ms = performance.now() - started;
      expect(err, 'the query fails').to.be.instanceOf(Error);
      expect(ms).to.be.within(PG_CONNECT_TIMEOUT_MS - 500, PG_CONNECT_TIMEOUT_MS + 2_000);
      expect(isDbUnavailable(err)).to.equal(true);
      expect(mapPgError(err)).to.include({ status: 503, code: 'service_unavailable' });
    } finally {
      await closeDb(db, target);
      for (const socket of accepted) socket.destroy();
      silent.close();
    }
  });
});
