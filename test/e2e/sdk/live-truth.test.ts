// What the live path and the network tell the SDK, and what it may conclude from them:
// - a device that missed a `Changed` frame cannot vouch for any collection's checkpoint at that
//   frame's version, so a later frame (of another collection) moves nothing, and the next patch
//   of the collection it missed is not taken: it pulls, and gets what it missed;
// - a frame of any kind is a sign of life: a socket whose Pongs are lost but whose other frames
//   keep coming is kept;
// - `429` is "not now", not "no": a push answered 429 is sent again without an error, a refresh
//   answered 429 keeps the session;
// - a request has a deadline until its whole body has arrived: an answer that stops half-way
//   fails as `network_error` rather than hanging the caller.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import WebSocket from 'ws';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import {
  FamilyApiError,
  newDoc,
  type FamilyClientEvent,
  type WebSocketConstructor,
  type WebSocketLike,
} from '@family-shopping/client';
import {
  fetchAs,
  localDoc,
  loginSession,
  newClient,
  recordEvents,
  restAs,
  sdkSuite,
  signedInClient,
  tamperedToken,
  waitFor,
} from './helpers.js';

/** The `ws` WebSocket with a filter on incoming frames (a refused frame never reaches the SDK,
 *  as if the server had not sent it); counts the sockets opened. */
