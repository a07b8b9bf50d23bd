// Reachability and wakeups (client/connectivity.ts) with the browser's side given: a page's
// `navigator.onLine` and its `online`/`offline` events, installed on the global object for the
// test and removed after it (Node has neither). The end-to-end tests (test/e2e/sdk/
// connectivity.test.ts) cover the probe against the real server; the browser tests
// (sdk-network-back) the same events in Chromium.
import { expect } from 'chai';
import { Connectivity, type ConnectivityOptions } from '../../../client-sdk/src/client/connectivity.js';
import { waitFor } from '../../helpers/wait.js';

type Listener = () => void;

/** A page's network as Connectivity reads it: `navigator.onLine` and window events. */
class PageNetwork {
  private readonly listeners = new Map<string, Set<Listener>>();
  private saved: { navigator?: PropertyDescriptor; add?: PropertyDescriptor; remove?: PropertyDescriptor } = {};
  onLine = true;

  install(): void {
    const g = globalThis as Record<string, unknown>;
    this.saved = {
      navigator: Object.getOwnPropertyDescriptor(g, 'navigator'),
      add: Object.getOwnPropertyDescriptor(g, 'addEventListener'),
      remove: Object.getOwnPropertyDescriptor(g, 'removeEventListener'),
    };
    const onLine = () => this.onLine;
    Object.defineProperty(g, 'navigator', {
      configurable: true,
      get: () => ({
        get onLine() {
          return onLine();
        },
      }),
    });
    Object.defineProperty(g, 'addEventListener', {
      configurable: true,
      writable: true,
      value: (type: string, l: Listener) => {
        const set = this.listeners.get(type) ?? new Set();
        set.add(l);
        this.listeners.set(type, set);
      },
    });
    Object.defineProperty(g, 'removeEventListener', {
      configurable: true,
      writable: true,
      value: (type: string, l: Listener) => this.listeners.get(type)?.delete(l),
    });
  }

  uninstall(): void {
    const g = globalThis as Record<string, unknown>;
    for (const [key, d] of [
      ['navigator', this.saved.navigator],
      ['addEventListener', this.saved.add],
      ['removeEventListener', this.saved.remove],
    ] as const) {
      if (d) Object.defineProperty(g, key, d);
      else delete g[key];
    }
  }

  fire(type: 'online' | 'offline'): void {
    for (const l of [...(this.listeners.get(type) ?? [])]) l();
  }

  count(type: string): number {
    return this.listeners.get(type)?.size ?? 0;
  }
}

/** A Connectivity whose calls out are counted; `probe` answers as `reach` says. */
function connectivity(over: Partial<ConnectivityOptions> = {}) {
  const calls = { probes: 0, reconnects: 0, networkBack: 0, changed: 0 };
  const reach = { next: false };
  const c: Connectivity = new Connectivity({
    realtime: false,
    backoff: { baseMs: 1, maxMs: 5 },
    probe: async () => {
      calls.probes++;
      c.setReachable(reach.next);
    },
    reconnectLive: () => calls.reconnects++,
    networkBack: () => calls.networkBack++,
    changed: () => calls.changed++,
    ...over,
  });
  return { c, calls, reach };
}

describe('SDK: connectivity with a page’s network events (client/connectivity.ts)', () => {
  const page = new PageNetwork();
  beforeEach(() => {
    page.onLine = true;
    page.install();
  });
  afterEach(() => page.uninstall());

  it('starts offline when the page says so, online otherwise', () => {
    page.onLine = false;
    const off = connectivity();
    off.c.start();
    expect(off.c.online).to.equal(false);
    off.c.stop();
    page.onLine = true;
    const on = connectivity();
    on.c.start();
    expect(on.c.online).to.equal(true);
    on.c.stop();
  });

  it('the page’s `online` wakes every wait, reconnects the live channel and catches up', async () => {
    const { c, calls } = connectivity();
    c.start();
    const waiting = c.wakeup.wait(60_000).then(() => 'woken');
    page.fire('online');
    expect(await Promise.race([waiting, new Promise((r) => setTimeout(() => r('still waiting'), 1_000))])).to.equal(
      'woken',
    );
    expect([calls.reconnects, calls.networkBack]).to.deep.equal([1, 1]);
    c.stop();
  });

  it('the page’s `offline` makes it unreachable and starts the probe until the server answers', async () => {
    const { c, calls, reach } = connectivity();
    c.start();
    page.fire('offline');
    expect(c.online).to.equal(false);
    expect(calls.changed).to.equal(1);
    await waitFor(() => calls.probes >= 2, 'a second probe', 5_000);
    reach.next = true;
    await waitFor(() => c.online, 'online again', 5_000);
    expect(calls.changed).to.equal(2);
    c.stop();
  });

  it('stop() removes its listeners: later events change nothing', async () => {
    const { c, calls } = connectivity();
    c.start();
    expect([page.count('online'), page.count('offline')]).to.deep.equal([1, 1]);
    c.stop();
    expect([page.count('online'), page.count('offline')]).to.deep.equal([0, 0]);
    page.fire('offline');
    page.fire('online');
    expect(calls).to.deep.equal({ probes: 0, reconnects: 0, networkBack: 0, changed: 0 });
    expect(c.online).to.equal(true);
  });

  it('with the live channel, online needs it up; a connected channel makes the server reachable', () => {
    const { c, calls } = connectivity({ realtime: true });
    c.start();
    expect(c.online, 'the channel is not up yet').to.equal(false);
    page.fire('offline');
    c.liveConnected();
    expect(c.online).to.equal(true);
    c.liveDisconnected();
    expect(c.online).to.equal(false);
    c.liveConnected();
    c.stop();
    expect(c.online, 'stopped: the channel is down').to.equal(false);
    expect(calls.changed).to.equal(1);
  });

  it('a runtime without window events (Node) starts and stops without them', () => {
    page.uninstall();
    try {
      const { c } = connectivity();
      c.start();
      expect(c.online).to.equal(true);
      c.stop();
    } finally {
      page.install();
    }
  });
});
