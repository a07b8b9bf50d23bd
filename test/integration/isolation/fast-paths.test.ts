// Tenant isolation on the read and write paths that take shortcuts: the bulk path of an items
// push (every row new and distinct, so the references are read for all rows at once by id), the
// list-detail copy kept per family version, and the reads remembered until the next write. Another
// family's ids, guessed or learned, never return its data nor let a write land in it, whether or
// not the owner's copy is cached at that moment.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import { makeFamily, makeMember, type TestFamily } from '../../helpers/factories.js';
import { familyVersion, makeFixture, snapshot, type Fixture } from './fixture.js';
import { itemDoc, listDoc, pullAll, push, uuid } from '../sync/helpers.js';

describe('isolation: bulk push, list-detail copy, remembered reads', function () {
  this.timeout(60_000);
  let app: RunningServer;
  before(async () => {
    app = await testApp();
  });

  /** A fresh family with a list of its own (pushed, so the list is known to replication). */
  async function familyWithList(): Promise<{ family: TestFamily; listId: string }> {
    const family = await makeFamily(app);
    const list = listDoc({ name: 'Own list' });
    const r = await push(app, family.admin.token, 'lists', [{ newDocumentState: list }]);
    expect(r.body).to.deep.equal({ conflicts: [], rejected: [] });
    return { family, listId: list.id };
  }

  /** Writes in the family behind until the two version counters are level. */
  async function levelVersions(a: TestFamily, b: TestFamily): Promise<number> {
    for (;;) {
      const [va, vb] = [await familyVersion(app, a.familyId), await familyVersion(app, b.familyId)];
      if (va === vb) return va;
      const behind = va < vb ? a : b;
      const r = await request(app, 'POST', '/api/stores', { token: behind.admin.token, body: { name: `S ${uuid()}` } });
      expect(r.status).to.equal(201);
    }
  }

  describe('a push of new, distinct items (the bulk path)', () => {
    let owner: Fixture;
    before(async () => {
      owner = await makeFixture(app);
    });

    it("into another family's list is refused, and neither family gets an item", async () => {
      const { family: other, listId: ownList } = await familyWithList();
      const before = await snapshot(app, owner.family.familyId);
      const rows = [
        itemDoc(owner.listId, { name: 'Intruder 1' }),
        itemDoc(owner.listId, { name: 'Intruder 2' }),
        itemDoc(owner.listId, { name: 'Intruder 3' }),
      ];
      const r = await push(
        app,
        other.admin.token,
        'items',
        rows.map((d) => ({ newDocumentState: d })),
      );
      expect(r.status).to.equal(200);
      // Each refused row comes back as a tombstone: the device drops it.
      expect(r.body.conflicts.map((d) => [d.id, d._deleted])).to.deep.equal(rows.map((d) => [d.id, true]));
      expect(r.body.rejected.map((x) => [x.id, x.code])).to.deep.equal(rows.map((d) => [d.id, 'list_not_found']));
      expect(await snapshot(app, owner.family.familyId), "the owner's data").to.equal(before);
      const detail = await request(app, 'GET', `/api/lists/${owner.listId}`, { token: owner.admin.token });
      expect(detail.text).to.not.include('Intruder');
      const pulled = await pullAll(app, other.admin.token, 'items');
      expect([...pulled.docs.keys()].filter((id) => rows.some((d) => d.id === id))).to.deep.equal([]);
      // The pusher's own list is untouched too.
      const own = await request(app, 'GET', `/api/lists/${ownList}`, { token: other.admin.token });
      expect(own.status).to.equal(200);
      expect(own.text).to.not.include('Intruder');
    });

    it("mixed with rows into the pusher's own list: only the foreign rows are refused", async () => {
      const { family: other, listId: ownList } = await familyWithList();
      const before = await snapshot(app, owner.family.familyId);
      const mine = itemDoc(ownList, { name: 'Mine' });
      const foreign = itemDoc(owner.listId, { name: 'Intruder' });
      const r = await push(app, other.admin.token, 'items', [
        { newDocumentState: mine },
        { newDocumentState: foreign },
      ]);
      expect(r.body.rejected.map((x) => [x.id, x.code])).to.deep.equal([[foreign.id, 'list_not_found']]);
      expect(await snapshot(app, owner.family.familyId)).to.equal(before);
      const pulled = await pullAll(app, other.admin.token, 'items');
      expect(pulled.docs.get(mine.id)).to.include({ listId: ownList, name: 'Mine' });
      expect(pulled.docs.has(foreign.id)).to.equal(false);
    });

    it("another family's item ids (new state for them) are refused as not found, and nothing is written", async () => {
      const { family: other, listId: ownList } = await familyWithList();
      const before = await snapshot(app, owner.family.familyId);
      const rows = [owner.itemId, owner.removedItemId].map((id) => itemDoc(ownList, { id, name: 'Taken over' }));
      const r = await push(
        app,
        other.admin.token,
        'items',
        rows.map((d) => ({ newDocumentState: d })),
      );
      expect(r.body.rejected.map((x) => [x.id, x.code])).to.deep.equal(rows.map((d) => [d.id, 'not_found']));
      expect(JSON.stringify(r.body.conflicts)).to.not.include('Fixture');
      expect(await snapshot(app, owner.family.familyId)).to.equal(before);
      const pulled = await pullAll(app, other.admin.token, 'items');
      expect(rows.some((d) => pulled.docs.has(d.id))).to.equal(false);
    });

    it("naming another family's unit or product is refused, and nothing of it is written", async () => {
      const { family: other, listId: ownList } = await familyWithList();
      const before = await snapshot(app, owner.family.familyId);
      const unit = itemDoc(ownList, { name: 'Foreign unit', quantity: 1, familyUnitOfMeasureId: owner.familyUnitId });
      const product = itemDoc(ownList, { name: 'Foreign product', familyProductId: owner.familyProductId });
      const r = await push(app, other.admin.token, 'items', [
        { newDocumentState: unit },
        { newDocumentState: product },
      ]);
      expect(r.body.rejected.map((x) => [x.id, x.code])).to.deep.equal([
        [unit.id, 'unit_not_found'],
        [product.id, 'product_not_found'],
      ]);
      expect(await snapshot(app, owner.family.familyId)).to.equal(before);
      const pulled = await pullAll(app, other.admin.token, 'items');
      expect(pulled.docs.has(unit.id) || pulled.docs.has(product.id)).to.equal(false);
    });
  });

  describe('the list-detail copy', () => {
    for (const cachedFirst of [true, false]) {
      it(`another family at the same version never gets a list it does not own (owner's copy ${
        cachedFirst ? 'cached' : 'not cached'
      } when asked)`, async () => {
        const a = await familyWithList();
        const b = await familyWithList();
        const api = (f: TestFamily, path: string) => request(app, 'GET', path, { token: f.admin.token });
        const secret = `Secret ${uuid()}`;
        const r = await request(app, 'POST', `/api/lists/${a.listId}/items`, {
          token: a.family.admin.token,
          body: { name: secret },
        });
        expect(r.status).to.equal(201);
        await levelVersions(a.family, b.family);
        if (cachedFirst) expect((await api(a.family, `/api/lists/${a.listId}`)).text).to.include(secret);
        const foreign = await api(b.family, `/api/lists/${a.listId}`);
        expect(foreign.status).to.equal(404);
        expect(foreign.text).to.not.include(secret);
        // Asked again once the owner's copy is surely cached, and by a member of the other family.
        expect((await api(a.family, `/api/lists/${a.listId}`)).text).to.include(secret);
        const member = await makeMember(app, b.family);
        await levelVersions(a.family, b.family);
        expect((await api(a.family, `/api/lists/${a.listId}`)).text).to.include(secret);
        for (const token of [b.family.admin.token, member.token]) {
          const again = await request(app, 'GET', `/api/lists/${a.listId}`, { token });
          expect(again.status).to.equal(404);
          expect(again.text).to.not.include(secret);
        }
        // Each family still gets its own list.
        expect((await api(b.family, `/api/lists/${b.listId}`)).status).to.equal(200);
      });
    }
  });

  describe('remembered reads (membership, /api/me)', () => {
    it('each member and family gets its own record, read one right after the other', async () => {
      const a = await makeFamily(app);
      const b = await makeFamily(app);
      const aMember = await makeMember(app, a);
      for (let round = 0; round < 2; round++) {
        for (const [user, family, role] of [
          [a.admin, a, 'admin'],
          [aMember, a, 'member'],
          [b.admin, b, 'admin'],
        ] as const) {
          const me = await request(app, 'GET', '/api/me', { token: user.token });
          expect(me.status).to.equal(200);
          expect(me.body.user.id).to.equal(user.userId);
          expect(me.body.family).to.deep.equal({ id: family.familyId, name: family.name, locale: 'en' });
          expect(me.body.role).to.equal(role);
        }
      }
      // A member cannot do an admin's work, even right after the admin's membership was read.
      expect((await request(app, 'GET', '/api/me', { token: a.admin.token })).status).to.equal(200);
      const invite = await request(app, 'POST', '/api/family/invites', {
        token: aMember.token,
        body: { email: `x-${uuid()}@example.test` },
      });
      expect(invite.status).to.equal(403);
    });
  });
});
