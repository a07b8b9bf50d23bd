// Which tab replicates and what the tabs tell each other (client/leadership.ts), on a bus of
// tabs in one process: a message posted reaches every other open tab later (never its sender,
// as a BroadcastChannel), and one lock is held by one tab at a time, granted to the next asker
// in turn when released (as the Web Lock the browser gives). The browser tests
// (test/browser/sdk-lifecycle.test.ts) drive the same rules through real tabs in Chromium; here
// each rule is checked on its own, including the hand-overs a browser test cannot time.
import { expect } from 'chai';
import { FamilyClientError } from '../../../client-sdk/src/errors.js';
import type { FamilyClientEvent } from '../../../client-sdk/src/events.js';
import { ListJoins } from '../../../client-sdk/src/client/list-joins.js';
import {
  Leadership,
  type LeaderStatus,
  type LeadershipHost,
  type TabLink,
  type TabOp,
} from '../../../client-sdk/src/client/leadership.js';
import type { SharedSessionRecord } from '../../../client-sdk/src/session.js';
import type { PullProgress } from '../../../client-sdk/src/status.js';
import type { TabMessage } from '../../../client-sdk/src/tabs.js';

/** Lets every message posted so far (and what they cause) be delivered. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

class Bus {
  readonly tabs = new Set<BusTab>();
  holder: BusTab | null = null;
  readonly waiting: { tab: BusTab; onLead: () => void }[] = [];
  readonly posted: TabMessage[] = [];

  grantNext(): void {
    if (this.holder) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.holder = next.tab;
    setImmediate(next.onLead);
  }
}

class BusTab implements TabLink {
  private readonly listeners = new Set<(msg: TabMessage) => void>();
  closed = false;

  constructor(
    private readonly bus: Bus,
    readonly id: string,
  ) {
    bus.tabs.add(this);
  }

  post(msg: TabMessage): void {
    if (this.closed) return;
    this.bus.posted.push(msg);
    for (const tab of this.bus.tabs) {
      if (tab !== this && !tab.closed) setImmediate(() => tab.deliver(structuredClone(msg)));
    }
  }

  private deliver(msg: TabMessage): void {
    if (!this.closed) for (const l of [...this.listeners]) l(msg);
  }

  onMessage(listener: (msg: TabMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  lead(onLead: () => void): () => void {
    const entry = { tab: this as BusTab, onLead };
    this.bus.waiting.push(entry);
    this.bus.grantNext();
    return () => {
      const i = this.bus.waiting.indexOf(entry);
      if (i >= 0) this.bus.waiting.splice(i, 1);
      if (this.bus.holder === this) {
        this.bus.holder = null;
        this.bus.grantNext();
      }
    };
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
  }
}

/** What a client does when leadership calls it: recorded; `run` answers as told. */
class Host implements LeadershipHost {
  status$: LeaderStatus = { state: 'idle', online: true, pending: 0 };
  grants = 0;
  sessions: SharedSessionRecord[] = [];
  runs: TabOp[] = [];
  liveJoins: string[] = [];
  liveLeaves: string[] = [];
  statuses: LeaderStatus[] = [];
  progresses: PullProgress[] = [];
  events: FamilyClientEvent[] = [];
  /** How `run` answers: resolves by default; a function to hold or fail it. */
  answer: (op: TabOp) => Promise<void> = () => Promise.resolve();
  onGranted: () => void = () => undefined;

  granted(): void {
    this.grants++;
    this.onGranted();
  }
  adoptSession(record: SharedSessionRecord): void {
    this.sessions.push(record);
  }
  status(): LeaderStatus {
    return { ...this.status$ };
  }
  run(op: TabOp): Promise<void> {
    this.runs.push(op);
    return this.answer(op);
  }
  joinLive(listId: string): void {
    this.liveJoins.push(listId);
  }
  leaveLive(listId: string): void {
    this.liveLeaves.push(listId);
  }
  leaderStatus(status: LeaderStatus): void {
    this.statuses.push(status);
  }
  progress(progress: PullProgress): void {
    this.progresses.push(progress);
  }
  event(event: FamilyClientEvent): void {
    this.events.push(event);
  }
}

interface Tab {
  link: BusTab;
  host: Host;
  joins: ListJoins;
  leadership: Leadership;
  replicating: number;
}

/** A started tab: follows, and leads (replicates) once granted the lock, as the client does. */
function tab(bus: Bus, id: string): Tab {
  const link = new BusTab(bus, id);
  const host = new Host();
  const joins = new ListJoins();
  const t: Tab = { link, host, joins, leadership: new Leadership(link, joins, host), replicating: 0 };
  host.onGranted = () => t.leadership.lead(() => t.replicating++);
  return t;
}

