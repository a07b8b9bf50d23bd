// The Redis event bus against a real Redis (runs when REDIS_URL is set; the in-process leg has
// no Redis to talk to). ioredis 6 speaks RESP3 by default, where pub/sub messages arrive as push
// frames: both protocol versions are exercised.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import crypto from 'node:crypto';
import { RedisBus } from '../../../server/events/redis-bus.js';
import type { ChangedEvent, FamilyEvent } from '../../../server/events/bus.js';
import { createLogger } from '../../../server/log.js';
import { sleep } from './client.js';
import { captureLogs } from '../../helpers/logs.js';
import { waitFor } from '../../helpers/wait.js';

const log = createLogger('silent');

describe('realtime: Redis event bus', function () {
  before(function () {
    // Without REDIS_URL (the in-process leg) there is no Redis server to test against.
    if (!process.env.REDIS_URL) this.skip();
  });

  for (const protocol of [3, 2] as const) {
    it(`delivers each publish exactly once per instance (RESP${protocol})`, async () => {
      const url = process.env.REDIS_URL!;
      const channel = `fs:events:test-${crypto.randomBytes(4).toString('hex')}`;
      const a = await RedisBus.connect({ url, log, channel, redisOptions: { protocol } });
      const b = await RedisBus.connect({ url, log, channel, redisOptions: { protocol } });
      try {
        // The subscriber connections really speak the protocol under test.
        const admin = new Redis(url);
        const subs = String(await admin.client('LIST'))
          .split('\n')
          .filter((l) => l.includes('name=fs-events-sub') && l.includes(`resp=${protocol}`));
        await admin.quit();
        expect(subs.length).to.be.at.least(2);
        const gotA: Array<[string, FamilyEvent[]]> = [];
        const gotB: Array<[string, FamilyEvent[]]> = [];
        a.subscribe((f, e) => gotA.push([f, e]));
        b.subscribe((f, e) => gotB.push([f, e]));
        const fam = crypto.randomUUID();
        await a.publish(fam, [{ type: 'Changed', version: 1 }]);
        await b.publish(fam, [{ type: 'Changed', version: 2 }]);
        for (let i = 0; i < 100 && (gotA.length < 2 || gotB.length < 2); i++) await sleep(10);
        await sleep(50); // room for a duplicate to show up
        expect(gotA).to.deep.equal([
          [fam, [{ type: 'Changed', version: 1 }]],
          [fam, [{ type: 'Changed', version: 2 }]],
        ]);
        expect(gotB.map(([, e]) => (e[0] as ChangedEvent).version).sort()).to.deep.equal([1, 2]);
        // A garbage message on the channel is ignored.
        const raw = new Redis(url);
        await raw.publish(channel, 'not json');
        await raw.publish(channel, JSON.stringify({ familyId: fam, events: 'nope', origin: 'x' }));
        await raw.quit();
        await sleep(50);
        expect(gotA).to.have.length(2);
      } finally {
        await a.close();
        await b.close();
      }
    });
  }

  it('ignores what is not its envelope on its channel, says so, and passes on only events with a type', async () => {
    const url = process.env.REDIS_URL!;
    const channel = `fs:events:test-${crypto.randomBytes(4).toString('hex')}`;
    const logs = captureLogs();
    const bus = await RedisBus.connect({ url, log: logs.logger, channel });
    const raw = new Redis(url);
    try {
      const got: Array<[string, unknown[]]> = [];
      bus.subscribe((f, e) => got.push([f, e]));
      const fam = crypto.randomUUID();
      const send = (message: unknown) =>
        raw.publish(channel, typeof message === 'string' ? message : JSON.stringify(message));
      await send('not json');
      await send({ familyId: fam, events: 'nope', origin: 'x' });
      await send({ events: [{ type: 'Changed', version: 1 }], origin: 'x' });
      await send({ familyId: fam, events: [null, 'Changed', { version: 2 }, { type: 7 }], origin: 'x' });
      await send({ familyId: fam, events: [null, { type: 'Changed', version: 3 }, { version: 4 }], origin: 'x' });
      await waitFor(() => got.length > 0, 'the valid event');
      await sleep(50);
      expect(got).to.deep.equal([[fam, [{ type: 'Changed', version: 3 }]]]);
      expect(logs.lines.map((l) => [l.level, l.msg, l.channel])).to.deep.equal([
        [40, 'redis event bus: message is not JSON', channel],
        [40, 'redis event bus: malformed envelope', channel],
        [40, 'redis event bus: malformed envelope', channel],
      ]);
    } finally {
      await raw.quit();
      await bus.close();
    }
  });

  it('close() closes both of its connections', async () => {
    const url = process.env.REDIS_URL!;
    const admin = new Redis(url);
    const named = async () =>
      String(await admin.client('LIST'))
        .split('\n')
        .filter((l) => /name=fs-events-(pub|sub)/.test(l)).length;
    const before = await named();
    const bus = await RedisBus.connect({ url, log });
    expect(await named()).to.equal(before + 2);
    await bus.close();
    await sleep(50);
    expect(await named()).to.equal(before);
    await admin.quit();
  });
});
