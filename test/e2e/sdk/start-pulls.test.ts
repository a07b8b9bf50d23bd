// One pull per collection per start (issue 23): the start pulls wait for the live channel to
// authenticate, so its connect asks for no second round, and a commit made while the socket
// authenticates still reaches the device. When the first connect fails, the start pulls go at
// once, and the connect after pulls again what was pulled before it: a commit of that gap
// arrives too.
import { expect } from 'chai';
import WebSocket from 'ws';
import type { WebSocketConstructor, WebSocketLike } from '@family-shopping/client';
import { COLLECTIONS } from '@family-shopping/client/protocol';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { fetchAs, localDoc, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

/** A `ws` socket whose incoming frames are held until `release()`, then delivered at once (as a
 *  network that hands over several frames in one read would). `failFirst`: the first attempt
 *  fails before it opens. */
function heldSockets(options: { failFirst?: boolean } = {}) {
  let attempts = 0;
  let held = true;
  const waiting: { socket: HeldSocket; data: unknown }[] = [];
  class HeldSocket implements WebSocketLike {
    private readonly ws: WebSocket;
    onopen: ((ev: unknown) => void) | null = null;
    onmessage: ((ev: { data: unknown }) => void) | null = null;
    onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
    onerror: ((ev: unknown) => void) | null = null;
    constructor(url: string) {
      if (attempts++ === 0 && options.failFirst) throw new Error('no network yet');
      this.ws = new WebSocket(url);
      this.ws.on('open', () => this.onopen?.({}));
      this.ws.on('message', (data) => {
        if (held) waiting.push({ socket: this, data: String(data) });
        else this.onmessage?.({ data: String(data) });
      });
      this.ws.on('close', (code) => this.onclose?.({ code }));
      this.ws.on('error', () => this.onerror?.({}));
    }
    get readyState(): number {
      return this.ws.readyState;
    }
    send(data: string): void {
      this.ws.send(data);
    }
    close(code?: number, reason?: string): void {
      this.ws.close(code, reason);
    }
    terminate(): void {
      this.ws.terminate();
    }
  }
  return {
    WebSocket: HeldSocket as unknown as WebSocketConstructor,
    release(): void {
      held = false;
      for (const { socket, data } of waiting.splice(0)) socket.onmessage?.({ data });
    },
  };
}

/** fetch counting the pull requests per collection. */
function countingFetch() {
  const pulls = new Map<string, number>();
  const base = fetchAs();
  return {
    pulls,
    total: () => [...pulls.values()].reduce((a, b) => a + b, 0),
    fetch: (input: string, init?: RequestInit) => {
      const m = /\/api\/sync\/(\w+)\/pull/.exec(input);
      if (m) pulls.set(m[1]!, (pulls.get(m[1]!) ?? 0) + 1);
      return base(input, init);
    },
  };
}

describe('e2e SDK: one pull per collection per start', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();
  const sockets = () => sdk.app.deps.realtime!.hub.stats().sockets;

  async function familyWithData() {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const api = restAs(sdk.app, member.token);
    const store = await api('POST', '/api/stores', { name: 'Corner shop' });
    const list = await api('POST', '/api/lists', { name: 'Groceries', storeId: store.id });
    const first = await api('POST', `/api/lists/${list.id}/items`, { name: 'Bread' });
    return { family, api, list, first };
  }

  it('a commit made while the live channel authenticates arrives, each collection pulled once', async () => {
    const { family, api, list, first } = await familyWithData();
    const net = countingFetch();
    const live = heldSockets();
    const c = sdk.track(await signedInClient(sdk.app, family.admin, { fetch: net.fetch, WebSocket: live.WebSocket }));
    await c.start();
    // The server has the socket in the family's group (its Authenticated is on the way, held).
    await waitFor(() => sockets() === 1, 'the socket joined the family');
    const during = await api('POST', `/api/lists/${list.id}/items`, { name: 'Milk' });
    live.release();

    await waitFor(async () => (await localDoc(c, 'items', during.id)) && c.state === 'idle', 'the commit, in sync');
    expect(await localDoc(c, 'items', first.id)).to.include({ name: 'Bread' });
    expect(Object.fromEntries(net.pulls)).to.deep.equal(Object.fromEntries(COLLECTIONS.map((x) => [x, 1])));

    // A later change of another member: its live patch, or at most one pull of what it wrote.
    const before = net.total();
    const later = await api('POST', `/api/lists/${list.id}/items`, { name: 'Eggs' });
    await waitFor(() => localDoc(c, 'items', later.id), 'the later change');
    expect(net.total() - before).to.be.at.most(1);
  });

  it('a first connect that fails: the start pulls go, and the connect after misses no commit', async () => {
    const { family, api, list } = await familyWithData();
    const net = countingFetch();
    const live = heldSockets({ failFirst: true });
    const c = sdk.track(await signedInClient(sdk.app, family.admin, { fetch: net.fetch, WebSocket: live.WebSocket }));
    await c.start();
    await c.awaitInSync(); // the start pulls, without the live channel
    expect(net.total()).to.equal(COLLECTIONS.length);
    await waitFor(() => sockets() === 1, 'the second attempt joined the family');
    // Committed after every start pull's snapshot, before the device hears of its socket.
    const missed = await api('POST', `/api/lists/${list.id}/items`, { name: 'Missed by the start pulls' });
    live.release();
    await waitFor(async () => (await localDoc(c, 'items', missed.id)) && c.state === 'idle', 'the commit, in sync');
    // The start pull and the connect's (no nudge adds a third).
    for (const x of COLLECTIONS) expect(net.pulls.get(x), x).to.be.at.most(2);
  });
});