/** A bus with tabs started in order: the first leads, the others follow it. */
async function started(...ids: string[]): Promise<{ bus: Bus; tabs: Tab[] }> {
  const bus = new Bus();
  const tabs = ids.map((id) => tab(bus, id));
  tabs[0]!.leadership.follow();
  await settle();
  for (const t of tabs.slice(1)) t.leadership.follow();
  await settle();
  return { bus, tabs };
}

/** `joinList` / `leaveList` as the client calls them: its own joins first, then the leader told. */
function join(t: Tab, listId: string): void {
  if (t.joins.joinOwn(listId)) t.leadership.joined(listId);
}
function leave(t: Tab, listId: string): void {
  if (t.joins.leaveOwn(listId)) t.leadership.left(listId);
}

/** A tab that stops as the client does: steps down, then gives the lock up. */
function stop(t: Tab): void {
  t.leadership.stepDown();
  t.leadership.release();
}

/** Settles `p` within a generous deadline: 'resolved', 'rejected: <code> <message>' or 'pending'. */
async function outcome(p: Promise<unknown>): Promise<string> {
  let result = 'pending';
  p.then(
    () => (result = 'resolved'),
    (err: FamilyClientError) => (result = `rejected: ${err.code} ${err.message}`),
  );
  await settle();
  return result;
}

const progress: PullProgress = {
  phase: 'pulling',
  collections: {},
} as unknown as PullProgress;

