// The SDK's catalog writes (client.products / client.units): made on a device cut off from the
// server, they validate with the protocol's rules before writing, refuse to delete a unit in
// use with REST's code and message, and converge on the server once the network is back (the
// server's REST views then equal the local ones).
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { makeFamily } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';
import { flagsToBits } from '../../../server/catalog/flags.js';
import { CATALOG_REFUSALS, FamilyApiError, FamilyClientError, type FamilyClient } from '@family-shopping/client';
import { localDoc, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';
import { startProxy, type CuttableProxy } from './proxy.js';

async function rejection<E extends Error = FamilyClientError>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected a rejection');
}

const unique = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

describe('e2e SDK: catalog writes offline', function () {
  this.timeout(120_000);
  const sdk = sdkSuite();
  let proxy: CuttableProxy;

  /** A started, synced client behind a proxy, then cut off from the server. */
  async function offlineClient(user: Parameters<typeof signedInClient>[1]): Promise<FamilyClient> {
    proxy = sdk.track(await startProxy(sdk.app));
    const client = sdk.track(await signedInClient({ url: proxy.url }, user));
    await client.start();
    await client.awaitInSync();
    await proxy.cut();
    await waitFor(() => client.state === 'offline', 'the client offline');
    return client;
  }

  async function backOnline(c: FamilyClient): Promise<void> {
    await proxy.restore();
    await waitFor(() => c.online, 'the client online again', 30_000);
    await c.awaitInSync();
  }

  /** Global products of the shared catalog (reference data no endpoint writes), as REST shows them. */
  const globalProducts = async (rest: ReturnType<typeof restAs>, n: number) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const name = unique('Global fruit ');
      const id = await insertGlobalProductRow(sdk.app, { name, unit_category_flags: flagsToBits(['Count', 'Weight']) });
      const [product] = (await rest('GET', `/api/products?q=${encodeURIComponent(name)}`)) as any[];
      expect(product).to.include({ id, kind: 'global', name, overridden: false });
      out.push(product);
    }
    return out;
  };

  it('creates, changes, overrides and deletes offline; the server converges to the same catalog', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const [apples, lemons] = await globalProducts(rest, 2);
    const c = await offlineClient(family.admin);
    const productCount = await c.db.products.count().exec();
    const unitCount = await c.db.units.count().exec();

    // Refused before anything is written, with the protocol's field rules.
    const blank = await rejection(c.products.create({ name: '   ' }));
    expect(blank).to.be.instanceOf(FamilyClientError);
    expect(blank.code).to.equal('validation_failed');
    expect(blank.errors).to.deep.include({ path: 'name', message: 'must be 1 to 200 characters long' });
    const repeated = await rejection(
      c.products.create({ name: 'Oat milk', unitCategoryFlags: ['Count', 'Count'] as never }),
    );
    expect(repeated.errors).to.deep.include({ path: 'unitCategoryFlags', message: 'must not repeat a category' });
    const noAbbreviation = await rejection(c.units.create({ name: 'Handful', abbreviation: ' ', category: 'Count' }));
    expect(noAbbreviation.errors).to.deep.include({ path: 'abbreviation', message: 'must be 1 to 20 characters long' });
    const badCategory = await rejection(
      c.units.create({ name: 'Handful', abbreviation: 'hf', category: 'Size' as never }),
    );
    expect(badCategory.code).to.equal('validation_failed');
    expect((await rejection(c.products.update(apples.id, { name: 'x'.repeat(201) }))).code).to.equal(
      'validation_failed',
    );
    expect(await c.db.products.count().exec()).to.equal(productCount);
    expect(await c.db.units.count().exec()).to.equal(unitCount);
    expect((await localDoc(c, 'products', apples.id)).overridden).to.equal(false);

    // Family products: create, rename (names unique in the family, any letter case), delete.
    const oat = await c.products.create({ name: '  Oat milk ', unitCategoryFlags: ['Volume', 'Count'] });
    expect(oat).to.include({ kind: 'family', name: 'Oat milk', overridden: false });
    expect(oat.unitCategoryFlags).to.deep.equal(['Count', 'Volume']);
    const dup = await rejection(c.products.create({ name: 'OAT MILK' }));
    expect(dup.errors).to.deep.equal([{ path: 'name', message: CATALOG_REFUSALS.duplicateProductName.message }]);
    const renamed = await c.products.update(oat.id, { name: 'Oat drink', unitCategoryFlags: ['Volume'] });
    expect(renamed).to.include({ name: 'Oat drink' });
    const temp = await c.products.create({ name: 'Temporary thing' });
    const list = await c.lists.create({ name: 'Weekly' });
    const linked = await c.items.add(list.id, { familyProductId: temp.id });
    expect(linked.name).to.equal('Temporary thing');
    await c.products.delete(temp.id);
    expect(await localDoc(c, 'products', temp.id)).to.equal(undefined);
    expect(await localDoc(c, 'items', linked.id)).to.include({ name: 'Temporary thing', familyProductId: null });
    expect((await rejection(c.products.delete(apples.id))).code).to.equal('not_found');

    // Overrides of global products: change, then one changed and put back (offline).
    const ours = await c.products.update(apples.id, { name: 'Our apples', unitCategoryFlags: ['Count'] });
    expect(ours).to.include({ kind: 'global', name: 'Our apples', overridden: true });
    await c.products.update(lemons.id, { name: 'Yellow lemons' });
    const back = await c.products.clearOverride(lemons.id);
    expect(back).to.include({ name: lemons.name, overridden: false });
    expect(back.unitCategoryFlags).to.deep.equal(lemons.unitCategoryFlags);
    const [found] = await firstValueFrom(c.products.search$('our app'));
    expect(found).to.include({ id: apples.id, name: 'Our apples' });

    // Family units: create, change, delete; the abbreviation must be free (global ones too).
    const abbreviation = unique('hf');
    const handful = await c.units.create({ name: 'Handful', abbreviation, category: 'Count' });
    expect(handful).to.include({ kind: 'family', code: null, name: 'Handful', abbreviation });
    const taken = await rejection(c.units.create({ name: 'Kilo', abbreviation: 'KG', category: 'Weight' }));
    expect(taken.errors).to.deep.equal([{ path: 'abbreviation', message: CATALOG_REFUSALS.abbreviationTaken.message }]);
    await c.units.update(handful.id, { name: 'Big handful' });
    const pinch = await c.units.create({ name: 'Pinch', abbreviation: unique('pn'), category: 'Weight' });
    await c.units.delete(pinch.id);
    expect(await localDoc(c, 'units', pinch.id)).to.equal(undefined);

    // A unit in use by a list item (removed ones too) is refused locally with REST's reason.
    const cherries = await c.items.add(list.id, { name: 'Cherries', quantity: 2, familyUnitOfMeasureId: handful.id });
    await c.items.remove(list.id, cherries.id);
    const inUse = await rejection(c.units.delete(handful.id));
    expect(inUse).to.be.instanceOf(FamilyClientError);
    expect(inUse.code).to.equal(CATALOG_REFUSALS.unitInUse.code);
    expect(inUse.message).to.equal(CATALOG_REFUSALS.unitInUse.message);
    expect(await localDoc(c, 'units', handful.id)).to.include({ name: 'Big handful' });

    // Nothing reached the server while cut off.
    expect(((await rest('GET', '/api/units')) as any[]).some((u) => u.id === handful.id)).to.equal(false);
    expect(c.online).to.equal(false);

    await backOnline(c);
    const products = (await rest('GET', '/api/products?limit=200')) as any[];
    const byId = new Map(products.map((p) => [p.id, p]));
    expect(byId.get(oat.id)).to.include({ kind: 'family', name: 'Oat drink' });
    expect(byId.get(oat.id).unitCategoryFlags).to.deep.equal(['Volume']);
    expect(byId.has(temp.id)).to.equal(false);
    expect(byId.get(apples.id)).to.include({ name: 'Our apples', overridden: true });
    expect(byId.get(apples.id).unitCategoryFlags).to.deep.equal(['Count']);
    expect(byId.get(lemons.id)).to.deep.equal(lemons);
    const units = (await rest('GET', '/api/units')) as any[];
    expect(units.find((u) => u.id === handful.id)).to.include({ name: 'Big handful', abbreviation });
    expect(units.some((u) => u.id === pinch.id)).to.equal(false);
    // The item of the deleted product is on the server with its name and without the link.
    const detail = await rest('GET', `/api/lists/${list.id}`);
    const active = detail.groups.flatMap((g: any) => g.items);
    expect(active.map((i: any) => [i.id, i.name, i.familyProductId])).to.deep.equal([
      [linked.id, 'Temporary thing', null],
    ]);

    // The local catalog equals the server's, server-stamped fields included.
    expect(await firstValueFrom(c.products.search$('', { limit: 200 }))).to.deep.equal(products);
    expect(await firstValueFrom(c.units.all$())).to.deep.equal(units);
    // And the server refuses the in-use deletion the device refused.
    const refused = await rejection<Error & { status: number }>(rest('DELETE', `/api/units/${handful.id}`));
    expect(String(refused)).to.contain('unit_in_use');
  });

  it('drops an override made elsewhere: online-only then, and the local catalog follows', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const [product] = await globalProducts(rest, 1);
    await rest('PUT', `/api/products/${product.id}/override`, { name: 'Plantains' });
    const c = await offlineClient(family.admin);
    expect(await localDoc(c, 'products', product.id)).to.include({ name: 'Plantains', overridden: true });

    // The device never saw the product's own values: this needs the server.
    const offline = await rejection<FamilyApiError>(c.products.clearOverride(product.id));
    expect(offline).to.be.instanceOf(FamilyApiError);
    expect(offline.code).to.equal('network_error');
    expect(await localDoc(c, 'products', product.id)).to.include({ name: 'Plantains', overridden: true });

    await backOnline(c);
    await c.products.clearOverride(product.id);
    await waitFor(
      async () => (await localDoc(c, 'products', product.id))?.overridden === false,
      'the cleared override pulled back',
    );
    const [server] = ((await rest('GET', '/api/products?limit=200')) as any[]).filter((p) => p.id === product.id);
    expect(server).to.deep.equal(product);
    expect(await firstValueFrom(c.products.search$('', { limit: 200 }))).to.deep.equal(
      await rest('GET', '/api/products?limit=200'),
    );

    // Once seen without the override, the device can change and drop it offline.
    await proxy.cut();
    await waitFor(() => c.state === 'offline', 'offline again');
    await c.products.update(product.id, { unitCategoryFlags: [] });
    expect(await c.products.clearOverride(product.id)).to.include({ name: product.name, overridden: false });
    await c.products.update(product.id, { name: 'Cooking product' });
    await backOnline(c);
    const after = ((await rest('GET', '/api/products?limit=200')) as any[]).find((p) => p.id === product.id);
    expect(after).to.include({ name: 'Cooking product', overridden: true });
    expect(after.unitCategoryFlags).to.deep.equal(product.unitCategoryFlags);
  });
});
