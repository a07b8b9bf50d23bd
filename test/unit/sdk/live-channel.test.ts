// The SDK's live channel against a scripted WebSocket.
// - Client heartbeat (api-contract §7 "Client liveness"): a socket that stops answering is given
//   up and reopened, so is a connect that never opens; a healthy socket whose timers ran late (a
//   hidden browser tab, a blocked event loop) is kept. The end-to-end version, through a proxy
//   that silently holds traffic, is test/e2e/sdk/live-heartbeat.test.ts.
// - A Changed whose live patch the client cannot read is still a nudge.
import { expect } from 'chai';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { createFamilyClient, type FamilyClient, type WebSocketLike } from '@family-shopping/client';
import { sleep } from '../../helpers/wait.js';

const FAMILY_ID = '00000000-0000-4000-8000-0000000000bb';
const TIMEOUT_MS = 1_000;
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

const pulls: string[] = [];

function fakeFetch() {
  const session = () => {
    const iat = Math.floor(Date.now() / 1000);
    return {
      accessToken: `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'u', family_id: FAMILY_ID, role: 'member', iat, exp: iat + 900 })}.sig`,
      refreshToken: 'refresh',
      expiresIn: 900,
      user: {
        id: '00000000-0000-4000-8000-0000000000aa',
        email: 'ann@example.test',
        userName: 'ann',
        emailConfirmed: true,
      },
      family: { id: FAMILY_ID, name: 'Family' },
      role: 'member' as const,
    };
  };
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  return async (url: string) => {
    if (url.endsWith('/api/auth/login') || url.endsWith('/api/auth/refresh')) return json(session());
    if (url.includes('/pull')) {
      pulls.push(/\/api\/sync\/(\w+)\/pull/.exec(url)?.[1] ?? '?');
      return json({ documents: [], checkpoint: null });
    }
    if (url.includes('/push')) return json({ conflicts: [], rejected: [] });
    return json({});
  };
}

type Mode = 'answer' | 'silent' | 'never-open';

/** A server socket that answers Authenticate and Ping (mode `answer`), stops answering
 *  (`silent`: open, nothing arrives, nothing closes), or never opens. */
class ScriptedSocket implements WebSocketLike {
  static made: ScriptedSocket[] = [];
  static nextMode: Mode = 'answer';
  readyState = 0;
  closedWith: number | undefined;
  pings = 0;
  mode: Mode;
  onopen: ((ev: any) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: any) => void) | null = null;
  constructor(_url: string) {
    ScriptedSocket.made.push(this);
    this.mode = ScriptedSocket.nextMode;
    ScriptedSocket.nextMode = 'answer';
    if (this.mode !== 'never-open') {
      setTimeout(() => {
        this.readyState = 1;
        this.onopen?.({});
      }, 5);
    }
  }
  send(data: string) {
    const frame = JSON.parse(data) as { type: string; requestId?: string };
    if (frame.type === 'Ping') this.pings++;
    if (this.mode !== 'answer') return;
    const reply =
      frame.type === 'Authenticate'
        ? { type: 'Authenticated', familyId: FAMILY_ID }
        : frame.type === 'Ping'
          ? { type: 'Pong', requestId: frame.requestId }
          : null;
    if (reply) setTimeout(() => this.onmessage?.({ data: JSON.stringify(reply) }), 1);
  }
  /** A frame from the server. */
  deliver(frame: object) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  close(code?: number) {
    this.closedWith = code;
    this.readyState = 3;
  }
}

