// Redis connections as an operator watches them (server/events/redis-connection.ts and the Redis
// bus' own failures): an outage is logged once when it starts and once when it ends, whatever
// the number of reconnect attempts; a Redis that accepts but never answers fails the start within
// its timeout; a publish Redis does not answer is dropped, logged
// once per outage and counted. Against a real redis-server of the test's own (or, for the bus,
// REDIS_URL), and a TCP server that never answers.
import { expect } from 'chai';
import crypto from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { connectRedis, failFast, watchRedis } from '../../../server/events/redis-connection.js';
import { RedisBus } from '../../../server/events/redis-bus.js';
import type { FamilyEvent } from '../../../server/events/bus.js';
import { captureLogs } from '../../helpers/logs.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { freePort, redisServerBinary, ThrowawayRedis } from '../foundation/throwaway-services.js';

/** A TCP server that accepts connections and never answers. */
async function silentServer() {
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const s of open) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('redis connections', function () {
  this.timeout(30_000);

  it('reconnects quickly at first, then every 2 s', () => {
    const retry = failFast.retryStrategy!;
    expect([1, 2, 5, 20, 21, 1000].map((times) => retry(times))).to.deep.equal([100, 200, 500, 2000, 2000, 2000]);
  });

  it('logs an outage once when it starts and once when it ends, and tells the listener', async function () {
    if (!redisServerBinary()) this.skip(); // CI installs redis-server in every leg
    const redis = await ThrowawayRedis.start();
    const { logger, lines } = captureLogs();
    const states: boolean[] = [];
    const conn = await connectRedis(redis.url, {
      ...failFast,
      log: logger,
      name: 'fs-test',
      onChange: (name, down) => states.push(down),
    });
    try {
      expect(conn.status).to.equal('ready');
      expect(lines).to.deep.equal([]); // a first connection is no recovery
      await redis.stop();
      await sleep(1_000); // several reconnect attempts fail
      const down = lines.filter((l) => l.redis === 'fs-test');
      expect(down.map((l) => l.msg)).to.have.length(1);
      expect(down[0]!.msg).to.equal('redis connection lost'); // before any attempt fails
      expect(down[0]!.level).to.equal(50);
      await redis.start();
      const back = await waitFor(() => lines.find((l) => l.msg === 'redis reachable again'), 'the recovery logged');
      expect(back).to.include({ redis: 'fs-test', level: 30 });
      expect(back!.downMs).to.be.a('number').within(900, 20_000);
      expect(states).to.deep.equal([false, true, false]);
      expect(lines).to.have.length(2);
      // A second outage is an outage of its own: logged and told again, and its end too.
      await redis.stop();
      await waitFor(() => lines.length === 3, 'the second outage logged');
      expect(lines[2]).to.include({ msg: 'redis connection lost', redis: 'fs-test' });
      await redis.start();
      await waitFor(() => lines.length === 4, 'the second recovery logged');
      expect(lines[3]).to.include({ msg: 'redis reachable again', redis: 'fs-test' });
      expect(states).to.deep.equal([false, true, false, true, false]);
    } finally {
      conn.disconnect();
      await redis.destroy();
    }
  });

  it('a connection or a bus that connected leaves no start-up timer behind (the process can exit)', async function () {
    if (!redisServerBinary()) this.skip();
    const redis = await ThrowawayRedis.start();
    const { logger } = captureLogs();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    try {
      const before = timers();
      // Long start-up timeouts: a timer left running would hold the process for a minute.
      const conn = await connectRedis(redis.url, { ...failFast, log: logger, name: 'fs-timer', timeoutMs: 60_000 });
      conn.disconnect();
      const bus = await RedisBus.connect({ url: redis.url, log: logger, connectTimeoutMs: 60_000 });
      await bus.close();
      await sleep(100);
      expect(timers()).to.be.at.most(before);
    } finally {
      await redis.destroy();
    }
  });

  it('a bus whose Redis is gone still delivers here, and counts what the other instances miss', async function () {
    if (!redisServerBinary()) this.skip();
    const redis = await ThrowawayRedis.start();
    const { logger, lines } = captureLogs();
    const bus = await RedisBus.connect({ url: redis.url, log: logger });
    try {
      const got: FamilyEvent[][] = [];
      bus.subscribe((_f, e) => got.push(e));
      await redis.stop();
      await waitFor(() => lines.some((l) => l.redis === 'fs-events-pub'), 'the outage logged');
      await bus.publish(crypto.randomUUID(), [{ type: 'Changed', version: 1 }]);
      expect(got).to.deep.equal([[{ type: 'Changed', version: 1 }]]);
      expect(bus.droppedCount).to.equal(1);
      expect(lines.filter((l) => l.msg.startsWith('redis event bus: publish failed'))).to.deep.equal([]);
    } finally {
      await bus.close();
      await redis.destroy();
    }
  });

  it('logs a connection refused from the start once, however many attempts fail', async () => {
    const { logger, lines } = captureLogs();
    const states: boolean[] = [];
    const port = await freePort(); // nothing listens there
    const conn = new Redis(`redis://127.0.0.1:${port}`, { ...failFast, lazyConnect: true });
    watchRedis(conn, logger, 'fs-refused', (_name, down) => states.push(down));
    conn.connect().catch(() => {});
    try {
      await sleep(800);
      expect(lines.map((l) => [l.msg, l.redis])).to.deep.equal([['redis unreachable', 'fs-refused']]);
      expect(lines[0]!.err)
        .to.have.property('message')
        .that.matches(/ECONNREFUSED/);
      expect(states).to.deep.equal([false, true]);
    } finally {
      conn.disconnect();
    }
  });

  it('fails a start when Redis accepts but never answers, within its timeout', async () => {
    const server = await silentServer();
    const { logger } = captureLogs();
    try {
      let failed: Error | undefined;
      await connectRedis(server.url, { ...failFast, log: logger, name: 'fs-silent', timeoutMs: 300 }).catch(
        (e: Error) => (failed = e),
      );
      expect(failed?.message).to.equal('Redis (fs-silent): not connected within 300 ms');
      let busFailed: Error | undefined;
      await RedisBus.connect({ url: server.url, log: logger, connectTimeoutMs: 300 }).catch(
        (e: Error) => (busFailed = e),
      );
      expect(busFailed?.message).to.equal('Redis event bus: no subscription within 300 ms');
    } finally {
      await server.close();
    }
  });
});

