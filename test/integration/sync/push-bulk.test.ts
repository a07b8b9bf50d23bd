// The bulk path of a push (server/sync/bulk.ts) against the per-row path: the same push applied
// both ways, in two families set up alike, leaves the same docs and emits the same live events
// (ids of one family mapped onto the other's, the write's own times and versions aside).
import { expect } from 'chai';
import { startTestApp, testApp, request } from '../../helpers/app.js';
import { makeFamily, type TestFamily } from '../../helpers/factories.js';
import type { FamilyEvent } from '../../../server/events/bus.js';
import { itemDoc, listDoc, pullAll, push, uuid, type AnyDoc } from './helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

async function eventsDuring(app: App, familyId: string, fn: () => Promise<unknown>): Promise<FamilyEvent[]> {
  const seen: FamilyEvent[] = [];
  const off = app.deps.bus.subscribe((fid, events) => {
    if (fid === familyId) seen.push(...events);
  });
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    off();
  }
  return seen;
}

interface Setup {
  family: TestFamily;
  plainList: string;
  storeList: string;
  store: string;
  sections: string[];
  familyUnit: string;
  globalUnit: string;
  remembered: string;
  product: string;
}

/** A family with a list without a store, a list on a store (default sections), a family unit,
 *  two family products, one of them remembered in the store's second section. */
async function setUp(app: App): Promise<Setup> {
  const family = await makeFamily(app);
  const token = family.admin.token;
  const post = async (path: string, body: unknown) => {
    const r = await request(app, 'POST', path, { token, body });
    expect(r.status, JSON.stringify(r.body)).to.be.oneOf([200, 201]);
    return r.body;
  };
  const store = await post('/api/stores', { name: 'Market' });
  const plainList = listDoc({ name: 'Plain' });
  const storeList = listDoc({ name: 'At the market', storeId: store.id });
  expect(
    (await push(app, token, 'lists', [{ newDocumentState: plainList }, { newDocumentState: storeList }])).body,
  ).to.deep.equal({ conflicts: [], rejected: [] });
  const familyUnit = await post('/api/units', {
    name: `Bunch ${uuid()}`,
    abbreviation: `b${uuid().slice(0, 4)}`,
    category: 'Count',
  });
  const globalUnit = (await request(app, 'GET', '/api/units', { token })).body.find((u: any) => u.kind === 'global');
  const remembered = await post('/api/products', { name: `Basil ${uuid()}` });
  const product = await post('/api/products', { name: `Oats ${uuid()}` });
  // Placing the product in a section remembers it there for the store.
  await post(`/api/lists/${storeList.id}/items`, {
    name: 'Basil',
    familyProductId: remembered.id,
    sectionId: store.sections[1].id,
  });
  return {
    family,
    plainList: plainList.id,
    storeList: storeList.id,
    store: store.id,
    sections: store.sections.map((s: any) => s.id),
    familyUnit: familyUnit.id,
    globalUnit: globalUnit.id,
    remembered: remembered.id,
    product: product.id,
  };
}

/** The same push for both families: inserts of every kind the bulk path takes. */
function insertRows(s: Setup, ids: string[]): AnyDoc[] {
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 12, i)).toISOString();
  return [
    itemDoc(s.plainList, { id: ids[0], name: 'Bread', createdAt: at(0) }),
    itemDoc(s.plainList, {
      id: ids[1],
      name: 'Milk',
      quantity: 2.5,
      unitOfMeasureId: s.globalUnit,
      isApproximate: true,
      quantityNote: 'cold',
      createdAt: at(1),
    }),
    itemDoc(s.storeList, { id: ids[2], name: 'Basil', familyProductId: s.remembered, createdAt: at(2) }),
    itemDoc(s.storeList, {
      id: ids[3],
      name: 'Soap',
      sectionId: s.sections[0],
      familyUnitOfMeasureId: s.familyUnit,
      quantity: 3,
      createdAt: at(3),
    }),
    itemDoc(s.storeList, { id: ids[4], name: 'Oats', familyProductId: s.product, checked: true, createdAt: at(4) }),
    itemDoc(s.plainList, { id: ids[5], name: 'Gone', removedAt: at(5), createdAt: at(5) }),
    itemDoc(s.storeList, { id: ids[6], name: 'Done and gone', checked: true, removedAt: at(6), createdAt: at(6) }),
    itemDoc(s.plainList, { id: ids[7], name: 'Now' }),
  ];
}

/** Ids of one setup mapped onto the other's; the write's own times and versions blanked. */
function normalizer(from: Setup, to: Setup, fromIds: string[], toIds: string[]) {
  const map = new Map<string, string>([
    [from.family.familyId, to.family.familyId],
    [from.family.admin.userId, to.family.admin.userId],
    [from.plainList, to.plainList],
    [from.storeList, to.storeList],
    [from.store, to.store],
    [from.familyUnit, to.familyUnit],
    [from.remembered, to.remembered],
    [from.product, to.product],
    ...from.sections.map((id, i) => [id, to.sections[i]!] as [string, string]),
    ...fromIds.map((id, i) => [id, toIds[i]!] as [string, string]),
  ]);
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') {
      if (key === 'updatedAt' || key === 'checkedAt' || (key === 'createdAt' && v > '2026-06')) return 'write time';
      return map.get(v) ?? v;
    }
    if (typeof v === 'number' && (key === 'version' || key === 'previous')) return 'version';
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk;
}

