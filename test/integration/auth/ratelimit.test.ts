import { expect } from 'chai';
import { startTestApp, request, testApp } from '../../helpers/app.js';
import { usingRedis } from '../../helpers/env.js';
import { startAccountsApp, randomIp, uniq, type AccountsApp } from './harness.js';

// Runs on the in-memory driver by default and on Redis when REDIS_URL is set (CI's second leg).
describe(`auth: rate limits (${usingRedis ? 'redis' : 'memory'} driver)`, () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  async function hammer(path: string, body: () => unknown, ip: string, times: number) {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      const res = await a.req('POST', path, { body: body(), headers: { 'x-forwarded-for': ip } });
      statuses.push(res.status);
    }
    return statuses;
  }

  async function expectLimited(path: string, body: () => unknown, max: number, windowSeconds: number) {
    const ip = randomIp();
    const statuses = await hammer(path, body, ip, max);
    expect(statuses, 'within the limit').to.not.include(429);
    const res = await a.req('POST', path, { body: body(), headers: { 'x-forwarded-for': ip } });
    expect(res.status).to.equal(429);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ status: 429, code: 'rate_limited', title: 'Too Many Requests' });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, windowSeconds);
    expect(res.headers.get('ratelimit-limit')).to.equal(String(max));
    expect(res.headers.get('ratelimit-remaining')).to.equal('0');
    expect(Number(res.headers.get('ratelimit-reset'))).to.be.within(1, windowSeconds);
    // another client address is not affected
    const other = await a.req('POST', path, { body: body(), headers: { 'x-forwarded-for': randomIp() } });
    expect(other.status).to.not.equal(429);
  }

  it('login: 10 per minute per client address', async () => {
    await expectLimited(
      '/api/auth/login',
      () => ({ email: `rl-${uniq()}@example.test`, password: 'wrong password' }),
      10,
      60,
    );
  });

  it('register: 10 per hour', async () => {
    // invalid family code: cheap and changes nothing, but counts
    await expectLimited(
      '/api/auth/register',
      () => ({
        email: `rl-${uniq()}@example.test`,
        userName: `rl-${uniq()}`,
        password: 'long enough pw',
        familyCode: 'NOPE-NOPE',
      }),
      10,
      3600,
    );
  });

  it('forgot-password: 5 per hour', async () => {
    await expectLimited('/api/auth/forgot-password', () => ({ email: `rl-${uniq()}@example.test` }), 5, 3600);
  });

  it('reset-password: 10 per 15 minutes', async () => {
    await expectLimited(
      '/api/auth/reset-password',
      () => ({ token: 'z'.repeat(43), newPassword: 'long enough pw' }),
      10,
      900,
    );
  });

  it('confirm-email: 10 per 15 minutes (it guesses link tokens as reset-password does)', async () => {
    await expectLimited('/api/auth/confirm-email', () => ({ token: 'c'.repeat(43) }), 10, 900);
  });

  it('counts bad requests too, and sends RateLimit headers on allowed requests', async () => {
    const ip = randomIp();
    const res = await a.req('POST', '/api/auth/forgot-password', { body: {}, headers: { 'x-forwarded-for': ip } });
    expect(res.status).to.equal(400);
    expect(res.headers.get('ratelimit-limit')).to.equal('5');
    expect(res.headers.get('ratelimit-remaining')).to.equal('4');
    expect(res.headers.get('ratelimit-policy')).to.equal('5;w=3600');
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY=true', async () => {
    const shared = await testApp();
    const app = await startTestApp({ db: shared.deps.db, envOverrides: { TRUST_PROXY: 'false' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await request(app, 'POST', '/api/auth/forgot-password', {
          body: { email: `x-${uniq()}@example.test` },
          headers: { 'x-forwarded-for': randomIp() },
        });
        statuses.push(res.status);
      }
      expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it('with TRUST_PROXY=true counts the address the proxy appended, not what the client put before it', async () => {
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      // A client sends its own X-Forwarded-For; the proxy appends the real address.
      const res = await a.req('POST', '/api/auth/forgot-password', {
        body: { email: `x-${uniq()}@example.test` },
        headers: { 'x-forwarded-for': `${randomIp()}, ${ip}` },
      });
      statuses.push(res.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
  });

  if (usingRedis) {
    it('shares counters across instances through Redis', async () => {
      const shared = await testApp();
      const prefix = `fs:rl:test-shared-${uniq()}`;
      const env = { TRUST_PROXY: 'true' };
      const one = await startTestApp({ db: shared.deps.db, rateLimitKeyPrefix: prefix, envOverrides: env });
      const two = await startTestApp({ db: shared.deps.db, rateLimitKeyPrefix: prefix, envOverrides: env });
      try {
        const ip = randomIp();
        const send = (app: typeof one) =>
          request(app, 'POST', '/api/auth/forgot-password', {
            body: { email: `x-${uniq()}@example.test` },
            headers: { 'x-forwarded-for': ip },
          });
        const statuses = [];
        for (const app of [one, two, one, two, one, two]) statuses.push((await send(app)).status);
        expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
      } finally {
        await one.close();
        await two.close();
      }
    });
  }
});
