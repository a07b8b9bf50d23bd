// The live channel over real sockets: first-frame authentication, JoinList/LeaveList, routing of
// committed events to list and overview groups, family partitioning, internal events, token
// replacement and expiry, and bad frames.
import { expect } from 'chai';
import http from 'node:http';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily, makeMember, type TestFamily } from '../../helpers/factories.js';
import { familyWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import { signAccessToken } from '../../../server/auth/tokens.js';
import type { RunningServer } from '../../../server/server.js';
import type { FamilyEvent } from '../../../server/events/bus.js';
import { TestSocket, sleep } from './client.js';

/** A list written through familyWrite, as every path does (REST lists use the same function). */
async function makeList(app: RunningServer, family: TestFamily, name = 'Weekly'): Promise<string> {
  const id = newId();
  await familyWrite(app.deps, family.familyId, async (w) => {
    await w.insert('shopping_lists', { id, name });
    w.emit({
      type: 'ListCreated',
      list: {
        id,
        name,
        storeId: null,
        archivedAt: null,
        createdAt: w.now.toISOString(),
        updatedAt: w.now.toISOString(),
      },
    });
  });
  return id;
}

const itemRecord = (listId: string, id = newId()) => ({
  id,
  listId,
  name: 'Milk',
  quantity: 2,
  unitOfMeasureId: null,
  familyUnitOfMeasureId: null,
  isApproximate: false,
  quantityNote: null,
  productId: null,
  familyProductId: null,
  sectionId: null,
  checked: false,
  checkedAt: null,
  removedAt: null,
  removedByUserId: null,
  createdAt: '2024-05-01T10:00:00.000Z',
  updatedAt: '2024-05-01T10:00:00.000Z',
});

/** Publishes events through a real family write (they go out after commit). */
const emit = (app: RunningServer, familyId: string, ...events: FamilyEvent[]) =>
  familyWrite(app.deps, familyId, async (w) => {
    for (const e of events) w.emit(e);
  });

describe('realtime: the live channel', function () {
  let app: RunningServer;
  const sockets: TestSocket[] = [];
  const track = (s: TestSocket) => (sockets.push(s), s);
  const connect = async (token: string) => track(await TestSocket.connect(app, token));
  const open = async () => track(await TestSocket.open(app.url));

  before(async () => {
    app = await testApp();
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });

  describe('authentication', () => {
    it('answers Authenticated with the family id after a valid first frame', async () => {
      const f = await makeFamily(app);
      const s = await open();
      s.send({ type: 'Authenticate', token: f.admin.token });
      expect(await s.next()).to.deep.equal({ type: 'Authenticated', familyId: f.familyId });
    });

    it('closes with 4401 for a bad, tampered or removed member token', async () => {
      const f = await makeFamily(app);
      const member = await makeMember(app, f);
      await app.deps.db('family_memberships').where({ user_id: member.userId }).delete();
      const tampered = f.admin.token.slice(0, -3) + (f.admin.token.endsWith('A') ? 'BBB' : 'AAA');
      const expired = signAccessToken(app.deps.jwtSecret, f.admin, 60, Date.now() - 3600_000);
      for (const token of ['not-a-jwt', tampered, expired, member.token]) {
        const s = await open();
        s.send({ type: 'Authenticate', token });
        expect(await s.closed, token).to.deep.equal({ code: 4401, reason: 'invalid or expired token' });
      }
    });

    it('closes with 4401 when the first frame is anything but Authenticate', async () => {
      const f = await makeFamily(app);
      const list = await makeList(app, f);
      for (const first of [{ type: 'JoinList', listId: list }, 'hello', { type: 'Shout' }, { type: 'Authenticate' }]) {
        const s = await open();
        s.send(first);
        expect(await s.closed, JSON.stringify(first)).to.deep.equal({
          code: 4401,
          reason: 'the first frame must be Authenticate',
        });
      }
    });

    it('handles an Authenticate followed at once by a JoinList in order', async () => {
      const f = await makeFamily(app);
      const list = await makeList(app, f);
      const s = await open();
      s.send({ type: 'Authenticate', token: f.admin.token });
      s.send({ type: 'JoinList', listId: list, requestId: 1 });
      expect((await s.next()).type).to.equal('Authenticated');
      expect(await s.next()).to.deep.equal({ type: 'JoinedList', listId: list, requestId: 1 });
    });

    it('answers 404 problem+json to upgrades on other paths', async () => {
      try {
        await TestSocket.open(app.url, '/api/elsewhere');
        expect.fail('upgrade succeeded');
      } catch (err) {
        expect((err as { statusCode?: number }).statusCode).to.equal(404);
      }
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(`${app.url}/api/elsewhere`, {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        req.on('response', resolve);
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
        req.end();
      });
      let text = '';
      for await (const chunk of res) text += String(chunk);
      expect(res.statusCode).to.equal(404);
      expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(JSON.parse(text)).to.include({ status: 404, code: 'not_found' });
    });
  });

  describe('groups and events', () => {
    it('JoinList answers JoinedList for a list of the family and not_found otherwise', async () => {
      const f = await makeFamily(app);
      const other = await makeFamily(app);
      const mine = await makeList(app, f);
      const theirs = await makeList(app, other);
      const s = await connect(f.admin.token);
      expect(await s.join(mine, 'a')).to.deep.equal({ type: 'JoinedList', listId: mine, requestId: 'a' });
      expect(await s.join(theirs, 'b')).to.deep.include({ type: 'Error', code: 'not_found', requestId: 'b' });
      expect(await s.join(newId(), 7)).to.deep.include({ type: 'Error', code: 'not_found', requestId: 7 });
      // A deleted list is not joinable.
      await familyWrite(app.deps, f.familyId, (w) => w.tombstone('shopping_lists', { id: mine }));
      expect(await s.join(mine, 'c')).to.deep.include({ type: 'Error', code: 'not_found', requestId: 'c' });
    });

    it('delivers list events to joined sockets and overview events to every socket of the family only', async () => {
      const f = await makeFamily(app);
      const member = await makeMember(app, f);
      const other = await makeFamily(app);
      const list = await makeList(app, f);
      const joined = await connect(f.admin.token);
      const overviewOnly = await connect(member.token);
      const stranger = await connect(other.admin.token);
      await joined.join(list);

      const item = itemRecord(list);
      await emit(
        app,
        f.familyId,
        { type: 'ItemAdded', listId: list, item },
        { type: 'ListProgress', listId: list, itemCount: 1, checkedCount: 0 },
      );

      expect(await joined.next((e) => e.type === 'ItemAdded')).to.deep.equal({ type: 'ItemAdded', listId: list, item });
      await joined.next((e) => e.type === 'ListProgress');
      const changed = await joined.next((e) => e.type === 'Changed');
      expect(changed.version).to.be.a('number');
      await overviewOnly.next((e) => e.type === 'ListProgress');
      expect((await overviewOnly.next((e) => e.type === 'Changed')).version).to.equal(changed.version);

      await overviewOnly.sync();
      await stranger.sync();
      expect(overviewOnly.ofType('ItemAdded')).to.have.length(0);
      expect(stranger.frames.map((e) => e.type)).to.deep.equal(['Authenticated', 'Error']);
    });

    it("never addresses a family's events to another family's sockets, even an event naming that family's list", async () => {
      const f = await makeFamily(app);
      const other = await makeFamily(app);
      const theirs = await makeList(app, other);
      const stranger = await connect(other.admin.token);
      await stranger.join(theirs);
      const own = await connect(f.admin.token);
      // A faulty producer: a write of family f emits events that name the other family's list.
      await emit(
        app,
        f.familyId,
        { type: 'ItemChecked', listId: theirs, itemId: newId(), checked: true },
        { type: 'ListProgress', listId: theirs, itemCount: 9, checkedCount: 9 },
      );
      await own.next((e) => e.type === 'Changed');
      await stranger.sync();
      expect(stranger.frames.map((e) => e.type)).to.deep.equal(['Authenticated', 'JoinedList', 'Error']);
    });

    it('LeaveList stops list events; the overview keeps flowing', async () => {
      const f = await makeFamily(app);
      const list = await makeList(app, f);
      const s = await connect(f.admin.token);
      await s.join(list);
      s.send({ type: 'LeaveList', listId: list });
      await s.sync();
      await emit(app, f.familyId, { type: 'ItemChecked', listId: list, itemId: newId(), checked: true });
      await s.next((e) => e.type === 'Changed');
      await s.sync();
      expect(s.ofType('ItemChecked')).to.have.length(0);
    });

    it('does not forward internal or unknown events, and a rolled-back write emits nothing', async () => {
      const f = await makeFamily(app);
      const list = await makeList(app, f);
      const s = await connect(f.admin.token);
      await s.join(list);
      await emit(
        app,
        f.familyId,
        { type: 'MemberJoined', userId: newId(), role: 'member' },
        { type: 'MemberRoleChanged', userId: f.admin.userId, role: 'admin' },
        // Outside the protocol on purpose (what an instance of another version could publish
        // through Redis): an unknown type, and a list event without its listId (nowhere to go).
        { type: 'SecretThing', listId: list, token: 'x' } as unknown as FamilyEvent,
        { type: 'ItemChecked', itemId: newId(), checked: true } as unknown as FamilyEvent,
      );
      await s.next((e) => e.type === 'Changed');
      try {
        await familyWrite(app.deps, f.familyId, async (w) => {
          w.emit({ type: 'ItemAdded', listId: list, item: itemRecord(list) });
          throw new Error('roll back');
        });
      } catch {
        // expected
      }
      await s.sync();
      expect(s.frames.map((e) => e.type)).to.deep.equal(['Authenticated', 'JoinedList', 'Changed', 'Error']);
    });

    it('closes the sockets of a removed member with 4403 and leaves the others open', async () => {
      const f = await makeFamily(app);
      const member = await makeMember(app, f);
      const a = await connect(member.token);
      const b = await connect(member.token);
      const admin = await connect(f.admin.token);
      await emit(app, f.familyId, { type: 'MemberRemoved', userId: member.userId });
      expect((await a.closed).code).to.equal(4403);
      expect((await b.closed).code).to.equal(4403);
      await admin.next((e) => e.type === 'Changed');
      expect(admin.ofType('MemberRemoved')).to.have.length(0);
    });

    it("DELETE /api/family/members/:userId closes that member's live connections with 4403", async () => {
      const f = await makeFamily(app);
      const member = await makeMember(app, f);
      const s = await connect(member.token);
      const admin = await connect(f.admin.token);
      const res = await request(app, 'DELETE', `/api/family/members/${member.userId}`, { token: f.admin.token });
      expect(res.status).to.equal(204);
      expect((await s.closed).code).to.equal(4403);
      await admin.sync();
      expect(admin.ws.readyState).to.equal(admin.ws.OPEN);
      // And they cannot come back with the same token.
      const again = await open();
      again.send({ type: 'Authenticate', token: member.token });
      expect((await again.closed).code).to.equal(4401);
    });
  });

  describe('token replacement and expiry', () => {
    it('closes with 4401 when the token expires without replacement', async () => {
      const f = await makeFamily(app);
      // `exp` is in whole seconds, so a 3 s token lives 2 to 3 s: time enough to be accepted
      // first on a loaded machine (a 1 s token could expire before its Authenticate is read).
      const short = signAccessToken(app.deps.jwtSecret, f.admin, 3, Date.now());
      const s = await connect(short);
      expect(await s.closed).to.deep.equal({ code: 4401, reason: 'token expired' });
    });

    it('a later Authenticate of the same user replaces the expiring token', async () => {
      const f = await makeFamily(app);
      const short = signAccessToken(app.deps.jwtSecret, f.admin, 3, Date.now());
      const s = await connect(short);
      s.send({ type: 'Authenticate', token: f.admin.token });
      expect(await s.next()).to.deep.equal({ type: 'Authenticated', familyId: f.familyId });
      await sleep(3_300); // past the first token's expiry
      await emit(app, f.familyId);
      await s.next((e) => e.type === 'Changed');
      expect(s.ws.readyState).to.equal(s.ws.OPEN);
    });

    it('closes with 4401 when the replacing token is of another user, another family, or invalid', async () => {
      const f = await makeFamily(app);
      const member = await makeMember(app, f);
      const other = await makeFamily(app);
      for (const [token, reason] of [
        [member.token, 'token of another user or family'],
        [other.admin.token, 'token of another user or family'],
        ['garbage', 'invalid or expired token'],
      ] as const) {
        const s = await connect(f.admin.token);
        s.send({ type: 'Authenticate', token });
        expect(await s.closed).to.deep.equal({ code: 4401, reason });
      }
    });
  });

  describe('bad frames', () => {
    it('answers Error bad_request to frames that are not JSON, of unknown type or missing fields, and keeps going', async () => {
      const f = await makeFamily(app);
      const list = await makeList(app, f);
      const s = await connect(f.admin.token);
      const neighbour = await connect(f.admin.token);
      await neighbour.join(list);
      for (const bad of [
        '{not json',
        '[]',
        '42',
        JSON.stringify({ type: 'Shout' }),
        JSON.stringify({ type: 'JoinList', requestId: 'r9' }),
        JSON.stringify({ type: 'JoinList', listId: 'nope' }),
      ]) {
        s.send(bad);
        const err = await s.next();
        expect(err, bad).to.include({ type: 'Error', code: 'bad_request' });
        expect(err.message).to.be.a('string').and.not.equal('');
      }
      expect(s.frames.at(-2)).to.include({ requestId: 'r9' });
      s.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      expect(await s.next()).to.include({ type: 'Error', code: 'bad_request' });
      // Still in service, and so is everybody else.
      expect(await s.join(list)).to.include({ type: 'JoinedList' });
      await emit(app, f.familyId, { type: 'ItemChecked', listId: list, itemId: newId(), checked: true });
      await s.next((e) => e.type === 'ItemChecked');
      await neighbour.next((e) => e.type === 'ItemChecked');
    });

    it('closes with 1009 on a frame over 64 KiB and 1007 on a text frame that is not UTF-8, without touching other sockets', async () => {
      const f = await makeFamily(app);
      const s = await connect(f.admin.token);
      const notUtf8 = await connect(f.admin.token);
      const neighbour = await connect(f.admin.token);
      s.send(JSON.stringify({ type: 'JoinList', listId: newId(), requestId: 'x'.repeat(70 * 1024) }));
      expect((await s.closed).code).to.equal(1009);
      notUtf8.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
      expect((await notUtf8.closed).code).to.equal(1007);
      await emit(app, f.familyId);
      await neighbour.next((e) => e.type === 'Changed');
    });

    it('answers a burst of frames in order without dropping any (backpressure, no close)', async () => {
      const f = await makeFamily(app);
      const list = await makeList(app, f);
      const s = await connect(f.admin.token);
      for (let i = 0; i < 300; i++) s.send({ type: 'JoinList', listId: i % 2 ? list : newId(), requestId: i });
      const last = await s.next((e) => e.requestId === 299, 15_000);
      expect(last).to.include({ type: 'JoinedList' });
      expect(s.frames.slice(1).map((e) => e.requestId)).to.deep.equal(Array.from({ length: 300 }, (_, i) => i));
      expect(s.ws.readyState).to.equal(s.ws.OPEN);
    });

    it('survives a client that drops the connection mid-frame', async () => {
      const f = await makeFamily(app);
      const s = await open();
      s.send({ type: 'Authenticate', token: f.admin.token });
      s.ws.terminate();
      const again = await connect(f.admin.token);
      await emit(app, f.familyId);
      await again.next((e) => e.type === 'Changed');
    });
  });
});
