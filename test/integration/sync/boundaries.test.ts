// Pull at its boundaries: a checkpoint exactly one version ahead of the server (or a mid-walk
// checkpoint whose walk began "in the future"), the tombstone horizon to the version, and pages
// cut inside one version (many rows of one commit: the (version, id) tiebreak).
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { updateVersioned } from '../../helpers/versioned.js';
import { purgeTombstones } from '../../../server/sync/purge.js';
import { familyRowsAfter, itemDocsJsonAfter, MAX_ID, type Cursor } from '../../../server/sync/queries.js';
import type { Checkpoint } from '@family-shopping/client/protocol';
import { familyVersion, itemDoc, listDoc, pull, push, uuid, type AnyDoc } from './helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

const DAY = 24 * 60 * 60 * 1000;
const midWalk = (version: number, issuedAt: number, rowId = uuid()): Checkpoint => ({
  version,
  id: `${rowId}/${issuedAt}`,
});

async function expectStatus(app: App, token: string, collection: string, cp: Checkpoint, status: number) {
  const r = await pull(app, token, collection, cp);
  expect([r.status, r.body.code], `${collection} from ${JSON.stringify(cp)}`).to.deep.equal(
    status === 410 ? [410, 'checkpoint_expired'] : [status, undefined],
  );
}

