// The family's locale in the SDK (api-contract §12): a device that synced the catalog in English
// gets every staple's German name once the family switches to German (the switch's `Changed`
// makes it pull; no app restart), searches the catalog for "Milch" offline, and keeps the
// family's own products as they are. Offline, a German family also finds a staple by its English
// name (the doc's `englishName`), exactly as `GET /api/products?q=` answers the same query. A store created offline in a German family gets the same
// German default sections the server gives it.
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { makeFamily, type TestUser } from '../../helpers/factories.js';
import { appWithStaples } from '../../helpers/staples.js';
import { stableId } from '../../../server/db/ids.js';
import type { RunningServer } from '../../../server/server.js';
import { loadProductNames, loadStapleProducts } from '../../../seeds/load.js';
import { defaultSectionNames, type FamilyClient } from '@family-shopping/client';
import { localDoc, restAs, signedInClient, waitFor } from './helpers.js';
import { startProxy, type CuttableProxy } from './proxy.js';

const MILK = stableId('product', 'milk');

describe('e2e SDK: the catalog in the family language', function () {
  this.timeout(180_000);
  let app: RunningServer;
  let close: () => Promise<void>;
  const opened: Array<{ destroy(): Promise<unknown> } | CuttableProxy> = [];

  before(async () => {
    ({ app, close } = await appWithStaples({ TRUST_PROXY: 'true' }));
  });
  afterEach(async () => {
    for (const r of opened.splice(0).reverse()) await ('destroy' in r ? r.destroy() : r.close());
  });
  after(async () => close?.());

  const search = async (c: FamilyClient, q: string) => firstValueFrom(c.products.search$(q, { limit: 200 }));

  /** The admin's client behind a proxy of its own, started and in sync. */
  async function syncedClient(user: TestUser): Promise<{ c: FamilyClient; proxy: CuttableProxy }> {
    const proxy = await startProxy(app);
    opened.push(proxy);
    const c = await signedInClient({ url: proxy.url }, user);
    opened.push(c);
    await c.start();
    await c.awaitInSync();
    return { c, proxy };
  }

  async function cut(c: FamilyClient, proxy: CuttableProxy): Promise<void> {
    await proxy.cut();
    await waitFor(() => c.state === 'offline', 'the client offline');
  }

  it('pulls the German names after the switch and finds "Milch" offline; family products stay', async () => {
    const family = await makeFamily(app);
    const rest = restAs(app, family.admin.token);
    const own = await rest('POST', '/api/products', { name: 'Hafermilch' });
    const { c, proxy } = await syncedClient(family.admin);
    expect(await localDoc(c, 'products', MILK)).to.include({ name: 'Milk' });

    await rest('PATCH', '/api/family', { locale: 'de' });
    // The switch's Changed names products: the running client pulls them again, in German.
    await waitFor(async () => (await localDoc(c, 'products', MILK))?.name === 'Milch', 'the German name pulled');
    await c.awaitInSync();

    await cut(c, proxy);
    const de = loadProductNames().de;
    const local = await search(c, '');
    for (const s of loadStapleProducts()) {
      expect(local.find((p) => p.id === stableId('product', s.key))?.name, s.key).to.equal(de[s.key]);
    }
    const found = await search(c, 'Milch');
    expect(found.map((p) => p.name)).to.include.members(['Milch', 'Hafermilch']);
    expect(found.find((p) => p.id === MILK)).to.include({ kind: 'global', overridden: false, category: 'dairy' });
    expect(found.find((p) => p.id === own.id)).to.include({ kind: 'family', name: 'Hafermilch' });
    // The same as the server's view of the family's catalog.
    await proxy.restore();
    expect((await rest('GET', '/api/products?q=Milch&limit=200')).map((p: { id: string }) => p.id)).to.include.members(
      found.map((p) => p.id),
    );
  });

  it('offline, a German family finds a staple by its English name and by its German one, as REST answers', async () => {
    const family = await makeFamily(app);
    const rest = restAs(app, family.admin.token);
    await rest('PATCH', '/api/family', { locale: 'de' });
    const own = await rest('POST', '/api/products', { name: 'Hafermilch' });
    const { c, proxy } = await syncedClient(family.admin);
    await cut(c, proxy);

    const milch = (await search(c, 'milk')).find((p) => p.id === MILK);
    expect(milch).to.include({ name: 'Milch', englishName: 'Milk', kind: 'global' });
    expect((await search(c, 'Milch')).map((p) => p.id)).to.include.members([MILK, own.id]);
    // The family's own product has no English name: "milk" finds the staple alone.
    expect((await search(c, 'milk')).map((p) => p.id)).to.not.include(own.id);
    // Renamed offline: found by its new name alone, as the server will say.
    const apples = stableId('product', 'apples');
    expect((await search(c, 'apple')).map((p) => p.id)).to.include(apples);
    expect(await c.products.update(apples, { name: 'Boskop' })).to.include({ englishName: null, overridden: true });
    const queries = ['milk', 'MILK', 'Milch', 'chicken', 'hähnchen', 'apple', 'Boskop', 'butter', ''];
    const offline = new Map<string, string[]>();
    for (const q of queries)
      offline.set(
        q,
        (await search(c, q)).map((p) => p.id),
      );
    expect(offline.get('apple')).to.not.include(apples);
    expect(offline.get('Boskop')).to.deep.equal([apples]);

    // Online again and in sync: REST answers every query with the same products in the same
    // order, and the local search with the very same records.
    await proxy.restore();
    await waitFor(() => c.online, 'the client online again', 30_000);
    await c.awaitInSync();
    for (const q of queries) {
      const server = (await rest('GET', `/api/products?q=${encodeURIComponent(q)}&limit=200`)) as Array<{ id: string }>;
      expect(
        server.map((p) => p.id),
        q,
      ).to.deep.equal(offline.get(q));
      expect(await search(c, q), q).to.deep.equal(server);
    }
  });

  it('an override that keeps the name, dropped offline after the family switched language, restores the new name', async () => {
    const family = await makeFamily(app);
    const rest = restAs(app, family.admin.token);
    const { c, proxy } = await syncedClient(family.admin);
    // In English: the device overrides the category (it remembers the product's own values).
    expect(await c.products.update(MILK, { category: 'beverages' })).to.include({ name: 'Milk', overridden: true });
    await c.awaitInSync();
    await rest('PATCH', '/api/family', { locale: 'de' });
    await waitFor(async () => (await localDoc(c, 'products', MILK))?.name === 'Milch', 'the German name pulled');
    expect(await localDoc(c, 'products', MILK)).to.include({ englishName: 'Milk', overridden: true });

    await cut(c, proxy);
    const cleared = await c.products.clearOverride(MILK);
    expect(cleared).to.include({ name: 'Milch', englishName: 'Milk', category: 'dairy', overridden: false });

    await proxy.restore();
    await waitFor(() => c.online, 'the client online again', 30_000);
    await c.awaitInSync();
    const server = ((await rest('GET', '/api/products?q=milch&limit=200')) as Array<{ id: string }>).find(
      (p) => p.id === MILK,
    );
    expect(server).to.include({ name: 'Milch', overridden: false, category: 'dairy' });
    expect(await localDoc(c, 'products', MILK)).to.deep.equal(server);
  });

  it('a store created offline in a German family has the German default sections, as on the server', async () => {
    const family = await makeFamily(app);
    await restAs(app, family.admin.token)('PATCH', '/api/family', { locale: 'de' });
    // Signed in after the switch: the session names the family's locale.
    const { c, proxy } = await syncedClient(family.admin);
    await cut(c, proxy);

    const store = await c.stores.create({ name: 'Edeka' });
    const local = (await c.db.sections.find({ selector: { storeId: store.id } }).exec())
      .map((d) => d.toJSON())
      .sort((a, b) => a.position - b.position);
    expect(local.map((s) => s.name)).to.deep.equal([...defaultSectionNames('de')]);

    await proxy.restore();
    await waitFor(() => c.online, 'the client online again', 30_000);
    await c.awaitInSync();
    const server = await restAs(app, family.admin.token)('GET', `/api/stores/${store.id}/sections`);
    expect(server.map((s: { name: string }) => s.name)).to.deep.equal([...defaultSectionNames('de')]);
    expect(server.map((s: { id: string }) => s.id)).to.deep.equal(local.map((s) => s.id));
  });
});