describe('redis event bus: a publish Redis does not answer', function () {
  this.timeout(30_000);
  before(function () {
    if (!process.env.REDIS_URL) this.skip(); // the in-process leg has no Redis
  });

  it('is delivered here at once, dropped for the others, logged once per outage and counted', async () => {
    const url = process.env.REDIS_URL!;
    const { logger, lines } = captureLogs();
    const channel = `fs:events:pause-${crypto.randomBytes(4).toString('hex')}`;
    const bus = await RedisBus.connect({ url, log: logger, channel });
    const admin = new Redis(url);
    const failures = () => lines.filter((l) => l.msg.startsWith('redis event bus: publish failed'));
    try {
      const got: FamilyEvent[][] = [];
      bus.subscribe((_f, e) => got.push(e));
      const fam = crypto.randomUUID();
      // Redis holds every client's commands: each publish times out (failFast's 500 ms).
      await admin.client('PAUSE', 1_200, 'ALL');
      await bus.publish(fam, [{ type: 'Changed', version: 1 }]);
      await bus.publish(fam, [{ type: 'Changed', version: 2 }]);
      expect(got).to.have.length(2); // this instance's sockets are not held up
      await waitFor(() => bus.droppedCount === 2, 'two publishes dropped');
      expect(failures()).to.have.length(1);
      expect(failures()[0]!.err).to.deep.include({ message: 'Command timed out' });
      // Redis answers again: a publish goes through, and the next outage is logged anew.
      await sleep(900);
      await bus.publish(fam, [{ type: 'Changed', version: 3 }]);
      await sleep(200);
      expect(bus.droppedCount).to.equal(2);
      await admin.client('PAUSE', 800, 'ALL');
      await bus.publish(fam, [{ type: 'Changed', version: 4 }]);
      await waitFor(() => bus.droppedCount === 3, 'the third publish dropped');
      expect(failures()).to.have.length(2);
    } finally {
      await sleep(900); // the pause ends before the connections quit
      await admin.quit();
      await bus.close();
    }
  });
});
