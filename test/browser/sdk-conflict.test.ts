// A conflict in a real browser converges per docs/sync.md ("Conflict rules"): a tab edits items
// while the server cannot be reached and another device edits the same items meanwhile; once
// back, the tab's local copies and the server agree on the three-way merge: a field changed on
// one side takes that side's value, on both sides the pushing device's (the tab's), and a
// removal wins against a concurrent edit, which is kept on the removed item.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { makeFamily, makeMember } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { restAs, startSdkApp } from '../e2e/sdk/helpers.js';
import { harnessHtml, switchedPage, waitInPage } from './sdk-harness.js';
import { startSwitch, type NetworkSwitch } from './sdk-switch.js';

describe('browser SDK: a conflict converges', function () {
  this.timeout(180_000);
  let app: RunningServer;
  let browser: Browser;
  let net: NetworkSwitch;

  before(async function () {
    app = await startSdkApp();
    browser = await launchBrowser();
    net = await startSwitch(app, harnessHtml);
  });
  after(async function () {
    await net?.close();
    await browser?.close();
    await app?.close();
  });

  it('edits on both sides merge field by field; a removal wins against an edit', async function () {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const rest = restAs(app, member.token);
    const list = await rest('POST', '/api/lists', { name: 'Conflicts' });
    const milk = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Milk', quantity: 1 });
    const bread = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Bread' });

    const page = await switchedPage(await browser.newContext(), net.url);
    await page.evaluate(
      async ([email, password]) => {
        await h.open();
        await h.c.auth.login(email!, password!);
        await h.c.start();
        await h.c.awaitInSync();
      },
      [family.admin.email, family.admin.password],
    );
    await waitInPage(page, (id) => h.c.db.items.findOne(id).exec().then(Boolean), bread.id, 'the items locally');

    net.cut();
    await page.evaluate(
      async ([milkId, breadId]) => {
        const m = await h.c.db.items.findOne(milkId!).exec();
        await m!.incrementalPatch({ name: 'Oat milk', quantity: 2 });
        const b = await h.c.db.items.findOne(breadId!).exec();
        await b!.incrementalPatch({ name: 'Bread (2)' });
      },
      [milk.id, bread.id],
    );
    // Meanwhile on the other device: Milk checked and its quantity changed, Bread removed.
    await rest('POST', `/api/lists/${list.id}/items/${milk.id}/toggle`);
    await rest('PATCH', `/api/lists/${list.id}/items/${milk.id}`, { quantity: 3 });
    await rest('DELETE', `/api/lists/${list.id}/items/${bread.id}`);

    net.restore();
    await page.evaluate(() => h.c.sync());

    const local = await page.evaluate(
      async (ids) => Promise.all(ids.map(async (id) => (await h.c.db.items.findOne(id).exec())!.toJSON())),
      [milk.id, bread.id],
    );
    const [localMilk, localBread] = local as any[];
    expect({ name: localMilk.name, checked: localMilk.checked, quantity: localMilk.quantity }).to.deep.equal({
      name: 'Oat milk',
      checked: true,
      quantity: 2,
    });
    expect(localBread.removedAt).to.be.a('string');
    expect(localBread.name).to.equal('Bread (2)');

    // The server holds the same: Milk as merged (server-stamped fields equal too), Bread removed
    // with the tab's name (a restore shows it).
    const detail = await rest('GET', `/api/lists/${list.id}`);
    const serverItems = detail.groups.flatMap((g: { items: any[] }) => g.items);
    expect(serverItems.map((i: { id: string }) => i.id)).to.deep.equal([milk.id]);
    const serverMilk = serverItems[0];
    // Every field, the server's stamps of the merge's own push included (sync() resolves only
    // once that push's result has been pulled back).
    for (const field of ['name', 'checked', 'quantity', 'checkedAt', 'createdAt', 'updatedAt']) {
      expect(localMilk[field], field).to.deep.equal(serverMilk[field]);
    }
    const restored = await rest('POST', `/api/lists/${list.id}/items/${bread.id}/restore`);
    expect(restored.name).to.equal('Bread (2)');
  });
});
