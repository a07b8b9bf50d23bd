// A rate-limited answer always tells the client to wait at least a second: `Retry-After: 0` would
// make a client that honours it retry at once, in a loop, until the window ends. The counters
// of the service (server/http/ratelimit.ts: in memory, or in Redis when REDIS_URL is set) under
// a rule with a one-second window, served over HTTP with the service's error handling; a client
// is refused for the rest of the window, its last second included (where the window's reset,
// rounded to seconds, is already "now").
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { expect } from 'chai';
import { createLogger } from '../../../server/log.js';
import { errorHandler } from '../../../server/http/middleware.js';
import { connectRateLimitRedis, createRateLimiters } from '../../../server/http/ratelimit.js';
import { usingRedis } from '../../helpers/env.js';

describe(`auth: Retry-After of a rate-limited answer (${usingRedis ? 'redis' : 'memory'} counters)`, function () {
  this.timeout(30_000);

  it('is at least one second in every part of the window, its last second included', async () => {
    const log = createLogger('silent');
    const redis = usingRedis ? await connectRateLimitRedis(process.env.REDIS_URL!, log) : undefined;
    const limiters = createRateLimiters({
      redis,
      log,
      keyPrefix: `fs:rl:retry-after-${Math.random().toString(36).slice(2, 10)}`,
      rules: { probe: { max: 1, durationMs: 1000 } },
    });
    const app = new Koa();
    app.proxy = true;
    app.use(errorHandler());
    app.use(limiters.probe!);
    app.use((ctx) => {
      ctx.body = { ok: true };
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      // Several windows, one client address each: each first request passes, then the client
      // is refused until its window ends.
      const refusals: Array<{ retryAfter: string | null; reset: string | null; body: any }> = [];
      for (let window = 0; window < 3; window++) {
        const address = `10.99.${window}.${Math.floor(Math.random() * 250)}`;
        const ask = () => fetch(url, { headers: { 'x-forwarded-for': address } });
        expect((await ask()).status).to.equal(200);
        for (let i = 0; i < 400; i++) {
          const res = await ask();
          if (res.status === 200) break;
          expect(res.status).to.equal(429);
          refusals.push({
            retryAfter: res.headers.get('retry-after'),
            reset: res.headers.get('ratelimit-reset'),
            body: await res.json(),
          });
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      expect(refusals.length).to.be.greaterThan(0);
      for (const r of refusals) {
        expect(r.body).to.include({ status: 429, code: 'rate_limited' });
        expect(Number(r.retryAfter), `Retry-After ${r.retryAfter}`).to.be.within(1, 1);
        expect(Number(r.reset)).to.be.within(0, 1);
        expect(r.body.detail ?? r.body.title).to.not.match(/retry in 0 s/);
      }
    } finally {
      await new Promise((r) => server.close(r));
      redis?.disconnect();
    }
  });
});
