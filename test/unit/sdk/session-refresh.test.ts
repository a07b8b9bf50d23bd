// The refresh ahead of expiry (client/session-refresh.ts), against a session source of its own:
// only while started, never sooner than a second after it was planned, a failed refresh tried
// again after a backoff that grows with each failure and starts over after a success, nothing
// tried once signed out.
import { expect } from 'chai';
import { SessionRefresh, type RefreshableSession } from '../../../client-sdk/src/client/session-refresh.js';
import type { Session } from '../../../client-sdk/src/session.js';
import { sleep, waitFor } from '../../helpers/wait.js';

/** A JWT-shaped token issued `ageS` seconds ago and expiring in `leftS` seconds. */
function token(n: number, ageS: number, leftS: number): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'HS256' })}.${part({ n, iat: now - ageS, exp: now + leftS })}.c2ln`;
}

const session = (accessToken: string) => ({ accessToken }) as Session;

/** A session source whose refreshes fail or succeed in the order given (then succeed), each
 *  success replacing the session with one due at once again. */
function source(outcomes: Array<'fail' | 'ok'> = []) {
  let issued = 0;
  const refreshed: string[] = [];
  const auth: RefreshableSession & { session: Session | null; refreshed: string[] } = {
    session: session(token(issued, 600, 0)),
    refreshed,
    serverNow: () => Date.now(),
    async refresh(stale) {
      refreshed.push(stale!);
      if (outcomes.shift() === 'fail') throw new Error('offline');
      auth.session = session(token(++issued, 600, 0));
      return auth.session;
    },
  };
  return auth;
}

/** A wakeup whose waits are recorded and end at once. */
function instantWakeup() {
  const waits: number[] = [];
  return {
    waits,
    wait: async (ms: number) => {
      waits.push(ms);
    },
  };
}

describe('SDK: the session refreshed ahead of expiry', function () {
  this.timeout(20_000);
  const refreshes: SessionRefresh[] = [];
  const make = (
    auth: RefreshableSession,
    wakeup: { wait(ms: number): Promise<void> } = instantWakeup(),
    backoff?: { baseMs: number; maxMs: number },
  ) => {
    const r = new SessionRefresh(auth, wakeup, backoff);
    refreshes.push(r);
    return r;
  };
  afterEach(() => {
    for (const r of refreshes.splice(0)) r.stop();
  });

  it('plans nothing before start() nor after stop()', async () => {
    const never = source();
    make(never).schedule();
    const stopped = source();
    const r = make(stopped);
    r.start();
    r.stop();
    r.schedule();
    await sleep(1_300);
    expect(never.refreshed, 'not started').to.deep.equal([]);
    expect(stopped.refreshed, 'stopped').to.deep.equal([]);
  });

  it('a token due now is refreshed a second later, not sooner; one due in a minute not after a second', async () => {
    const due = source();
    const first = due.session!.accessToken;
    const later = source();
    later.session = session(token(0, 600, 120)); // due 60 s from now
    const started = Date.now();
    make(due).start();
    make(later).start();
    await sleep(700);
    expect(due.refreshed, 'before a second').to.deep.equal([]);
    await waitFor(() => due.refreshed.length === 1, 'the refresh after a second');
    expect(due.refreshed).to.deep.equal([first]);
    await sleep(1_500 - (Date.now() - started));
    expect(later.refreshed).to.deep.equal([]);
  });

  it('a failed refresh is tried again after a backoff that grows, and starts over after a success', async () => {
    const auth = source(['fail', 'fail', 'ok', 'fail']);
    const wakeup = instantWakeup();
    const r = make(auth, wakeup, { baseMs: 1_000, maxMs: 60_000 });
    const random = Math.random;
    Math.random = () => 0.5; // the backoff's jitter: half of each bound
    try {
      const first = auth.session!.accessToken;
      r.start();
      await waitFor(() => auth.refreshed.length === 3, 'two failures and a success', 10_000);
      // The client plans again when the session changes (auth's subscription): so does this test.
      r.schedule();
      await waitFor(() => wakeup.waits.length === 3, 'a failure after the success', 10_000);
      expect(auth.refreshed.slice(0, 3)).to.deep.equal([first, first, first]);
      expect(wakeup.waits).to.deep.equal([500, 1_000, 500]);
    } finally {
      Math.random = random;
    }
  });

  it('a failed refresh is not tried again once signed out', async () => {
    const auth = source(['fail']);
    let endWait!: () => void;
    const r = make(auth, {
      wait: () => new Promise<void>((resolve) => (endWait = resolve)),
    });
    r.start();
    await waitFor(() => auth.refreshed.length === 1, 'the failed refresh');
    auth.session = null; // signed out while the retry waits
    endWait();
    await sleep(1_300);
    expect(auth.refreshed).to.have.length(1);
  });
});