describe('sync push: the bulk path', () => {
  // An app of its own per path, on the shared database: the bulk path off, then on (counting
  // the pushes it applied in bulk).
  const apps = new Map<boolean, App>();
  let bulkPushes = 0;
  before(async () => {
    const shared = await testApp();
    for (const bulk of [false, true]) {
      apps.set(bulk, await startTestApp({ db: shared.deps.db, push: { bulk, onBulk: () => bulkPushes++ } }));
    }
  });
  after(async () => {
    for (const app of apps.values()) await app.close();
  });

  type Rows = Array<{ assumedMasterState?: AnyDoc; newDocumentState: AnyDoc }>;

  /** In two families set up alike: `first` pushed (when given), then `rows`; the per-row path in
   *  the first family, the bulk path in the second. */
  async function pushBothWays(
    rows: (s: Setup, ids: string[], server: Map<string, AnyDoc>) => Rows,
    first?: (s: Setup, ids: string[]) => AnyDoc[],
  ) {
    const runs: Array<{ s: Setup; ids: string[]; events: FamilyEvent[]; body: unknown; docs: AnyDoc[] }> = [];
    for (const enabled of [false, true]) {
      const app = apps.get(enabled)!;
      const before = bulkPushes;
      const s = await setUp(app);
      const token = s.family.admin.token;
      // Sorted, so the (version, id) order of the docs in `Changed` is the same in both families.
      const ids: string[] = Array.from({ length: 8 }, () => uuid()).sort();
      if (first) {
        const res = await push(
          app,
          token,
          'items',
          first(s, ids).map((d) => ({ newDocumentState: d })),
        );
        expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
      }
      const server = (await pullAll(app, token, 'items')).docs;
      let body: unknown;
      const events = await eventsDuring(app, s.family.familyId, async () => {
        const res = await push(app, token, 'items', rows(s, ids, server));
        expect(res.status).to.equal(200);
        body = res.body;
      });
      const docs = [...(await pullAll(app, token, 'items')).docs.values()].filter((d) => ids.includes(d.id));
      // The bulk run took the bulk path (not its fallback), the other did not.
      expect(bulkPushes - before).to.equal(enabled ? (first ? 2 : 1) : 0);
      runs.push({ s, ids, events, body, docs });
    }
    const [perRow, bulk] = runs as [(typeof runs)[0], (typeof runs)[0]];
    const norm = normalizer(bulk.s, perRow.s, bulk.ids, perRow.ids);
    const byId = (docs: AnyDoc[], ids: string[]) => ids.map((id) => docs.find((d) => d.id === id));
    expect(bulk.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect(norm(bulk.body)).to.deep.equal(perRow.body);
    expect(norm(byId(bulk.docs, bulk.ids))).to.deep.equal(norm(byId(perRow.docs, perRow.ids)));
    expect(norm(bulk.events)).to.deep.equal(norm(perRow.events));
    return { bulk, docs: byId(bulk.docs, bulk.ids) };
  }

  it('inserts: the same docs, the same answer and the same live events, in the same order', async () => {
    const { bulk, docs } = await pushBothWays((s, ids) => insertRows(s, ids).map((d) => ({ newDocumentState: d })));
    expect(bulk.events.map((e) => e.type)).to.include.members([
      'ItemAdded',
      'ItemSectionChanged',
      'ItemChecked',
      'ItemRemoved',
      'ListProgress',
      'Changed',
    ]);
    // Section memory recalled for the remembered product, the pushed section kept.
    expect(docs[2]!.sectionId).to.equal(bulk.s.sections[1]);
    expect(docs[3]!.sectionId).to.equal(bulk.s.sections[0]);
    expect(docs[6]).to.include({ checked: true, removedByUserId: bulk.s.family.admin.userId });
  });

  it('edits, checks, moves, removals, restores and deletes: the same docs, answer and live events', async () => {
    const edit = (s: Setup, ids: string[], server: Map<string, AnyDoc>): Rows => {
      const base = (i: number) => server.get(ids[i]!)!;
      const row = (i: number, change: Partial<AnyDoc>) => ({
        assumedMasterState: base(i),
        newDocumentState: { ...base(i), ...change },
      });
      const at = new Date(Date.UTC(2026, 1, 1)).toISOString();
      return [
        row(0, { name: 'Rye bread', quantity: 1, unitOfMeasureId: s.globalUnit }),
        row(1, { unitOfMeasureId: null, familyUnitOfMeasureId: s.familyUnit, checked: true }),
        row(2, { name: 'Thai basil', removedAt: at }),
        row(3, { sectionId: s.sections[2] }),
        row(4, { checked: false, familyProductId: s.remembered }),
        row(5, { removedAt: null, name: 'Back again' }),
        row(6, { _deleted: true }),
        row(7, { _deleted: true }),
      ];
    };
    const { bulk, docs } = await pushBothWays(edit, insertRows);
    expect(bulk.events.map((e) => e.type)).to.include.members([
      'ItemUpdated',
      'ItemSectionChanged',
      'ItemChecked',
      'ItemRemoved',
      'ItemRestored',
      'ListProgress',
      'Changed',
    ]);
    expect(docs[3]!.sectionId).to.equal(bulk.s.sections[2]);
    expect(docs[4]).to.include({ checked: false, sectionId: bulk.s.sections[1] });
    expect(docs[5]).to.include({ removedAt: null, name: 'Back again' });
    expect(docs[6]!._deleted).to.equal(true);
  });
});