function filteredWebSocket(keep: (data: string) => boolean, opened: { count: number }): WebSocketConstructor {
  return class implements WebSocketLike {
    private readonly ws: WebSocket;
    onopen: ((ev: any) => void) | null = null;
    onmessage: ((ev: { data: unknown }) => void) | null = null;
    onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
    onerror: ((ev: any) => void) | null = null;
    constructor(url: string) {
      opened.count++;
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

/** An HTTP server in front of the app: `intercept` may answer a request itself (return true),
 *  everything else is passed on as is. */
async function startFront(
  target: { url: string },
  intercept: (req: http.IncomingMessage, res: http.ServerResponse) => boolean,
): Promise<{ url: string; close(): Promise<void> }> {
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    if (intercept(req, res)) {
      open.add(res);
      res.on('close', () => open.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers.connection;
      delete headers['content-length'];
      fetch(target.url + req.url, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      }).then(
        async (up) => {
          const body = Buffer.from(await up.arrayBuffer());
          const out: Record<string, string> = {};
          up.headers.forEach((v, k) => {
            if (k !== 'content-encoding' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
          });
          res.writeHead(up.status, out).end(body);
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const rateLimited = (res: http.ServerResponse) =>
  res
    .writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '1' })
    .end(JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'rate_limited' }));

describe('e2e SDK: the live path and the network, told truly', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  it('after a missed Changed frame, a frame of another collection vouches for nothing: the next patch of the missed one pulls', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const api = restAs(sdk.app, member.token);
    const list = await api('POST', '/api/lists', { name: 'Groceries' });
    const first = await api('POST', `/api/lists/${list.id}/items`, { name: 'Bread' });
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
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, { WebSocket: filteredWebSocket(keep, { count: 0 }) }),
    );
    const events = recordEvents(c);
    await c.start();
    await waitFor(async () => (await localDoc(c, 'items', first.id)) && c.state === 'idle', 'initial sync');
    await c.sync();
    const changed = (pred: (f: any) => boolean) =>
      events.some((e) => e.type === 'frame' && e.frame.type === 'Changed' && pred(e.frame));

    // Missed: Eggs (items).
    dropNext = true;
    const eggs = await api('POST', `/api/lists/${list.id}/items`, { name: 'Eggs' });
    await waitFor(() => dropped.length === 1, 'the frame of Eggs dropped');
    // Seen: a list of another name (lists only; its `previous` is Eggs' version).
    await api('PATCH', `/api/lists/${list.id}`, { name: 'Weekly' });
    await waitFor(async () => (await localDoc(c, 'lists', list.id))?.name === 'Weekly', 'the renamed list');
    // Seen: Rice (items, with its doc).
    const rice = await api('POST', `/api/lists/${list.id}/items`, { name: 'Rice' });
    await waitFor(() => changed((f) => f.docs?.items?.documents.some((d: any) => d.id === rice.id)), 'Rice');
    await waitFor(() => localDoc(c, 'items', rice.id), 'Rice on the device');
    expect(await waitFor(() => localDoc(c, 'items', eggs.id), 'Eggs, missed by the live channel')).to.include({
      name: 'Eggs',
    });
  });

  it('a socket whose Pongs are lost is kept while its other frames keep coming', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const api = restAs(sdk.app, member.token);
    const list = await api('POST', '/api/lists', { name: 'Busy' });
    const opened = { count: 0 };
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        heartbeatTimeoutMs: 1_500,
        WebSocket: filteredWebSocket((data) => !data.includes('"type":"Pong"'), opened),
      }),
    );
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => c.state === 'idle' && c.online, 'online and idle');
    expect(opened.count).to.equal(1);
    // Another member writes about every 0.6 timeouts, for 5 timeouts: frames keep arriving,
    // no Pong ever does.
    for (let i = 0; i < 8; i++) {
      const item = await api('POST', `/api/lists/${list.id}/items`, { name: `Busy ${i}` });
      await waitFor(() => localDoc(c, 'items', item.id), `item ${i}`);
      await new Promise((r) => setTimeout(r, 900));
    }
    expect(opened.count, 'sockets opened').to.equal(1);
    expect(events.filter((e) => e.type === 'offline')).to.deep.equal([]);
  });

  it('429 is "not now": a push answered 429 is sent again, not before its Retry-After, and no error is reported', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Throttled' });
    let pushes = 0;
    const limit = { push: 0 };
    /** When each push arrived, and whether it was answered 429 (Retry-After: 1). */
    const arrivals: Array<{ at: number; refused: boolean }> = [];
    const front = sdk.track(
      await startFront(sdk.app, (req, res) => {
        if (!/\/api\/sync\/items\/push/.test(req.url ?? '')) return false;
        const refused = pushes++ < limit.push;
        arrivals.push({ at: Date.now(), refused });
        return refused ? (rateLimited(res), true) : false;
      }),
    );
    const c = sdk.track(await signedInClient({ url: front.url }, family.admin, { fetch: fetchAs() }));
    const events: FamilyClientEvent[] = recordEvents(c);
    await c.start();
    await c.awaitInSync();

    // A push: refused twice with 429, then let through.
    limit.push = pushes + 2;
    const item = newDoc('items', { listId: list.id, name: 'Later' });
    await c.db.items.insert(item);
    await waitFor(async () => JSON.stringify(await rest('GET', `/api/lists/${list.id}`)).includes('Later'), 'pushed');
    expect(pushes, 'push requests').to.be.at.least(3);
    // The SDK's own backoff would retry within 0.5 s; the server asked for 1 s.
    for (let k = 1; k < arrivals.length; k++) {
      if (arrivals[k - 1]!.refused) {
        expect(arrivals[k]!.at - arrivals[k - 1]!.at, `retry ${k} waited out Retry-After`).to.be.at.least(950);
      }
    }
    expect(
      events.filter((e) => e.type === 'error').map((e) => String((e as { error: unknown }).error)),
      'no error reported for a 429',
    ).to.deep.equal([]);
  });

  it('429 on a refresh is "not now" too: the call fails for now, the session stays, the next call refreshes', async () => {
    const family = await makeFamily(sdk.app);
    let refreshes = 0;
    const front = sdk.track(
      await startFront(sdk.app, (req, res) => {
        if (req.url === '/api/auth/refresh' && refreshes++ === 0) return (rateLimited(res), true);
        return false;
      }),
    );
    const session = await loginSession(sdk.app, family.admin);
    const c = sdk.track(
      await newClient({ url: front.url }, { session: { ...session, accessToken: tamperedToken(session.accessToken) } }),
    );
    const events = recordEvents(c);
    const err = await c.rest('GET', '/api/lists').then(
      () => null,
      (e: unknown) => e,
    );
    expect(refreshes).to.equal(1);
    expect(err).to.be.instanceOf(FamilyApiError);
    expect((err as FamilyApiError).status).to.equal(429);
    expect(c.auth.session, 'still signed in').to.not.equal(null);
    expect(events.some((e) => e.type === 'unauthenticated')).to.equal(false);
    expect(await c.rest('GET', '/api/lists')).to.be.an('array');
    expect(refreshes).to.equal(2);
    expect(c.auth.session).to.not.equal(null);
  });

  it('an answer that stops half-way fails as network_error within the deadline instead of hanging', async () => {
    const family = await makeFamily(sdk.app);
    let stall = false;
    const front = sdk.track(
      await startFront(sdk.app, (req, res) => {
        if (!stall || req.url !== '/api/lists') return false;
        // The status and headers, the start of the body, then nothing (the connection stays open).
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write('[{"id":"');
        return true;
      }),
    );
    // Signed in beforehand: only the stalled request runs under the short deadline (a login
    // slowed by a loaded machine would otherwise fail it before the stall is reached).
    const session = await loginSession(sdk.app, family.admin);
    const c = sdk.track(await newClient({ url: front.url }, { requestTimeoutMs: 1_500, session }));
    stall = true;
    const outcome = await Promise.race([
      c.rest('GET', '/api/lists').then(
        () => 'answered',
        (e: unknown) => e,
      ),
      new Promise((r) => setTimeout(() => r('still waiting after 15 s'), 15_000)),
    ]);
    expect(outcome).to.be.instanceOf(FamilyApiError);
    expect((outcome as FamilyApiError).code).to.equal('network_error');
  });
});
