// The daily loop (api-contract §10) through the SDK against the real server: what the domain
// layer does offline reaches the server with the same meaning.
// - An item placed by category offline is pushed with its section, and the server does not take
//   that for an explicit placement: no section memory is written (placement by category never
//   writes memory, "REST, push, copy-to-list, SDK"), so after a recategorisation the next item
//   of that product goes by category again, online and offline alike. An explicit placement made
//   offline is remembered by the server too.
// - Clear checked offline, then restore many: the server ends with the device's state, and
//   `suggestions$` equals `GET /api/lists/{id}/suggestions` after sync.
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { pullUrl } from '@family-shopping/client/protocol';
import { makeFamily } from '../../helpers/factories.js';
import { recordEvents, restAs, sdkSuite, signedInClient } from './helpers.js';

describe('e2e SDK: the daily loop offline', function () {
  this.timeout(120_000);
  const sdk = sdkSuite();

  it('pushes items placed by category without writing section memory; explicit ones are remembered', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const store = await rest('POST', '/api/stores', { name: 'Corner shop' });
    const bySection = (category: string) => store.sections.find((s: any) => s.category === category);
    const dairy = bySection('dairy');
    expect(dairy, 'a default section of category dairy').to.not.equal(undefined);
    const milk = await rest('POST', '/api/products', { name: 'Milk', category: 'dairy' });
    const pears = await rest('POST', '/api/products', { name: 'Pears', category: 'produce' });
    const list = await rest('POST', '/api/lists', { name: 'Weekly', storeId: store.id });
    const memory = async () =>
      ((await rest('GET', pullUrl('sectionMemory', null, 1000))).documents as any[])
        .filter((m) => !m._deleted)
        .map((m) => [m.familyProductId, m.sectionId]);

    const client = sdk.track(await signedInClient(sdk.app, family.admin));
    await client.start();
    await client.awaitInSync();
    await client.stop();
    const placed = await client.items.add(list.id, { familyProductId: milk.id });
    const explicit = await client.items.add(list.id, { familyProductId: pears.id, sectionId: dairy.id });
    expect([placed.sectionId, explicit.sectionId]).to.deep.equal([dairy.id, dairy.id]);
    const events = recordEvents(client);
    await client.start();
    await client.awaitInSync();
    expect(events.filter((e) => e.type === 'rejected')).to.deep.equal([]);

    const detail = await rest('GET', `/api/lists/${list.id}`);
    const items = detail.groups.flatMap((g: any) => g.items);
    expect(items.map((i: any) => [i.id, i.sectionId])).to.have.deep.members([
      [placed.id, dairy.id],
      [explicit.id, dairy.id],
    ]);
    expect(await memory(), 'only the explicit placement is remembered').to.deep.equal([[pears.id, dairy.id]]);

    // The dairy section loses its category, a new one takes it: milk follows the category.
    await rest('PATCH', `/api/stores/${store.id}/sections/${dairy.id}`, { category: null });
    const fridge = await rest('POST', `/api/stores/${store.id}/sections`, { name: 'Fridge', category: 'dairy' });
    await client.sync();
    const online = await rest('POST', `/api/lists/${list.id}/items`, { familyProductId: milk.id });
    expect(online.sectionId).to.equal(fridge.id);
    expect((await client.items.add(list.id, { familyProductId: milk.id })).sectionId).to.equal(fridge.id);
    // Pears: remembered, not by category.
    expect((await client.items.add(list.id, { familyProductId: pears.id })).sectionId).to.equal(dairy.id);
    await client.awaitInSync();
  });

  it('clears checked items and restores them offline; the server and suggestions$ agree after sync', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const last = await rest('POST', '/api/lists', { name: 'Last week' });
    for (const name of ['Milk', 'Bread', 'Milk', 'Eggs']) {
      await rest('POST', `/api/lists/${last.id}/items`, { name, quantity: 2, quantityNote: `${name} note` });
    }
    const list = await rest('POST', '/api/lists', { name: 'This week' });

    const client = sdk.track(await signedInClient(sdk.app, family.admin));
    await client.start();
    await client.awaitInSync();
    expect(await firstValueFrom(client.lists.suggestions$(list.id))).to.deep.equal(
      await rest('GET', `/api/lists/${list.id}/suggestions`),
    );
    await client.stop();
    const a = await client.items.add(list.id, { name: 'Milk' });
    await client.items.add(list.id, { name: 'Tea' });
    const c = await client.items.add(list.id, { name: 'Jam' });
    await client.items.toggle(list.id, a.id);
    await client.items.toggle(list.id, c.id);
    const cleared = await client.lists.clearChecked(list.id);
    expect(cleared.map((i) => i.id)).to.have.members([a.id, c.id]);
    await client.items.restoreMany(list.id, [c.id]);

    await client.start();
    await client.awaitInSync();
    const detail = await rest('GET', `/api/lists/${list.id}`);
    expect(await firstValueFrom(client.lists.detail$(list.id))).to.deep.equal(detail);
    expect(
      detail.groups.flatMap((g: any) => g.items.map((i: any) => i.name)),
      'Milk was cleared, Jam restored',
    ).to.have.members(['Tea', 'Jam']);
    for (const l of [list.id, last.id]) {
      expect(await firstValueFrom(client.lists.suggestions$(l, { limit: 50 }))).to.deep.equal(
        await rest('GET', `/api/lists/${l}/suggestions?limit=50`),
      );
    }
  });
});