describe('SDK: tab leadership (client/leadership.ts)', () => {
  it('outside browsers (no tabs) a started client leads at once and steps down alone', () => {
    const host = new Host();
    const l = new Leadership(undefined, new ListJoins(), host);
    expect(l.shared).to.equal(false);
    expect(l.role).to.equal('none');
    let replicating = 0;
    l.lead(() => replicating++);
    expect([l.role, replicating]).to.deep.equal(['leader', 1]);
    l.postStatus(true);
    l.forward({ type: 'changed' } as FamilyClientEvent);
    l.progress(progress);
    l.joined('list-1');
    expect(l.stepDown()).to.equal(true);
    expect(l.role).to.equal('none');
    expect(l.stepDown(), 'no longer the leader').to.equal(false);
    l.release();
    l.close();
  });

  it('the first started tab leads; the next follows and mirrors its status', async () => {
    const bus = new Bus();
    const a = tab(bus, 'a');
    const b = tab(bus, 'b');
    expect(a.leadership.shared).to.equal(true);
    a.host.status$ = { state: 'syncing', online: true, pending: 3 };
    a.leadership.follow();
    expect(a.leadership.role, 'until granted').to.equal('follower');
    await settle();
    expect([a.leadership.role, a.host.grants, a.replicating]).to.deep.equal(['leader', 1, 1]);
    expect(a.leadership.mirrored, 'a leader mirrors no one').to.equal(null);

    b.leadership.follow();
    await settle();
    expect([b.leadership.role, b.host.grants, b.replicating]).to.deep.equal(['follower', 0, 0]);
    // b said hello: the leader answered with its status, which b mirrors.
    expect(b.host.statuses).to.deep.equal([{ state: 'syncing', online: true, pending: 3 }]);
    expect(b.leadership.mirrored).to.deep.equal({ state: 'syncing', online: true });
  });

  it('the leader posts its status when it changed only, unless forced', async () => {
    const {
      bus,
      tabs: [a, b],
    } = await started('a', 'b');
    const seen = () => b.host.statuses.length;
    const before = seen();
    a.leadership.postStatus();
    await settle();
    expect(seen(), 'unchanged: not posted again').to.equal(before);
    a.host.status$ = { state: 'idle', online: false, pending: 1 };
    a.leadership.postStatus();
    await settle();
    expect(b.host.statuses.at(-1)).to.deep.equal({ state: 'idle', online: false, pending: 1 });
    expect(b.leadership.mirrored).to.deep.equal({ state: 'idle', online: false });
    a.leadership.postStatus(true);
    await settle();
    expect(seen(), 'forced').to.equal(before + 2);
    // A follower never posts a status.
    b.leadership.postStatus(true);
    await settle();
    expect(bus.posted.filter((m) => m.k === 'status' && m.from === 'b')).to.deep.equal([]);
  });

  it('a follower’s sync() and awaitInSync() run on the leader; its failure reaches the follower', async () => {
    const {
      tabs: [a, b, c],
    } = await started('a', 'b', 'c');
    expect(await outcome(b.leadership.ask('sync'))).to.equal('resolved');
    expect(a.host.runs).to.deep.equal(['sync']);
    a.host.answer = () => Promise.reject(new FamilyClientError('closed', 'the server is unreachable'));
    expect(await outcome(c.leadership.ask('awaitInSync'))).to.equal('rejected: stopped the server is unreachable');
    expect(a.host.runs).to.deep.equal(['sync', 'awaitInSync']);
    // An answer without a code or message still fails the follower's call.
    a.host.answer = () => Promise.reject(undefined);
    expect(await outcome(b.leadership.ask('sync'))).to.equal('rejected: stopped undefined');
    // Only the asking tab takes the reply: c's next call is not answered by b's reply.
    let release!: () => void;
    a.host.answer = (op) => (op === 'awaitInSync' ? new Promise<void>((r) => (release = r)) : Promise.resolve());
    const cWaits = c.leadership.ask('awaitInSync');
    expect(await outcome(b.leadership.ask('sync'))).to.equal('resolved');
    expect(await outcome(cWaits)).to.equal('pending');
    release();
    expect(await outcome(cWaits)).to.equal('resolved');
  });

  it('a follower that stops fails what it asked with `stopped`; the leader runs nothing for a tab that is gone', async () => {
    const {
      tabs: [a, b],
    } = await started('a', 'b');
    a.host.answer = () => new Promise<void>(() => undefined); // never answers
    const asked = b.leadership.ask('awaitInSync');
    await settle();
    expect(b.leadership.stepDown(), 'it did not lead').to.equal(false);
    expect(await outcome(asked)).to.equal('rejected: stopped the client stopped before it was in sync');
    expect(b.leadership.role).to.equal('none');
  });

  it('a follower’s joins are the leader’s: joined on its live channel, left when no tab holds the list', async () => {
    const {
      bus,
      tabs: [a, b, c],
    } = await started('a', 'b', 'c');
    join(b, 'L1');
    join(c, 'L1');
    join(b, 'L2');
    await settle();
    expect(a.host.liveJoins).to.deep.equal(['L1', 'L1', 'L2']);
    expect(a.joins.all()).to.deep.equal(new Set(['L1', 'L2']));
    leave(b, 'L1');
    await settle();
    expect(a.host.liveLeaves, 'c still holds L1').to.deep.equal([]);
    leave(c, 'L1');
    leave(b, 'L2');
    await settle();
    expect(a.host.liveLeaves).to.deep.equal(['L1', 'L2']);
    // The leader's own join keeps the list when the last other tab leaves it.
    a.joins.joinOwn('L3');
    join(b, 'L3');
    await settle();
    leave(b, 'L3');
    await settle();
    expect(a.host.liveLeaves).to.deep.equal(['L1', 'L2']);
    // The leader posts no join of its own; a stopped tab posts none.
    join(a, 'L4');
    stop(c);
    join(c, 'L5');
    await settle();
    expect(bus.posted.filter((m) => m.k === 'join').map((m) => (m as { listId: string }).listId)).to.deep.equal([
      'L1',
      'L1',
      'L2',
      'L3',
    ]);
    leave(a, 'L4');
    leave(c, 'L5');
    await settle();
    expect(
      bus.posted.filter((m) => m.k === 'leave').map((m) => `${m.from} ${(m as { listId: string }).listId}`),
    ).to.deep.equal(['b L1', 'c L1', 'b L2', 'b L3']);
  });

  it('events the other tabs report too are forwarded by the leader only, with its pull progress', async () => {
    const {
      bus,
      tabs: [a, b],
    } = await started('a', 'b');
    const types = ['changed', 'frame', 'rejected', 'error', 'checkpoint_expired', 'removed', 'schema_outdated'];
    for (const type of [...types, 'state', 'session', 'online']) {
      a.leadership.forward({ type } as FamilyClientEvent);
    }
    b.leadership.forward({ type: 'changed', from: 'follower' } as unknown as FamilyClientEvent);
    a.leadership.progress(progress);
    await settle();
    expect(b.host.events.map((e) => e.type)).to.deep.equal(types);
    expect(new Set(bus.posted.filter((m) => m.k === 'event').map((m) => m.from)), 'no follower posts').to.deep.equal(
      new Set(['a']),
    );
    expect(a.host.events).to.deep.equal([]);
    expect(b.host.progresses).to.deep.equal([progress]);
  });

  it('when the leader stops, the next tab leads and the others re-send their joins and open requests to it', async () => {
    const {
      tabs: [a, b, c],
    } = await started('a', 'b', 'c');
    join(c, 'L1');
    await settle();
    a.host.answer = () => new Promise<void>(() => undefined); // a stops before it answers
    const asked = c.leadership.ask('awaitInSync');
    await settle();
    expect(a.host.runs).to.deep.equal(['awaitInSync']);
    expect(a.leadership.stepDown(), 'it led').to.equal(true);
    a.leadership.release();
    await settle();
    expect([b.leadership.role, b.replicating, b.host.grants]).to.deep.equal(['leader', 1, 1]);
    expect(b.leadership.mirrored).to.equal(null);
    expect(b.host.liveJoins, 'c joined L1 again through b').to.deep.equal(['L1']);
    expect(b.host.runs, 'c asked b again').to.deep.equal(['awaitInSync']);
    expect(await outcome(asked)).to.equal('resolved');
    expect(c.host.statuses.length, 'b told its status').to.be.greaterThan(0);
    expect(c.leadership.role).to.equal('follower');
  });

  it('a follower that is granted the lock runs what it asked itself', async () => {
    const {
      tabs: [a, b],
    } = await started('a', 'b');
    a.host.answer = () => new Promise<void>(() => undefined);
    // b asks; a closes its channel before answering (its tab is gone) and gives up the lock.
    a.leadership.close();
    const asked = b.leadership.ask('sync');
    await settle();
    expect(a.host.runs).to.deep.equal([]);
    stop(a);
    await settle();
    expect(b.leadership.role).to.equal('leader');
    expect(b.host.runs).to.deep.equal(['sync']);
    expect(await outcome(asked)).to.equal('resolved');
  });

  it('a tab not granted yet gives up its turn when it stops; the lock goes to the next', async () => {
    const {
      tabs: [a, b, c],
    } = await started('a', 'b', 'c');
    stop(b);
    stop(a);
    await settle();
    expect([b.host.grants, c.host.grants]).to.deep.equal([0, 1]);
    expect(c.leadership.role).to.equal('leader');
    expect(b.leadership.mirrored, 'a stopped tab mirrors nothing').to.equal(null);
  });

  it('a session another tab stored is adopted in every role; other messages need a role', async () => {
    const bus = new Bus();
    const a = tab(bus, 'a');
    const b = tab(bus, 'b');
    const idle = tab(bus, 'idle'); // never started: no role
    const record = { session: null, why: 'signed_out', at: 5 } as unknown as SharedSessionRecord;
    b.link.post({ k: 'session', record, from: 'b' });
    await settle();
    expect(a.host.sessions).to.deep.equal([record]);
    expect(idle.host.sessions).to.deep.equal([record]);
    a.leadership.follow();
    await settle();
    b.leadership.follow();
    await settle();
    const posted = bus.posted.length;
    // A tab with no role (idle) asks: the leader answers, the follower (b) and idle do nothing.
    idle.link.post({ k: 'hello', from: 'idle' });
    idle.link.post({ k: 'request', from: 'idle', id: 'idle:1', op: 'sync' });
    idle.link.post({ k: 'join', from: 'idle', listId: 'L9' });
    a.link.post({ k: 'hello', from: 'a' });
    b.link.post({ k: 'status', from: 'b', state: 'offline', online: false, pending: 9 });
    await settle();
    expect([a.host.runs, a.host.liveJoins]).to.deep.equal([['sync'], ['L9']]);
    expect([b.host.runs, b.host.liveJoins]).to.deep.equal([[], []]);
    const statuses = bus.posted.slice(posted).filter((m) => m.k === 'status');
    expect(
      statuses.map((m) => m.from),
      'the leader answered the hello, forced',
    ).to.deep.equal(['b', 'a']);
    expect([a.host.statuses, idle.host.statuses], 'a leader and a tab with no role mirror none').to.deep.equal([
      [],
      [],
    ]);
    expect(idle.leadership.mirrored).to.equal(null);
    expect(b.leadership.mirrored, 'b mirrors the leader, not the status b posted').to.deep.equal({
      state: 'idle',
      online: true,
    });
    // A reply to another tab, or to no open request, leaves a follower's call open.
    a.host.answer = () => new Promise<void>(() => undefined);
    const asked = b.leadership.ask('sync');
    a.link.post({ k: 'reply', from: 'a', to: 'idle', id: 'b:1' });
    a.link.post({ k: 'reply', from: 'a', to: 'b', id: 'b:99' });
    expect(await outcome(asked)).to.equal('pending');
    a.link.post({ k: 'reply', from: 'a', to: 'b', id: 'b:1' });
    expect(await outcome(asked)).to.equal('resolved');
  });
});
