// How long the SDK waits before a retry (backoff.ts): a random delay below a ceiling that
// doubles per attempt up to a cap (clients that lost the same server spread out), and waits
// that end at once when woken (the network is back, the app called sync(), the client stops).
import { expect } from 'chai';
import { backoffDelay, Wakeup } from '../../../client-sdk/src/backoff.js';

/** Many draws: every one is in [0, ceiling), and together they reach into its top half. */
function expectSpread(draw: () => number, ceiling: number): void {
  const values = Array.from({ length: 400 }, draw);
  for (const v of values) expect(v).to.be.at.least(0).and.below(ceiling);
  expect(Math.max(...values), `some draw above half of ${ceiling}`).to.be.above(ceiling / 2);
}

/** Resolves to what settled first: the promise ('done') or a generous deadline ('hung'). */
const settles = (p: Promise<unknown>, ms = 5_000) =>
  Promise.race([p.then(() => 'done'), new Promise((r) => setTimeout(() => r('hung'), ms).unref())]);

describe('SDK: backoff and wakeups', () => {
  it('the ceiling is 500 ms doubled per attempt, capped at 30 s (defaults)', () => {
    expectSpread(() => backoffDelay(0), 500);
    expectSpread(() => backoffDelay(1), 1_000);
    expectSpread(() => backoffDelay(5), 16_000);
    expectSpread(() => backoffDelay(6), 30_000);
    expectSpread(() => backoffDelay(1_000), 30_000);
  });

  it('the base and the cap can be set', () => {
    expectSpread(() => backoffDelay(0, { baseMs: 10 }), 10);
    expectSpread(() => backoffDelay(3, { baseMs: 10 }), 80);
    expectSpread(() => backoffDelay(3, { baseMs: 10, maxMs: 50 }), 50);
    expectSpread(() => backoffDelay(2, { maxMs: 1_500 }), 1_500);
    // attempts beyond 30 keep the ceiling finite under a very large cap
    expectSpread(() => backoffDelay(5_000, { baseMs: 1, maxMs: Number.MAX_VALUE }), 2 ** 30);
  });

  it('a wait ends on its own after its delay', async () => {
    expect(await settles(new Wakeup().wait(20))).to.equal('done');
  });

  it('wake() ends every wait at once; a wait begun after it waits anew', async () => {
    const w = new Wakeup();
    const long = [w.wait(600_000), w.wait(600_000)];
    w.wake();
    expect(await settles(Promise.all(long))).to.equal('done');
    const later = w.wait(600_000);
    expect(await settles(later, 200)).to.equal('hung');
    w.wake();
    expect(await settles(later)).to.equal('done');
    w.wake(); // nothing waits: nothing happens
  });
});