/** Every page of a pull from `cp` with `limit`: the ids in the order they came. */
async function pageIds(
  app: App,
  token: string,
  collection: 'sections' | 'items',
  cp: Checkpoint | null,
  limit: number,
) {
  const ids: string[] = [];
  let pages = 0;
  for (;;) {
    const r = await pull(app, token, collection, cp, limit);
    expect(r.status, r.text).to.equal(200);
    pages++;
    ids.push(...r.body.documents.map((d) => d.id));
    cp = r.body.checkpoint;
    if (r.body.documents.length < limit) break;
  }
  return { ids, pages };
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('sync pull boundaries', () => {
  let app: App;
  before(async () => {
    app = await testApp();
  });

  it('answers 410 for a checkpoint exactly one version ahead of the family, 200 at the family’s version', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    await request(app, 'POST', '/api/lists', { token: t, body: { name: 'One' } });
    const v = await familyVersion(app, family.familyId);
    for (const c of ['lists', 'items', 'products', 'units']) {
      await expectStatus(app, t, c, { version: v, id: MAX_ID }, 200);
      await expectStatus(app, t, c, { version: v + 1, id: MAX_ID }, 410);
      await expectStatus(app, t, c, { version: v + 1, id: '' }, 410);
    }
  });

  it('answers 410 for a mid-walk checkpoint whose walk began ahead of the family, even when its cursor is behind', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = (await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Walk' } })).body;
    const v = await familyVersion(app, family.familyId);
    for (const c of ['lists', 'products']) {
      await expectStatus(app, t, c, midWalk(v, v, list.id), 200);
      await expectStatus(app, t, c, midWalk(0, v), 200);
      await expectStatus(app, t, c, midWalk(v, v + 1, list.id), 410);
      await expectStatus(app, t, c, midWalk(0, v + 1), 410);
    }
  });

  it('answers 410 for a catalog cursor one version ahead of the global catalog, 200 at it', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const cp = { version: await familyVersion(app, family.familyId), id: MAX_ID };
    const catalog = Number(((await app.deps.db('catalog_counter').first('version')) as { version: string }).version);
    await expectStatus(app, t, 'products', { ...cp, catalogVersion: catalog, catalogId: MAX_ID }, 200);
    await expectStatus(app, t, 'products', { ...cp, catalogVersion: catalog + 1, catalogId: MAX_ID }, 410);
    await expectStatus(app, t, 'units', { ...cp, catalogVersion: catalog + 1, catalogId: MAX_ID }, 410);
  });

  it('after a purge: a walk issued at horizon − 1 answers 410, one issued at the horizon 200 (plain and mid-walk checkpoints)', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = (await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Old' } })).body;
    const item = (await request(app, 'POST', `/api/lists/${list.id}/items`, { token: t, body: { name: 'gone' } })).body;
    // A hard delete (tombstone) aged beyond the retention, which the purge then removes.
    await updateVersioned(
      app,
      family.familyId,
      'shopping_list_items',
      { id: item.id },
      { deleted: true, updated_at: new Date(Date.now() - 31 * DAY) },
    );
    await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Later' } });
    const result = await purgeTombstones(app.deps, { familyIds: [family.familyId] });
    expect(result.rows).to.equal(1);
    const horizon = Number(
      (await app.deps.db('family_counters').where({ family_id: family.familyId }).first('tombstone_horizon'))
        .tombstone_horizon,
    );
    expect(horizon).to.be.greaterThan(1);
    expect(horizon).to.be.lessThan(await familyVersion(app, family.familyId));
    for (const c of ['items', 'lists', 'products']) {
      await expectStatus(app, t, c, { version: horizon - 1, id: MAX_ID }, 410);
      await expectStatus(app, t, c, { version: horizon, id: MAX_ID }, 200);
      await expectStatus(app, t, c, midWalk(1, horizon - 1), 410);
      await expectStatus(app, t, c, midWalk(1, horizon), 200);
    }
  });

  it('pages the 11 default sections of one new store (one version) with limit=3: all 11 ids, in id order', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const before = await familyVersion(app, family.familyId);
    const store = (await request(app, 'POST', '/api/stores', { token: t, body: { name: 'Corner' } })).body;
    expect(await familyVersion(app, family.familyId)).to.equal(before + 1);
    const sectionIds = (store.sections as AnyDoc[]).map((s) => s.id);
    expect(sectionIds).to.have.length(11);
    const versions = await app.deps.db('store_sections').whereIn('id', sectionIds).distinct('version').pluck('version');
    expect(versions.map(Number)).to.deep.equal([before + 1]);
    // From the checkpoint before the store, and from scratch: the same rows, in (version, id) order.
    const fromBefore = await pageIds(app, t, 'sections', { version: before, id: MAX_ID }, 3);
    expect(fromBefore.ids).to.deep.equal([...sectionIds].sort(byId));
    expect(fromBefore.pages).to.equal(4);
    expect((await pageIds(app, t, 'sections', null, 3)).ids).to.deep.equal([...sectionIds].sort(byId));
  });

  it('pages 120 items pushed in one commit with limit=7: all 120 ids, in id order', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    expect((await push(app, t, 'lists', [{ newDocumentState: list }])).body).to.deep.equal({
      conflicts: [],
      rejected: [],
    });
    const before = await familyVersion(app, family.familyId);
    // Random ids, pushed (and so inserted) in an order that is not their id order.
    const docs = Array.from({ length: 120 }, (_, i) => itemDoc(list.id, { name: `Item ${i}` }));
    expect(
      (
        await push(
          app,
          t,
          'items',
          docs.map((d) => ({ newDocumentState: d })),
        )
      ).body,
    ).to.deep.equal({ conflicts: [], rejected: [] });
    expect(await familyVersion(app, family.familyId)).to.equal(before + 1);
    const sorted = docs.map((d) => d.id).sort(byId);
    expect(docs.map((d) => d.id)).to.not.deep.equal(sorted);
    const paged = await pageIds(app, t, 'items', { version: before, id: MAX_ID }, 7);
    expect(paged.ids).to.deep.equal(sorted);
    expect(paged.pages).to.equal(18);
  });

  it('the page query keeps (version, id) order whatever plan the database picks (no index scan)', async () => {
    // With an index scan on (family_id, version, id) the rows come in id order even when the
    // query orders by version alone; a sequential scan and a sort do not. Pin the query itself.
    const family = await makeFamily(app);
    const t = family.admin.token;
    const list = listDoc();
    await push(app, t, 'lists', [{ newDocumentState: list }]);
    const before = await familyVersion(app, family.familyId);
    const docs = Array.from({ length: 120 }, (_, i) => itemDoc(list.id, { name: `Item ${i}` }));
    expect(
      (
        await push(
          app,
          t,
          'items',
          docs.map((d) => ({ newDocumentState: d })),
        )
      ).body.rejected,
    ).to.deep.equal([]);
    const { ids, pageIds } = await app.deps.db.transaction(async (trx) => {
      for (const s of ['enable_indexscan', 'enable_indexonlyscan', 'enable_bitmapscan'])
        await trx.raw(`SET LOCAL ${s} = off`);
      // A prepared statement (PostgreSQL) may hold a plan made before these settings.
      await trx.raw('SET LOCAL plan_cache_mode = force_custom_plan');
      const out: string[] = [];
      let cursor: Cursor | null = { version: before, id: MAX_ID };
      for (;;) {
        const rows = await familyRowsAfter(trx, 'shopping_list_items', family.familyId, cursor, 7);
        out.push(...rows.map((r) => String(r.id)));
        if (rows.length < 7) break;
        const last = rows[rows.length - 1]!;
        cursor = { version: Number(last.version), id: String(last.id) };
      }
      // The items pull builds its pages with a statement of its own (the database writes the
      // docs' JSON); the same order is pinned for it. (On PGlite the pull runs that statement as
      // a function, byte for byte the same: test/integration/sync/pull.test.ts.)
      const paged: string[] = [];
      cursor = { version: before, id: MAX_ID };
      for (;;) {
        const page = await itemDocsJsonAfter(trx, family.familyId, cursor, 7);
        const pageDocs = JSON.parse(page.json) as Array<{ id: string }>;
        paged.push(...pageDocs.map((d) => d.id));
        if (page.rows <= 7 || !page.last) break;
        cursor = { version: Number(page.last.version), id: page.last.id };
      }
      return { ids: out, pageIds: paged };
    });
    const sorted = docs.map((d) => d.id).sort(byId);
    expect(ids, 'familyRowsAfter').to.deep.equal(sorted);
    expect(pageIds, 'the items page').to.deep.equal(sorted);
  });
});
