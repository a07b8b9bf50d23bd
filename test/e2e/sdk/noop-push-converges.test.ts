// A change made offline and undone before the device syncs (an item checked then unchecked, a
// list renamed and renamed back) leaves every client-controlled field as the server has it, so
// the server applies nothing. The device stamped its own `updatedAt` (and `checkedAt`) meanwhile;
// after `awaitInSync()` its views must still equal the server's REST views, those server-stamped
// fields included (docs/sync.md "Push", step 3).
import { expect } from 'chai';
import { firstValueFrom, filter } from 'rxjs';
import { makeFamily } from '../../helpers/factories.js';
import { restAs, sdkSuite, signedInClient } from './helpers.js';

describe('e2e SDK: a pushed change the server already has converges', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('an item checked and unchecked offline ends with the server’s stamps', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Weekly' });
    const milk = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Milk' });

    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop(); // offline from here on

    await c.items.toggle(list.id, milk.id);
    await c.items.toggle(list.id, milk.id);
    const offline = await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean)));
    const local = offline.groups.flatMap((g) => g.items).find((i) => i.id === milk.id)!;
    expect(local.checked).to.equal(false);
    expect(Date.parse(local.updatedAt), 'the device stamped its own updatedAt').to.not.equal(
      Date.parse(milk.updatedAt),
    );

    await c.start();
    await c.awaitInSync();
    const server = await rest('GET', `/api/lists/${list.id}`);
    expect(await firstValueFrom(c.lists.detail$(list.id))).to.deep.equal(server);
    expect(await firstValueFrom(c.lists.summaries$())).to.deep.equal(await rest('GET', '/api/lists'));
    const item = server.groups.flatMap((g: { items: any[] }) => g.items).find((i: any) => i.id === milk.id);
    expect({ updatedAt: item.updatedAt, checkedAt: item.checkedAt }).to.deep.equal({
      updatedAt: milk.updatedAt,
      checkedAt: milk.checkedAt,
    });
  });

  it('a list renamed and renamed back offline ends with the server’s stamps', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Weekly' });
    await rest('POST', `/api/lists/${list.id}/items`, { name: 'Bread' });

    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop();

    await c.lists.update(list.id, { name: 'Party' });
    const renamedBack = await c.lists.update(list.id, { name: 'Weekly' });
    expect(Date.parse(renamedBack.updatedAt), 'the device stamped its own updatedAt').to.not.equal(
      Date.parse(list.updatedAt),
    );

    await c.start();
    await c.awaitInSync();
    const server = await rest('GET', `/api/lists/${list.id}`);
    expect(await firstValueFrom(c.lists.detail$(list.id))).to.deep.equal(server);
    expect(await firstValueFrom(c.lists.summaries$())).to.deep.equal(await rest('GET', '/api/lists'));
  });
});
