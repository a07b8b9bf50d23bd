// Placement of pushed item inserts (api-contract §10): an insert without a sectionId is placed as
// REST places a new item (remembered section → first section of the product's effective category
// in walking order → none); an insert that carries a sectionId keeps it (and it is remembered).
// Both push paths: the bulk one and row by row.
import { expect } from 'chai';
import { startTestApp, testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { catalogWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import { itemDoc, pullAll, push, type AnyDoc } from './helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

async function globalProduct(app: App, name: string, category: string | null): Promise<string> {
  const id = newId();
  await catalogWrite(app.deps, (trx, version) =>
    trx('products').insert({ id, key: `test-${id}`, name, category, catalog_version: version }),
  );
  return id;
}

async function setup(app: App) {
  const family = await makeFamily(app);
  const t = family.admin.token;
  const api = (method: string, path: string, body?: unknown) => request(app, method, `/api${path}`, { token: t, body });
  const store = (await api('POST', '/stores', { name: 'Main' })).body;
  const list = (await api('POST', '/lists', { name: 'Weekly', storeId: store.id })).body;
  const bare = (await api('POST', '/lists', { name: 'No store' })).body;
  const section = (name: string) => store.sections.find((s: any) => s.name === name).id as string;
  const items = async () => (await pullAll(app, t, 'items')).docs;
  const memory = async () =>
    [...(await pullAll(app, t, 'sectionMemory')).docs.values()]
      .filter((d) => !d._deleted)
      .map((d) => [d.productId ?? d.familyProductId, d.sectionId])
      .sort();
  return { family, t, api, store, list, bare, section, items, memory };
}

describe('sync push: placement of inserted items (§10)', () => {
  // An app of its own per path, on the shared database (counting the pushes applied in bulk).
  const apps = new Map<boolean, App>();
  let bulkPushes = 0;
  before(async function () {
    this.timeout(120_000); // the shared app's start, on a busy machine
    const shared = await testApp();
    for (const bulk of [true, false]) {
      apps.set(bulk, await startTestApp({ db: shared.deps.db, push: { bulk, onBulk: () => bulkPushes++ } }));
    }
  });
  after(async () => {
    for (const app of apps.values()) await app.close();
  });

  for (const bulk of [true, false]) {
    it(`${bulk ? 'bulk path' : 'row by row'}: memory, category in walking order, none; explicit kept and remembered`, async () => {
      const app = apps.get(bulk)!;
      const { t, api, store, list, bare, section, items, memory } = await setup(app);
      const milk = await globalProduct(app, 'Milk', 'dairy');
      const cheese = await globalProduct(app, 'Cheese', 'dairy');
      const butter = await globalProduct(app, 'Butter', 'dairy');
      const plain = await globalProduct(app, 'Plain', null);
      const peas = await globalProduct(app, 'Peas', 'produce');
      const jam = (await api('POST', '/products', { name: 'Jam', category: 'pantry' })).body;
      expect((await api('PUT', `/products/${peas}/override`, { category: 'frozen' })).body.category).to.equal('frozen');
      // Cheese remembered in the Deli (an explicit placement over REST).
      await api('POST', `/lists/${list.id}/items`, { productId: cheese, sectionId: section('Deli') });
      // A second dairy section, walked first.
      const cooler = (await api('POST', `/stores/${store.id}/sections`, { name: 'Cooler', category: 'dairy' })).body;
      const order = [cooler.id, ...store.sections.map((s: any) => s.id)];
      expect((await api('PUT', `/stores/${store.id}/sections/order`, { sectionIds: order })).status).to.equal(200);

      // One push, nothing to remember: the bulk path takes it when on.
      const docs: Record<string, AnyDoc> = {
        milk: itemDoc(list.id, { name: 'Milk', productId: milk }),
        cheese: itemDoc(list.id, { name: 'Cheese', productId: cheese }),
        plain: itemDoc(list.id, { name: 'Plain', productId: plain }),
        named: itemDoc(list.id, { name: 'Produce' }),
        jam: itemDoc(list.id, { name: 'Jam', productId: null, familyProductId: jam.id }),
        peas: itemDoc(list.id, { name: 'Peas', productId: peas }),
        bare: itemDoc(bare.id, { name: 'Milk', productId: milk }),
        // Placed by the device as the server places it (the SDK offline): kept, not remembered.
        device: itemDoc(list.id, { name: 'Butter', productId: butter, sectionId: cooler.id }),
      };
      const before = bulkPushes;
      const res = await push(
        app,
        t,
        'items',
        Object.values(docs).map((d) => ({ newDocumentState: d })),
      );
      expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
      expect(bulkPushes - before).to.equal(bulk ? 1 : 0);
      let pulled = await items();
      const placed = (key: string) => pulled.get(docs[key]!.id)!.sectionId;
      expect(Object.fromEntries(Object.keys(docs).map((k) => [k, placed(k)]))).to.deep.equal({
        milk: cooler.id,
        cheese: section('Deli'),
        plain: null,
        named: null,
        jam: section('Pantry'),
        peas: section('Frozen'),
        bare: null,
        device: cooler.id,
      });
      // Placement by category remembered nothing.
      expect(await memory()).to.deep.equal([[cheese, section('Deli')]]);

      // An insert that carries its section keeps it and is remembered (row by row); another in
      // the same push is still placed by category.
      const kept = itemDoc(list.id, { name: 'Milk', productId: milk, sectionId: section('Frozen') });
      const next = itemDoc(list.id, { name: 'Jam', familyProductId: jam.id });
      const again = await push(app, t, 'items', [{ newDocumentState: kept }, { newDocumentState: next }]);
      expect(again.body).to.deep.equal({ conflicts: [], rejected: [] });
      pulled = await items();
      expect(pulled.get(kept.id)!.sectionId).to.equal(section('Frozen'));
      expect(pulled.get(next.id)!.sectionId).to.equal(section('Pantry'));
      expect(await memory()).to.deep.equal(
        [
          [cheese, section('Deli')],
          [milk, section('Frozen')],
        ].sort(),
      );
      // Items already placed are never re-placed: the earlier milk stays in the Cooler.
      expect(pulled.get(docs.milk!.id)!.sectionId).to.equal(cooler.id);
    });
  }
});
