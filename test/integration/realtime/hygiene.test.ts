// Connection hygiene with real sockets: the authentication deadline, heartbeats that drop dead
// connections, the slow-consumer bound (a client that stops reading is closed with 4408 and does
// not hold up others) and graceful shutdown (1001 going away, 1012 restart).
import { expect } from 'chai';
import { request, startTestApp, testApp } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { familyWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import type { RunningServer, StartOptions } from '../../../server/server.js';
import { WebSocket } from 'ws';
import { TestSocket, sleep } from './client.js';
import { captureLogs } from '../../helpers/logs.js';
import { waitFor } from '../../helpers/wait.js';
import type { FamilyEvent } from '../../../server/events/bus.js';

describe('realtime: connection hygiene', function () {
  this.timeout(60_000);
  const apps: RunningServer[] = [];
  const sockets: TestSocket[] = [];

  /** A separate instance sharing the suite's database, with its own live-channel settings. */
  async function instance(realtime: StartOptions['realtime']): Promise<RunningServer> {
    const shared = await testApp();
    const app = await startTestApp({ db: shared.deps.db, realtime });
    apps.push(app);
    return app;
  }
  const track = (s: TestSocket) => (sockets.push(s), s);

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  it('closes with 4401 when no Authenticate arrives in time', async () => {
    const app = await instance({ authTimeoutMs: 200 });
    const s = track(await TestSocket.open(app.url));
    expect((await s.closed).code).to.equal(4401);
  });

  it('pings a socket that has sent nothing yet, and leaves closing it to the authentication deadline', async () => {
    const app = await instance({ pingIntervalMs: 100, authTimeoutMs: 1_000 });
    const s = track(await TestSocket.open(app.url)); // answers pings, sends nothing
    let pings = 0;
    s.ws.on('ping', () => pings++);
    const opened = Date.now();
    const closed = await s.closed;
    expect(closed).to.deep.equal({ code: 4401, reason: 'authentication timeout' });
    expect(Date.now() - opened).to.be.at.least(900);
    expect(pings).to.be.at.least(3);
  });

  it('terminates a socket that stops answering pings and keeps one that answers', async () => {
    // 300 ms: long enough for the answering socket's pong to arrive on a loaded machine (the
    // client runs in this same process), short enough for the test.
    const app = await instance({ pingIntervalMs: 300 });
    const f = await makeFamily(app);
    const dead = track(await TestSocket.connect(app, f.admin.token, { autoPong: false }));
    const alive = track(await TestSocket.connect(app, f.admin.token));
    const { code } = await dead.closed;
    expect(code).to.equal(1006); // dropped without a close handshake
    await sleep(900); // three more rounds
    expect(alive.ws.readyState).to.equal(alive.ws.OPEN);
    expect(app.deps.realtime!.hub.stats().sockets).to.equal(1);
  });

  it('closes a removed member with 4403 even when the removal event never arrived (periodic membership check)', async () => {
    const app = await instance({ membershipCheckMs: 100 });
    const f = await makeFamily(app);
    const member = await makeMember(app, f);
    const gone = track(await TestSocket.connect(app, member.token));
    const stays = track(await TestSocket.connect(app, f.admin.token));
    // The membership disappears behind the live channel's back: no MemberRemoved event.
    await app.deps.db('family_memberships').where({ family_id: f.familyId, user_id: member.userId }).del();
    expect((await gone.closed).code).to.equal(4403);
    await sleep(300);
    expect(stays.ws.readyState).to.equal(stays.ws.OPEN);
  });

  it('refuses a join beyond the lists one socket may hold, and keeps answering the lists it holds', async () => {
    const app = await instance({ maxListsPerSocket: 2 });
    const f = await makeFamily(app);
    const ids = [newId(), newId(), newId()];
    await familyWrite(app.deps, f.familyId, async (w) => {
      for (const [i, id] of ids.entries()) await w.insert('shopping_lists', { id, name: `List ${i}` });
    });
    const s = track(await TestSocket.connect(app, f.admin.token));
    expect((await s.join(ids[0]!)).type).to.equal('JoinedList');
    expect((await s.join(ids[1]!)).type).to.equal('JoinedList');
    const refused = await s.join(ids[2]!, 7);
    expect(refused).to.deep.equal({
      type: 'Error',
      code: 'too_many_lists',
      message: 'A connection may join at most 2 lists',
      requestId: 7,
    });
    expect(await s.join(ids[1]!, 'again')).to.deep.equal({ type: 'JoinedList', listId: ids[1], requestId: 'again' });
    expect(s.ws.readyState).to.equal(s.ws.OPEN);
    // A deleted list leaves every socket that held it: the allowance is free again.
    const del = await request(app, 'DELETE', `/api/lists/${ids[0]!.toUpperCase()}`, { token: f.admin.token });
    expect(del.status).to.equal(204);
    await s.next((x) => x.type === 'ListDeleted');
    expect((await s.join(ids[2]!, 'freed')).type).to.equal('JoinedList');
    // A second socket of the same user has its own allowance.
    const other = track(await TestSocket.connect(app, f.admin.token));
    expect((await other.join(ids[2]!)).type).to.equal('JoinedList');
  });

  it('sends an event the protocol schema refuses as it came, and logs what is wrong with it', async () => {
    const logs = captureLogs();
    const app = await startTestApp({ db: (await testApp()).deps.db, logger: logs.logger });
    apps.push(app);
    const f = await makeFamily(app);
    const listId = newId();
    await familyWrite(app.deps, f.familyId, (w) => w.insert('shopping_lists', { id: listId, name: 'Drift' }));
    // A plain client: the test client refuses frames the protocol does not decode.
    const ws = new WebSocket(`${app.url.replace(/^http/, 'ws')}/api/realtime`);
    const frames: Array<Record<string, unknown>> = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Record<string, unknown>));
    try {
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'Authenticate', token: f.admin.token }));
      await waitFor(() => frames.some((x) => x.type === 'Authenticated'), 'Authenticated');
      ws.send(JSON.stringify({ type: 'JoinList', listId, requestId: 1 }));
      await waitFor(() => frames.some((x) => x.type === 'JoinedList'), 'JoinedList');
      // An item with none of its fields (as a producer of another version might send).
      const drifted = { type: 'ItemUpdated', listId, item: { id: newId() } };
      await app.deps.bus.publish(f.familyId, [drifted as unknown as FamilyEvent]);
      const sent = await waitFor(() => frames.find((x) => x.type === 'ItemUpdated'), 'the drifted event');
      expect(sent).to.deep.equal(drifted);
      const warned = logs.lines.filter((l) => l.msg === 'realtime event does not match the protocol schema');
      expect(warned).to.have.length(1);
      expect(warned[0]).to.include({ level: 40, eventType: 'ItemUpdated' });
      expect(warned[0]!.issues).to.be.an('array').with.lengthOf(5); // the first five of many
    } finally {
      ws.terminate();
    }
  });

  it('answers every frame of a client that sends faster than they are handled, in order, and keeps it open', async () => {
    const app = await instance({ maxPendingFrames: 4 });
    const f = await makeFamily(app);
    const s = track(await TestSocket.connect(app, f.admin.token));
    const n = 200;
    // Each JoinList waits on the database: the server stops reading at 4 waiting, resumes at 2.
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (let i = 0; i < n; i++) s.send({ type: 'JoinList', listId: unknown, requestId: i });
    await s.next((x) => x.type === 'Error' && x.requestId === n - 1, 30_000);
    expect(s.ofType('Error').map((x) => x.requestId)).to.deep.equal([...Array(n).keys()]);
    expect(s.ofType('Error').every((x) => x.code === 'not_found')).to.equal(true);
    s.send({ type: 'Ping', requestId: 'after' });
    expect(await s.next((x) => x.type === 'Pong')).to.deep.equal({ type: 'Pong', requestId: 'after' });
  });

  it('closes a client that stops reading with 4408 while the others keep receiving', async () => {
    const app = await instance({ maxBufferedBytes: 256 * 1024, closeGraceMs: 30_000 });
    const f = await makeFamily(app);
    const listId = newId();
    await familyWrite(app.deps, f.familyId, (w) => w.insert('shopping_lists', { id: listId, name: 'Big shop' }));
    const slow = track(await TestSocket.connect(app, f.admin.token));
    const healthy = track(await TestSocket.connect(app, f.admin.token));
    await slow.join(listId);
    await healthy.join(listId);

    // The slow client stops reading its TCP socket (ws.pause() pauses the socket and keeps ws
    // from resuming it): the kernel buffers fill, then the server's send buffer.
    slow.ws.pause();
    const item = {
      id: newId(),
      listId,
      name: 'x'.repeat(500),
      quantity: null,
      unitOfMeasureId: null,
      familyUnitOfMeasureId: null,
      isApproximate: false,
      quantityNote: 'y'.repeat(500),
      productId: null,
      familyProductId: null,
      sectionId: null,
      checked: false,
      checkedAt: null,
      removedAt: null,
      removedByUserId: null,
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00.000Z',
    };
    const batch = Array.from({ length: 100 }, () => ({ type: 'ItemUpdated' as const, listId, item }));
    let published = 0;
    // Stop as soon as the server has let go of the slow socket (at most ~100 MB).
    while (app.deps.realtime!.hub.stats().sockets === 2 && published < 100_000) {
      await app.deps.bus.publish(f.familyId, batch);
      published += batch.length;
      // The healthy client reads as fast as it is fed, as a real one on its own machine would:
      // the publisher (in this same process) waits until it is at most 500 events behind, so
      // only the paused client's buffers can fill up.
      for (let waited = 0; healthy.frames.length < published - 500 && waited < 5_000; waited++) await sleep(1);
    }
    expect(app.deps.realtime!.hub.stats().sockets, `after ${published} events`).to.equal(1);
    slow.ws.resume();
    expect(await slow.closed).to.deep.equal({ code: 4408, reason: 'slow consumer: send buffer overflow' });

    // The healthy one got everything and still gets new events.
    await familyWrite(app.deps, f.familyId, async (w) =>
      w.emit({ type: 'ItemChecked', listId, itemId: item.id, checked: true }),
    );
    await healthy.next((e) => e.type === 'ItemChecked', 20_000);
    expect(healthy.ofType('ItemUpdated')).to.have.length(published);
  });

  it('while shutting down, a new upgrade is answered 503 shutting_down, so the client reconnects elsewhere', async () => {
    const app = await instance({ closeGraceMs: 1_500 });
    const f = await makeFamily(app);
    const stuck = track(await TestSocket.connect(app, f.admin.token));
    stuck.ws.pause(); // does not read the close frame: the shutdown waits for it (up to the grace)
    const closing = app.close();
    await sleep(100);
    const refused = await new Promise<{ status?: number; type?: string; body: string }>((resolve) => {
      const ws = new WebSocket(`${app.url.replace(/^http/, 'ws')}/api/realtime`);
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
      });
      ws.once('open', () => resolve({ body: 'opened' }));
      ws.once('error', () => undefined);
    });
    await closing;
    expect(refused.status, refused.body).to.equal(503);
    expect(refused.type).to.equal('application/problem+json');
    expect(JSON.parse(refused.body)).to.include({ status: 503, code: 'shutting_down' });
  });

  it('graceful shutdown closes every socket with 1001; a restart with 1012', async () => {
    for (const [restart, expected] of [
      [false, 1001],
      [true, 1012],
    ] as const) {
      const app = await instance({});
      const f = await makeFamily(app);
      const authed = track(await TestSocket.connect(app, f.admin.token));
      const pending = track(await TestSocket.open(app.url));
      await app.close({ restart });
      expect((await authed.closed).code).to.equal(expected);
      expect((await pending.closed).code).to.equal(expected);
    }
  });
});
