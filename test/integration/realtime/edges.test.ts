// The live channel's edges of api-contract §13: at most MAX_SOCKETS_PER_USER sockets per user,
// Error frames that echo the requestId of the frame they answer while the database is down, and
// a removed member's sockets on every instance closed within 5 s whether or not Redis (the bus)
// is reachable.
import { expect } from 'chai';
import { request, startTestApp } from '../../helpers/app.js';
import { usingPostgres } from '../../helpers/env.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { CLOSE_CODES } from '@family-shopping/client/protocol';
import { TestSocket, type Closed } from './client.js';
import { pgBinDir, redisServerBinary, ThrowawayPostgres, ThrowawayRedis } from '../foundation/throwaway-services.js';

/** The socket's close, or a failure naming what did not happen within `ms`. */
function closedWithin(s: TestSocket, ms: number, what: string): Promise<Closed> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    s.closed.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: socket still open after ${ms} ms`)), ms);
    }),
  ]);
}

describe('realtime edges (contract §13)', function () {
  this.timeout(120_000);
  const apps: RunningServer[] = [];
  const sockets: TestSocket[] = [];
  const services: { destroy(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    for (const a of apps.splice(0).reverse()) await a.close();
    for (const s of services.splice(0)) await s.destroy();
  });

  it('a user holds at most MAX_SOCKETS_PER_USER live sockets: a new one closes the oldest with 4429', async () => {
    const app = await startTestApp({ envOverrides: { MAX_SOCKETS_PER_USER: '2' } });
    apps.push(app);
    const fam = await makeFamily(app);
    const other = await makeMember(app, fam);
    const first = await TestSocket.connect(app, fam.admin.token);
    const second = await TestSocket.connect(app, fam.admin.token);
    const others = await TestSocket.connect(app, other.token);
    sockets.push(first, second, others);
    const third = await TestSocket.connect(app, fam.admin.token);
    sockets.push(third);
    expect((await closedWithin(first, 5_000, 'the oldest socket')).code).to.equal(CLOSE_CODES.TOO_MANY_SOCKETS);
    // The newer ones and another user's socket still hear the family's events.
    const list = await request(app, 'POST', '/api/lists', { token: fam.admin.token, body: { name: 'Weekly' } });
    for (const s of [second, third, others]) {
      expect((await s.next((f) => f.type === 'ListCreated')).list.id).to.equal(list.body.id);
    }
    const fourth = await TestSocket.connect(app, fam.admin.token);
    sockets.push(fourth);
    expect((await closedWithin(second, 5_000, 'the next oldest socket')).code).to.equal(CLOSE_CODES.TOO_MANY_SOCKETS);
    await third.sync();
    expect(others.ws.readyState).to.equal(others.ws.OPEN);
  });

  it('Error frames echo the requestId of the frame they answer while the database is down', async function () {
    // Needs a PostgreSQL server to lose (an embedded PGlite has none); the test brings its own.
    if (!pgBinDir()) this.skip();
    const pg = await ThrowawayPostgres.start();
    services.push(pg);
    const app = await startTestApp({ envOverrides: { DATABASE_URL: pg.url, REDIS_URL: undefined } });
    apps.push(app);
    const fam = await makeFamily(app);
    const list = await request(app, 'POST', '/api/lists', { token: fam.admin.token, body: { name: 'Weekly' } });
    const socket = await TestSocket.connect(app, fam.admin.token);
    sockets.push(socket);
    await pg.stop('immediate');
    const answer = await socket.join(list.body.id as string, 'join-in-outage');
    expect(answer).to.include({ type: 'Error', requestId: 'join-in-outage', code: 'service_unavailable' });
    socket.send({ type: 'JoinList', listId: list.body.id, requestId: 42 });
    expect(await socket.next((f) => f.type === 'Error')).to.include({ requestId: 42 });
    await pg.start();
  });

  describe('a removed member on another instance', () => {
    /** Two instances on one database: separate pools on PostgreSQL, one shared handle on PGlite. */
    async function twoInstances(env: Record<string, string | undefined>): Promise<[RunningServer, RunningServer]> {
      const a = await startTestApp({ envOverrides: env });
      apps.push(a);
      const b = await startTestApp(usingPostgres ? { envOverrides: env } : { envOverrides: env, db: a.deps.db });
      apps.push(b);
      return [a, b];
    }

    async function removeAndExpectClosed(a: RunningServer, b: RunningServer, beforeRemoval?: () => Promise<void>) {
      const fam = await makeFamily(a);
      const member = await makeMember(a, fam);
      const onB = await TestSocket.connect(b, member.token);
      const onA = await TestSocket.connect(a, member.token);
      sockets.push(onB, onA);
      await beforeRemoval?.();
      const removed = await request(a, 'DELETE', `/api/family/members/${member.userId}`, { token: fam.admin.token });
      expect(removed.status).to.equal(204);
      const [closedB, closedA] = await Promise.all([
        closedWithin(onB, 5_000, 'the socket on the other instance'),
        closedWithin(onA, 5_000, 'the socket on the removing instance'),
      ]);
      expect(closedB.code).to.equal(CLOSE_CODES.REMOVED_FROM_FAMILY);
      expect(closedA.code).to.equal(CLOSE_CODES.REMOVED_FROM_FAMILY);
    }

    it('is closed within 5 s while Redis is stopped', async function () {
      if (!redisServerBinary()) this.skip();
      const redis = await ThrowawayRedis.start();
      services.push(redis);
      const [a, b] = await twoInstances({ REDIS_URL: redis.url });
      await removeAndExpectClosed(a, b, () => redis.stop());
    });

    it('is closed within 5 s with separate in-process buses (no Redis at all)', async () => {
      const [a, b] = await twoInstances({ REDIS_URL: undefined });
      await removeAndExpectClosed(a, b);
    });
  });
});
