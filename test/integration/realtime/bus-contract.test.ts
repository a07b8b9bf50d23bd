// What every event bus promises its subscribers (server/events/bus.ts `EventBus`), for the
// in-process bus (the embedded default) and the Redis bus (when REDIS_URL is set): each publish
// reaches every subscriber once with its family; an empty publish reaches no one; a subscriber
// that throws does not stop the others; after unsubscribing or closing, nothing arrives.
import { expect } from 'chai';
import crypto from 'node:crypto';
import { InProcessBus, type EventBus, type FamilyEvent } from '../../../server/events/bus.js';
import { RedisBus } from '../../../server/events/redis-bus.js';
import { captureLogs } from '../../helpers/logs.js';
import { sleep } from '../../helpers/wait.js';

type Got = Array<[string, FamilyEvent[]]>;
const changed = (version: number): FamilyEvent[] => [{ type: 'Changed', version }];

const kinds: Array<{ name: string; make: () => Promise<{ bus: EventBus; logs: ReturnType<typeof captureLogs> }> }> = [
  { name: 'in-process bus', make: async () => ({ bus: new InProcessBus(), logs: captureLogs() }) },
  {
    name: 'Redis bus',
    make: async () => {
      const logs = captureLogs();
      const channel = `fs:events:contract-${crypto.randomBytes(4).toString('hex')}`;
      return { bus: await RedisBus.connect({ url: process.env.REDIS_URL!, log: logs.logger, channel }), logs };
    },
  },
];

for (const kind of kinds) {
  describe(`event bus contract: ${kind.name}`, function () {
    before(function () {
      if (kind.name === 'Redis bus' && !process.env.REDIS_URL) this.skip();
    });

    it('hands each publish to every subscriber once, with its family', async () => {
      const { bus } = await kind.make();
      try {
        const a: Got = [];
        const b: Got = [];
        bus.subscribe((f, e) => a.push([f, e]));
        bus.subscribe((f, e) => b.push([f, e]));
        const fam = crypto.randomUUID();
        await bus.publish(fam, changed(1));
        await sleep(50); // room for a duplicate
        expect(a).to.deep.equal([[fam, changed(1)]]);
        expect(b).to.deep.equal([[fam, changed(1)]]);
      } finally {
        await bus.close();
      }
    });

    it('delivers nothing for an empty publish', async () => {
      const { bus } = await kind.make();
      try {
        const got: Got = [];
        bus.subscribe((f, e) => got.push([f, e]));
        await bus.publish(crypto.randomUUID(), []);
        await sleep(50);
        expect(got).to.deep.equal([]);
      } finally {
        await bus.close();
      }
    });

    it('keeps delivering to the others when a subscriber throws', async () => {
      const { bus, logs } = await kind.make();
      try {
        const got: Got = [];
        bus.subscribe(() => {
          throw new Error('a broken subscriber');
        });
        bus.subscribe((f, e) => got.push([f, e]));
        const fam = crypto.randomUUID();
        await bus.publish(fam, changed(1));
        await bus.publish(fam, changed(2));
        expect(got).to.deep.equal([
          [fam, changed(1)],
          [fam, changed(2)],
        ]);
        if (kind.name === 'Redis bus') {
          // The Redis bus logs each failure (its message, no stack).
          const failed = logs.lines.filter((l) => l.msg === 'event subscriber failed');
          expect(failed.map((l) => [l.level, (l.err as { message: string }).message])).to.deep.equal([
            [50, 'a broken subscriber'],
            [50, 'a broken subscriber'],
          ]);
        }
      } finally {
        await bus.close();
      }
    });

    it('stops delivering to a subscriber that unsubscribed, and to everyone once closed', async () => {
      const { bus } = await kind.make();
      const kept: Got = [];
      const left: Got = [];
      bus.subscribe((f, e) => kept.push([f, e]));
      const unsubscribe = bus.subscribe((f, e) => left.push([f, e]));
      const fam = crypto.randomUUID();
      await bus.publish(fam, changed(1));
      unsubscribe();
      await bus.publish(fam, changed(2));
      await bus.close();
      await bus.publish(fam, changed(3));
      await sleep(50);
      expect(left).to.deep.equal([[fam, changed(1)]]);
      expect(kept).to.deep.equal([
        [fam, changed(1)],
        [fam, changed(2)],
      ]);
    });
  });
}
