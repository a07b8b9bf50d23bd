// Live patches through the SDK (api-contract §7): a device in sync takes another member's
// single write from the `Changed` frame itself, without a pull, and the next single write too;
// a write over the bound (no docs in the frame) is pulled, and so are the writes after it; a
// device whose checkpoint is behind the frame's `previous` (it missed a frame) takes nothing from
// the frame and pulls.
import { expect } from 'chai';
import WebSocket from 'ws';
import { makeFamily, makeMember, type TestFamily, type TestUser } from '../../helpers/factories.js';
import type { FetchLike, WebSocketConstructor, WebSocketLike } from '@family-shopping/client';
import { LIVE_PATCH_MAX_DOCS } from '@family-shopping/client/protocol';
import { itemDoc, push } from '../../integration/sync/helpers.js';
import { fetchAs, localDoc, recordEvents, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

/** The `ws` WebSocket with a filter on incoming frames (a frame the filter refuses never
 *  reaches the SDK, as if the server had not sent it). */
function filteredWebSocket(keep: (data: string) => boolean): WebSocketConstructor {
  return class implements WebSocketLike {
    private readonly ws: WebSocket;
    onopen: ((ev: any) => void) | null = null;
    onmessage: ((ev: { data: unknown }) => void) | null = null;
    onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
    onerror: ((ev: any) => void) | null = null;
    constructor(url: string) {
      this.ws = new WebSocket(url);
      this.ws.onopen = (e) => this.onopen?.(e);
      this.ws.onmessage = (e) => {
        if (keep(String(e.data))) this.onmessage?.({ data: e.data });
      };
      this.ws.onclose = (e) => this.onclose?.({ code: e.code, reason: e.reason });
      this.ws.onerror = (e) => this.onerror?.(e);
    }
    get readyState() {
      return this.ws.readyState;
    }
    send(data: string) {
      this.ws.send(data);
    }
    close(code?: number, reason?: string) {
      this.ws.close(code, reason);
    }
  };
}

describe('e2e SDK: live patches', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  /** A family with a list holding one item, a member who writes, and the admin's device in
   *  sync with it: every pull request the device makes is recorded. */
  async function deviceInSync(options: { WebSocket?: WebSocketConstructor; fetch?: FetchLike } = {}) {
    const family: TestFamily = await makeFamily(sdk.app);
    const member: TestUser = await makeMember(sdk.app, family);
    const api = restAs(sdk.app, member.token);
    const list = await api('POST', '/api/lists', { name: 'Groceries' });
    const first = await api('POST', `/api/lists/${list.id}/items`, { name: 'Bread' });
    const pulls: string[] = [];
    const base = options.fetch ?? fetchAs();
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
        fetch: (input, init) => {
          const m = /\/api\/sync\/(\w+)\/pull/.exec(input);
          if (m) pulls.push(m[1]!);
          return base(input, init);
        },
      }),
    );
    const events = recordEvents(c);
    await c.start();
    await waitFor(async () => (await localDoc(c, 'items', first.id)) && c.state === 'idle', 'initial sync');
    await c.sync();
    await waitFor(() => c.state === 'idle', 'idle');
    pulls.length = 0;
    const changedFrames = () =>
      events.flatMap((e) => (e.type === 'frame' && e.frame.type === 'Changed' ? [e.frame] : []));
    return { family, member, api, list, c, pulls, changedFrames };
  }

  it('a device in sync takes a single write of another member from the frame, no pull, and the next one too', async () => {
    const { api, list, c, pulls, changedFrames } = await deviceInSync();

    const milk = await api('POST', `/api/lists/${list.id}/items`, { name: 'Milk', quantity: 2 });
    expect(await waitFor(() => localDoc(c, 'items', milk.id), 'Milk in the local database')).to.include({
      name: 'Milk',
      quantity: 2,
    });
    expect(
      changedFrames()
        .at(-1)!
        .docs?.items?.documents.map((d) => d.id),
    ).to.deep.equal([milk.id]);

    // A single write again (no later write, no sync()).
    await api('PATCH', `/api/lists/${list.id}/items/${milk.id}`, { checked: true });
    await waitFor(async () => (await localDoc(c, 'items', milk.id))?.checked === true, 'Milk checked locally');

    // Another collection: unwritten by the two commits above, its checkpoint moved with them.
    await api('PATCH', `/api/lists/${list.id}`, { name: 'Weekly' });
    await waitFor(async () => (await localDoc(c, 'lists', list.id))?.name === 'Weekly', 'the renamed list');
    await waitFor(() => c.state === 'idle', 'idle');
    expect(pulls, 'no pull: every write came as a patch').to.deep.equal([]);
  });

  it('writes over the bound (no docs in the frame) are pulled, one after the other; the next small one is patched again', async () => {
    const { member, list, api, c, pulls, changedFrames } = await deviceInSync();
    const many = () =>
      Array.from({ length: LIVE_PATCH_MAX_DOCS + 1 }, () => ({ newDocumentState: itemDoc(list.id, { name: 'Jam' }) }));

    const firstBatch = many();
    expect((await push(sdk.app, member.token, 'items', firstBatch)).body.rejected).to.deep.equal([]);
    await waitFor(async () => (await c.db.items.count().exec()) === 1 + firstBatch.length, 'the first 101 items');
    expect(changedFrames().at(-1)).to.not.have.property('docs');
    expect(pulls).to.include('items');

    const secondBatch = many();
    expect((await push(sdk.app, member.token, 'items', secondBatch)).body.rejected).to.deep.equal([]);
    await waitFor(async () => (await c.db.items.count().exec()) === 1 + 2 * firstBatch.length, 'the next 101 items');
    for (const row of [...firstBatch, ...secondBatch].filter((_, i) => i % 25 === 0)) {
      expect(await localDoc(c, 'items', row.newDocumentState.id)).to.include({ name: 'Jam', listId: list.id });
    }
    await waitFor(() => c.state === 'idle', 'idle');

    // The pull ended at the family's version: the next small write applies from the frame.
    pulls.length = 0;
    const honey = await api('POST', `/api/lists/${list.id}/items`, { name: 'Honey' });
    await waitFor(() => localDoc(c, 'items', honey.id), 'Honey');
    await waitFor(() => c.state === 'idle', 'idle again');
    expect(pulls).to.deep.equal([]);
  });

  it('a frame that arrives while the collection pulls is not taken from: the pull brings it', async () => {
    let gate: Promise<void> = Promise.resolve();
    let open = () => {};
    const base = fetchAs();
    const gated: FetchLike = async (input, init) => {
      if (/\/api\/sync\/items\/pull/.test(input)) await gate;
      return base(input, init);
    };
    const { api, list, c, pulls, changedFrames } = await deviceInSync({ fetch: gated });
    gate = new Promise<void>((resolve) => (open = resolve));
    const syncing = c.sync(); // a pull of every collection; the one of items waits at the gate
    await waitFor(() => pulls.includes('items'), 'the pull of items under way');
    const salt = await api('POST', `/api/lists/${list.id}/items`, { name: 'Salt' });
    await waitFor(
      () => changedFrames().some((f) => f.docs?.items?.documents.some((d) => d.id === salt.id)),
      'the frame of Salt',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await localDoc(c, 'items', salt.id), 'not taken from the frame while a pull runs').to.equal(undefined);
    open();
    await syncing;
    await waitFor(() => localDoc(c, 'items', salt.id), 'Salt, by a pull');
  });

  it('a device whose checkpoint is behind the frame (it missed a Changed) takes nothing from it and pulls', async () => {
    // Drops the next Changed that names items, once armed.
    let dropNext = false;
    const dropped: string[] = [];
    const keep = (data: string) => {
      if (dropNext && data.includes('"type":"Changed"') && data.includes('"items"')) {
        dropNext = false;
        dropped.push(data);
        return false;
      }
      return true;
    };
    // Item pulls wait for a gate, so the test can look at the local database while one runs.
    let gate: Promise<void> = Promise.resolve();
    let open = () => {};
    const base = fetchAs();
    const gated: FetchLike = async (input, init) => {
      if (/\/api\/sync\/items\/pull/.test(input)) await gate;
      return base(input, init);
    };
    const { api, list, c, pulls, changedFrames } = await deviceInSync({
      WebSocket: filteredWebSocket(keep),
      fetch: gated,
    });

    dropNext = true;
    const eggs = await api('POST', `/api/lists/${list.id}/items`, { name: 'Eggs' });
    await waitFor(() => dropped.length === 1, 'the frame of Eggs dropped');
    gate = new Promise<void>((resolve) => (open = resolve));
    const rice = await api('POST', `/api/lists/${list.id}/items`, { name: 'Rice' });
    await waitFor(
      () => changedFrames().some((f) => f.docs?.items?.documents.some((d) => d.id === rice.id)),
      'the frame of Rice (with its doc)',
    );
    await waitFor(() => pulls.includes('items'), 'a pull of items');
    // The frame carried Rice, but its previous is Eggs' version, which this device never saw.
    await new Promise((r) => setTimeout(r, 500));
    expect(await localDoc(c, 'items', rice.id), 'Rice is not taken from the frame').to.equal(undefined);
    open();
    await waitFor(() => localDoc(c, 'items', eggs.id), 'Eggs, by the pull');
    await waitFor(() => localDoc(c, 'items', rice.id), 'Rice, by the pull');
  });
});