async function until(condition: () => boolean, message: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${message}`);
    await sleep(10);
  }
}

describe('SDK: live channel (heartbeat, frames)', function () {
  this.timeout(30_000);
  let client: FamilyClient | undefined;
  beforeEach(() => {
    pulls.length = 0;
    ScriptedSocket.made = [];
    ScriptedSocket.nextMode = 'answer';
  });
  afterEach(async () => {
    await client?.destroy();
    client = undefined;
  });

  async function started(first: Mode = 'answer') {
    ScriptedSocket.nextMode = first;
    client = await createFamilyClient({
      baseUrl: 'http://server.test',
      storage: getRxStorageMemory(),
      databaseName: `heartbeat-${Math.random().toString(36).slice(2, 8)}`,
      fetch: fakeFetch() as never,
      WebSocket: ScriptedSocket,
      heartbeatTimeoutMs: TIMEOUT_MS,
      backoff: { baseMs: 10, maxMs: 50 },
    });
    await client.auth.login('ann@example.test', 'a long enough password');
    await client.start();
    return client;
  }

  it('pings a quiet socket and keeps it while the answers come, even when its timers ran late', async () => {
    const c = await started();
    await until(() => c.online, 'online');
    await sleep(2.5 * TIMEOUT_MS);
    const [socket] = ScriptedSocket.made;
    expect(socket!.pings, 'a Ping every 2/5 of the timeout').to.be.at.least(4);
    // Block the event loop for longer than the timeout: when the heartbeat runs again, nothing has
    // arrived for that long, but no Ping went unanswered, so the socket is kept.
    const until_ = Date.now() + 1.8 * TIMEOUT_MS;
    while (Date.now() < until_) {
      // busy
    }
    await sleep(TIMEOUT_MS / 2);
    expect(ScriptedSocket.made).to.have.length(1);
    expect(socket!.closedWith).to.equal(undefined);
    expect(c.online).to.equal(true);
  });

  it('gives up a socket that stops answering (nothing closes) and opens another', async () => {
    const c = await started();
    await until(() => c.online, 'online');
    const [socket] = ScriptedSocket.made;
    socket!.mode = 'silent';
    const silentAt = Date.now();
    await until(() => ScriptedSocket.made.length === 2, 'a second socket');
    expect(Date.now() - silentAt).to.be.within(TIMEOUT_MS, 3 * TIMEOUT_MS);
    expect(socket!.closedWith).to.be.a('number');
    await until(() => c.online, 'online on the new socket');
  });

  it('a socket pushed out with 4429 (too many sockets of this user) does not come straight back; sync() brings it back', async () => {
    const c = await started();
    await until(() => c.online, 'online');
    const [socket] = ScriptedSocket.made;
    socket!.readyState = 3;
    socket!.onclose?.({ code: 4429, reason: 'too many sockets' });
    await until(() => !c.online, 'offline after 4429');
    // With this client's backoff (10–50 ms), any other close is followed by a new socket within
    // 50 ms; this one is not, for many times that.
    await sleep(1_500);
    expect(ScriptedSocket.made, 'no new socket on its own').to.have.length(1);
    await c.sync();
    await until(() => ScriptedSocket.made.length === 2, 'a new socket after sync()');
    await until(() => c.online, 'online again');
  });

  it('gives up a connect that never opens', async () => {
    const c = await started('never-open');
    await until(() => ScriptedSocket.made.length === 2, 'a second socket');
    expect(ScriptedSocket.made[0]!.closedWith).to.be.a('number');
    await until(() => c.online, 'online on the second socket');
  });

  it('a Changed whose live patch does not validate is still the nudge: the collection is pulled', async () => {
    const c = await started();
    await until(() => c.online, 'online');
    await until(() => c.state === 'idle', 'idle');
    const changed: number[] = [];
    c.on('changed', (e) => changed.push(e.version));
    pulls.length = 0;
    ScriptedSocket.made[0]!.deliver({
      type: 'Changed',
      version: 9,
      previous: 8,
      collections: ['items'],
      docs: { items: { documents: [{ id: 'not a uuid', _deleted: false }], checkpoint: { version: 9, id: 'x' } } },
    });
    await until(() => pulls.includes('items'), 'a pull of items');
    expect(changed).to.deep.equal([9]);
    expect(await c.db.items.count().exec()).to.equal(0);
  });
});
