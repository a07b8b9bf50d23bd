// The skipped-row regression: many writers (REST and push) in one family commit concurrently
// while a reader pulls `items` in a loop from its last checkpoint. Whatever the interleaving,
// the union of what the reader pulled (latest doc per id) equals the final server state.
// Meaningful on PostgreSQL (real concurrency); on PGlite the writes serialise but it still runs.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { usingPostgres } from '../../helpers/env.js';
import { itemDoc, pull, pullAll, push, type AnyDoc } from './helpers.js';
import type { Checkpoint } from '@family-shopping/client/protocol';
import { familyWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import { sleep } from '../../helpers/wait.js';

describe('sync pull under concurrent writers', () => {
  it('never skips a committed row: the pulled union equals the final state', async function () {
    this.timeout(180_000);
    const app = await testApp();
    const family = await makeFamily(app);
    const members = [family.admin, await makeMember(app, family), await makeMember(app, family)];
    const list = (await request(app, 'POST', '/api/lists', { token: family.admin.token, body: { name: 'Busy' } })).body;
    const writers = usingPostgres ? 12 : 4;
    const opsPerWriter = usingPostgres ? 25 : 10;
    const known: AnyDoc[] = [];

    let done = false;
    const pulled = new Map<string, AnyDoc>();
    let checkpoint: Checkpoint | null = null;
    let pulls = 0;
    const reader = (async () => {
      while (!done) {
        const r = await pull(app, family.admin.token, 'items', checkpoint, 7);
        expect(r.status, r.text).to.equal(200);
        for (const d of r.body.documents) pulled.set(d.id, d);
        checkpoint = r.body.checkpoint;
        pulls++;
        if (r.body.documents.length < 7) await new Promise((res) => setTimeout(res, 2));
      }
    })();

    const writer = async (w: number) => {
      const token = members[w % members.length]!.token;
      for (let i = 0; i < opsPerWriter; i++) {
        const kind = (w + i) % 4;
        const target = known.length ? known[(w * 31 + i * 7) % known.length]! : undefined;
        if (kind === 0 || !target) {
          const r = await request(app, 'POST', `/api/lists/${list.id}/items`, {
            token,
            body: { name: `rest ${w}.${i}` },
          });
          expect(r.status, r.text).to.equal(201);
          known.push({ ...r.body, _deleted: false });
        } else if (kind === 1) {
          const doc = itemDoc(list.id, { name: `push ${w}.${i}`, quantity: i });
          const r = await push(app, token, 'items', [{ newDocumentState: doc }]);
          expect(r.body.rejected, r.text).to.deep.equal([]);
          known.push(doc);
        } else if (kind === 2) {
          const r = await request(app, 'PATCH', `/api/lists/${list.id}/items/${target.id}`, {
            token,
            body: { name: `patched ${w}.${i}`, checked: i % 2 === 0 },
          });
          expect([200, 404], r.text).to.include(r.status);
        } else {
          // Push an edit based on what the writer believes; a conflict is a legitimate outcome.
          const r = await push(app, token, 'items', [
            { assumedMasterState: target, newDocumentState: { ...target, quantity: w + i } },
          ]);
          expect(r.status, r.text).to.equal(200);
          expect(r.body.rejected, r.text).to.deep.equal([]);
        }
      }
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
    done = true;
    await reader;
    // Catch up once after the last commit, from the reader's own checkpoint.
    const tail = await pullAll(app, family.admin.token, 'items', checkpoint, 7);
    for (const [id, d] of tail.docs) pulled.set(id, d);

    const final = await pullAll(app, family.admin.token, 'items', null, 1000);
    expect(final.docs.size).to.equal(known.length);
    expect(pulls).to.be.greaterThan(1);
    const diff = [...final.docs.values()]
      .filter((d) => JSON.stringify(pulled.get(d.id)) !== JSON.stringify(d))
      .map((d) => d.id);
    expect(diff, `rows the reader missed or holds stale: ${diff.length}`).to.deep.equal([]);
    expect(pulled.size).to.equal(final.docs.size);
  });

  it('never skips a row when writers hold their transaction open after taking a version; deletes included, checked against the table itself', async function () {
    // Each writer takes its version, then sleeps before committing: a scheme where a later
    // version could commit before an earlier one (a sequence, a timestamp) would let the reader
    // pass the earlier version while it is still invisible, and miss it for good. The counter
    // row lock makes the next writer wait instead.
    this.timeout(180_000);
    const app = await testApp();
    const family = await makeFamily(app);
    const listId = newId();
    await familyWrite(app.deps, family.familyId, (w) => w.insert('shopping_lists', { id: listId, name: 'Held open' }));
    const writers = usingPostgres ? 10 : 3;
    const opsPerWriter = usingPostgres ? 15 : 8;
    const ids: string[] = [];

    let done = false;
    const pulled = new Map<string, AnyDoc>();
    let checkpoint: Checkpoint | null = null;
    const reader = (async () => {
      while (!done) {
        const r = await pull(app, family.admin.token, 'items', checkpoint, 5);
        expect(r.status, r.text).to.equal(200);
        for (const d of r.body.documents) pulled.set(d.id, d);
        checkpoint = r.body.checkpoint;
        if (r.body.documents.length < 5) await sleep(1);
      }
    })();

    const writer = async (n: number) => {
      for (let i = 0; i < opsPerWriter; i++) {
        const kind = ids.length < 3 ? 0 : (n + i) % 3;
        const target = ids[(n * 17 + i * 5) % Math.max(ids.length, 1)];
        await familyWrite(app.deps, family.familyId, async (w) => {
          if (kind === 0 || !target) {
            const id = newId();
            await w.insert('shopping_list_items', { id, list_id: listId, name: `held ${n}.${i}` });
            ids.push(id);
          } else if (kind === 1) {
            await w.update('shopping_list_items', { id: target, deleted: false }, { name: `renamed ${n}.${i}` });
          } else {
            await w.tombstone('shopping_list_items', { id: target });
          }
          await sleep(Math.random() * 15); // the version is taken and not yet committed
        });
      }
    };
    await Promise.all(Array.from({ length: writers }, (_, n) => writer(n)));
    done = true;
    await reader;
    const tail = await pullAll(app, family.admin.token, 'items', checkpoint, 5);
    for (const [id, d] of tail.docs) pulled.set(id, d);

    // The reference is the table itself, not another pull.
    const rows = (await app.deps
      .db('shopping_list_items')
      .where({ family_id: family.familyId })
      .select('id', 'name', 'deleted')) as {
      id: string;
      name: string;
      deleted: boolean;
    }[];
    expect(rows.length).to.equal(ids.length);
    expect(
      rows.some((r) => r.deleted),
      'some rows were deleted',
    ).to.equal(true);
    const wrong = rows
      .filter((r) => pulled.get(r.id)?.name !== r.name || pulled.get(r.id)?._deleted !== r.deleted)
      .map((r) => r.id);
    expect(wrong, `rows the reader missed or holds stale: ${wrong.length}`).to.deep.equal([]);
    expect(pulled.size).to.equal(rows.length);
  });
});
