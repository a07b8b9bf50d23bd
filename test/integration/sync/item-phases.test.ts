// A first sync of items in phases (docs/sync.md "A first sync of items in phases"): a pull of
// items from no checkpoint hands out the active items first, then the removed ones and the
// tombstones (history), then whatever was written since the walk began; every row once, each
// in its latest state, removal winning; checkpoints issued before keep working.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { MAX_ID } from '../../../server/sync/queries.js';
import { pullBody, pullDocs } from '../../../server/sync/pull.js';
import type { Checkpoint } from '@family-shopping/client/protocol';
import { familyVersion, itemDoc, pull, pullAll, push, type AnyDoc } from './helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

interface Page {
  documents: AnyDoc[];
  checkpoint: Checkpoint | null;
}

/** Pulls items page by page from no checkpoint until a short page; `between` runs after each. */
async function walk(
  app: App,
  token: string,
  limit: number,
  between: (page: Page, n: number) => Promise<void> = async () => undefined,
): Promise<{ pages: Page[]; docs: AnyDoc[]; latest: Map<string, AnyDoc> }> {
  const pages: Page[] = [];
  let checkpoint: Checkpoint | null = null;
  for (;;) {
    const r = await pull(app, token, 'items', checkpoint, limit);
    expect(r.status, r.text).to.equal(200);
    const page = { documents: r.body.documents, checkpoint: r.body.checkpoint };
    pages.push(page);
    if (page.documents.length < limit) break;
    checkpoint = page.checkpoint;
    await between(page, pages.length);
  }
  const docs = pages.flatMap((p) => p.documents);
  return { pages, docs, latest: new Map(docs.map((d) => [d.id, d])) };
}

/** Every item of the family as it is now (tombstones included), by the walk every checkpoint
 *  issued before the phases takes: from version 0 in (version, id) order. */
async function serverItems(app: App, token: string): Promise<Map<string, AnyDoc>> {
  return (await pullAll(app, token, 'items', { version: 0, id: '' }, 1000)).docs;
}

const isHistory = (d: AnyDoc) => d._deleted || d.removedAt !== null;

/**
 * A family whose active and removed items alternate in version order: 8 active, 6 removed
 * (one removed after later items were added) and 2 tombstones (the items of a deleted list).
 */
async function seed(app: App) {
  const family = await makeFamily(app);
  const token = family.admin.token;
  const rest = async (method: string, path: string, body?: unknown) => {
    const r = await request(app, method, path, { token, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const list = await rest('POST', '/api/lists', { name: 'Weekly' });
  const add = async (names: string[], listId = list.id) => {
    const docs = names.map((name) => itemDoc(listId, { name }));
    const r = await push(
      app,
      token,
      'items',
      docs.map((d) => ({ newDocumentState: d })),
    );
    expect(r.body.rejected).to.deep.equal([]);
    return docs.map((d) => d.id);
  };
  const ids: Record<string, string> = {};
  const named = async (names: string[], listId?: string) =>
    (await add(names, listId)).forEach((id, k) => (ids[names[k]!] = id));
  await named(['a1', 'a2', 'a3', 'a4', 'a5']);
  await named(['r1', 'r2', 'r3', 'r4', 'r5']);
  for (const r of ['r1', 'r2', 'r3', 'r4', 'r5']) await rest('DELETE', `/api/lists/${list.id}/items/${ids[r]}`);
  await named(['a6', 'a7', 'a8', 'a9']);
  const gone = await rest('POST', '/api/lists', { name: 'Gone' });
  await named(['g1', 'g2'], gone.id);
  await rest('DELETE', `/api/lists/${gone.id}`);
  await rest('DELETE', `/api/lists/${list.id}/items/${ids.a2}`);
  return { family, token, list, ids, rest };
}

describe('sync pull: a first sync of items in phases', function () {
  this.timeout(180_000);
  it('gives every active item before any removed one or tombstone, each row once, ending past the counter', async () => {
    const app = await testApp();
    const s = await seed(app);
    const all = await serverItems(app, s.token);
    expect([...all.values()].filter((d) => !isHistory(d))).to.have.length(8);
    expect([...all.values()].filter(isHistory)).to.have.length(8);
    const counter = await familyVersion(app, s.family.familyId);
    for (const limit of [1, 3, 8, 9, 16]) {
      const { pages, docs, latest } = await walk(app, s.token, limit);
      const ids = docs.map((d) => d.id);
      expect(new Set(ids).size, `limit ${limit}: each row once`).to.equal(ids.length);
      expect(latest, `limit ${limit}: every row`).to.deep.equal(all);
      const firstHistory = docs.findIndex(isHistory);
      expect(
        docs.slice(0, firstHistory).every((d) => !isHistory(d)),
        `limit ${limit}`,
      ).to.equal(true);
      expect(docs.slice(firstHistory).every(isHistory), `limit ${limit}: no active item after history`).to.equal(true);
      expect(firstHistory).to.equal(8);
      // Mid-walk checkpoints name their phase and V0; the last page with docs ends at the
      // family's counter (a short page after it, if any, echoes that).
      const end = { version: counter, id: MAX_ID };
      const withDocs = pages.filter((p) => p.documents.length > 0);
      for (const p of withDocs.slice(0, -1))
        expect(p.checkpoint!.id, `limit ${limit}`).to.match(new RegExp(`^[0-9a-f-]{36}/${counter}/[ah]$`));
      expect(withDocs.at(-1)!.checkpoint, `limit ${limit}`).to.deep.equal(end);
      expect(pages.at(-1)!.checkpoint, `limit ${limit}`).to.deep.equal(end);
    }
  });

  it('hands out rows changed between pages of either phase in their final state: none skipped, removal wins', async () => {
    const app = await testApp();
    const s = await seed(app);
    const { rest, list, token } = s;
    const before = await serverItems(app, token);
    const changed = new Set<string>();
    const hardDelete = async (id: string) => {
      const server = (await serverItems(app, token)).get(id)!;
      const r = await push(app, token, 'items', [
        { assumedMasterState: server, newDocumentState: { ...server, _deleted: true } },
      ]);
      expect(r.body.rejected).to.deep.equal([]);
      changed.add(id);
    };
    const seen = new Set<string>();
    const unseen = (pred: (d: AnyDoc) => boolean) =>
      [...before.values()].filter((d) => pred(d) && !seen.has(d.id) && !changed.has(d.id)).map((d) => d.id);
    const path = (id: string) => `/api/lists/${list.id}/items/${id}`;
    const expectRemoved: string[] = [];
    const expectDeleted: string[] = [];
    let edited = '';
    let restored = '';
    let activeDone = false;
    let historyDone = false;
    const { docs, latest, pages } = await walk(app, token, 3, async (page) => {
      for (const d of page.documents) seen.add(d.id);
      const phase = page.checkpoint!.id.split('/')[2];
      if (phase === 'a' && !activeDone) {
        activeDone = true;
        // Removed after it was pulled, and before; edited, deleted and restored before; added.
        const pulled = page.documents[0]!.id;
        const [notYet, toEdit, toDelete] = unseen((d) => !isHistory(d));
        const [toRestore] = unseen((d) => d.removedAt !== null && !d._deleted);
        await rest('DELETE', path(pulled));
        await rest('DELETE', path(notYet!));
        await rest('PATCH', path(toEdit!), { name: 'renamed', checked: true });
        await hardDelete(toDelete!);
        await rest('POST', `${path(toRestore!)}/restore`);
        const added = await rest('POST', `/api/lists/${list.id}/items`, { name: 'n1' });
        for (const id of [pulled, notYet!, toEdit!, toRestore!, added.id]) changed.add(id);
        expectRemoved.push(pulled, notYet!);
        expectDeleted.push(toDelete!);
        edited = toEdit!;
      } else if (phase === 'h' && !historyDone) {
        historyDone = true;
        // In history: a pulled removed item deleted, an unpulled one restored then edited, a
        // pulled active item removed.
        const pulled = page.documents.filter((d) => d.removedAt !== null && !d._deleted).at(-1)!.id;
        const [toRestore] = unseen((d) => d.removedAt !== null && !d._deleted);
        const [active] = [...seen].filter((id) => !changed.has(id) && !isHistory(before.get(id)!));
        await hardDelete(pulled);
        await rest('POST', `${path(toRestore!)}/restore`);
        await rest('PATCH', path(toRestore!), { quantity: 3 });
        await rest('DELETE', path(active!));
        for (const id of [toRestore!, active!]) changed.add(id);
        expectRemoved.push(active!);
        expectDeleted.push(pulled);
        restored = toRestore!;
      }
    });
    expect(activeDone && historyDone).to.equal(true);
    const now = await serverItems(app, token);
    expect(latest).to.deep.equal(now);
    // Removal wins: what was removed or deleted while the walk ran ends so on the device.
    for (const id of expectRemoved) expect(latest.get(id)!.removedAt, id).to.be.a('string');
    for (const id of expectDeleted) expect(latest.get(id)!._deleted, id).to.equal(true);
    expect(latest.get(restored)).to.include({ removedAt: null, quantity: 3 });
    expect(latest.get(edited)).to.include({ name: 'renamed', checked: true });
    // Every row nothing changed came exactly once; a changed one at most twice (its state at the
    // start in its phase, its final state after).
    for (const id of before.keys()) {
      const n = docs.filter((d) => d.id === id).length;
      if (changed.has(id)) expect(n, id).to.be.within(1, 2);
      else expect(n, id).to.equal(1);
    }
    // The walk ends as any does: a plain checkpoint at the family's counter, from which the next
    // pull brings only what is newer.
    expect(pages.at(-1)!.checkpoint).to.deep.equal({
      version: await familyVersion(app, s.family.familyId),
      id: MAX_ID,
    });
    expect((await pull(app, token, 'items', pages.at(-1)!.checkpoint)).body.documents).to.deep.equal([]);
    const late = await rest('POST', `/api/lists/${list.id}/items`, { name: 'late' });
    const next = await pull(app, token, 'items', pages.at(-1)!.checkpoint);
    expect(next.body.documents.map((d) => d.id)).to.deep.equal([late.id]);
  });

  it('keeps serving checkpoints issued before the phases, in commit order', async () => {
    const app = await testApp();
    const s = await seed(app);
    const rows = await app.deps
      .db('shopping_list_items')
      .where({ family_id: s.family.familyId })
      .orderBy(['version', 'id'])
      .select('id');
    // From version 0 (a walk begun before), page by page: (version, id) order, no phases.
    const ids: string[] = [];
    let checkpoint: Checkpoint = { version: 0, id: '' };
    for (;;) {
      const r = await pull(app, s.token, 'items', checkpoint, 5);
      expect(r.status).to.equal(200);
      ids.push(...r.body.documents.map((d) => d.id));
      if (r.body.documents.length < 5) break;
      checkpoint = r.body.checkpoint!;
      expect(checkpoint.id).to.match(/^[0-9a-f-]{36}\/\d+$/);
    }
    expect(ids).to.deep.equal(rows.map((r) => r.id));
  });

  it('refuses a phase checkpoint it did not issue (400) and one ahead of the family (410)', async () => {
    const app = await testApp();
    const s = await seed(app);
    const counter = await familyVersion(app, s.family.familyId);
    const id = s.ids.a1!;
    for (const bad of [
      { version: counter, id: `${id}/${counter - 1}/a` }, // a row past V0
      { version: 1, id: `${id}/${counter}/x` },
      { version: 1, id: `not-a-row/${counter}/h` },
      { version: 1, id: `${id}/-1/a` },
      { version: 1, id: `${id}/${counter}/a/b` },
    ]) {
      const r = await pull(app, s.token, 'items', bad);
      expect(r.status, JSON.stringify(bad)).to.equal(400);
      expect(r.body.code).to.equal('validation_failed');
    }
    const ahead = await pull(app, s.token, 'items', { version: 1, id: `${id}/${counter + 5}/h` });
    expect(ahead.status).to.equal(410);
    expect(ahead.body.code).to.equal('checkpoint_expired');
  });

  it('PGlite: the phase page as a database function gives the plain statement’s bytes', async function () {
    const app = await testApp();
    if (!app.deps.statementFunctions) this.skip();
    const s = await seed(app);
    const page = async (checkpoint: Checkpoint | null, limit: number, statementFunctions: boolean) =>
      pullBody(await pullDocs({ db: app.deps.db, statementFunctions }, s.family.familyId, 'items', checkpoint, limit));
    for (const limit of [1, 2, 3, 8, 100]) {
      let checkpoint: Checkpoint | null = null;
      for (let n = 0; ; n++) {
        const plain = await page(checkpoint, limit, false);
        expect(await page(checkpoint, limit, true), `limit ${limit} after ${JSON.stringify(checkpoint)}`).to.equal(
          plain,
        );
        const body = JSON.parse(plain) as { documents: AnyDoc[]; checkpoint: Checkpoint };
        if (body.documents.length < limit) break;
        checkpoint = body.checkpoint;
        // A write in the middle of the walk: the third phase follows in the same statement.
        if (n === 1)
          await request(app, 'POST', `/api/lists/${s.list.id}/items`, { token: s.token, body: { name: 'n' } });
      }
    }
  });
});
