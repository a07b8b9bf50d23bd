// A silent dead zone in a real browser: the path to the server drops every packet and closes
// nothing (a TCP proxy that goes silent; the connections open then stay dead). With its default
// settings the SDK notices (online turns false: requests time out, the live channel's heartbeat
// gives the socket up), and once the path works again it catches up by itself, both ways,
// without the app calling sync(). The figures are printed; only hang deadlines are asserted.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { makeFamily, makeMember } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { restAs, startSdkApp } from '../e2e/sdk/helpers.js';
import { startSilentProxy, type SilentProxy } from '../e2e/sdk/silent-proxy.js';
import { harnessPage, waitInPage } from './sdk-harness.js';

describe('browser SDK: a silent dead zone', function () {
  this.timeout(300_000);
  let app: RunningServer;
  let browser: Browser;
  let proxy: SilentProxy;

  before(async function () {
    app = await startSdkApp();
    browser = await launchBrowser();
    proxy = await startSilentProxy(app);
  });
  after(async function () {
    await proxy?.close();
    await browser?.close();
    await app?.close();
  });

  it('is noticed, and afterwards the page catches up both ways without sync()', async function () {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const rest = restAs(app, member.token);
    const list = await rest('POST', '/api/lists', { name: 'Dead zone' });
    const context = await browser.newContext();
    // The page's origin is the proxy: the app's pages and API as the device's network reaches them.
    const page = await harnessPage(context, proxy.url);
    await page.evaluate(
      async ([email, password]) => {
        await h.open();
        await h.c.auth.login(email!, password!);
        await h.c.start();
        await h.c.awaitInSync();
      },
      [family.admin.email, family.admin.password],
    );
    await waitInPage(page, () => h.c.online && h.c.state === 'idle', undefined, 'online and idle');

    proxy.silence();
    const t0 = Date.now();
    await rest('POST', `/api/lists/${list.id}/items`, { name: 'From the other device' });
    await page.evaluate((id) => h.addItem(id, 'From the tab'), list.id);
    await waitInPage(page, () => !h.c.online, undefined, 'the dead zone noticed (online false)', 120_000);
    console.log(`      dead zone noticed (online false) after ${Date.now() - t0} ms`);
    expect(await page.evaluate((id) => h.itemNames(id), list.id)).to.deep.equal(['From the tab']);

    proxy.speak();
    const t1 = Date.now();
    await waitInPage(
      page,
      (id) => h.itemNames(id).then((names) => names.includes('From the other device')),
      list.id,
      "the other device's write in the tab",
      120_000,
    );
    const pulled = Date.now() - t1;
    for (;;) {
      const detail = await rest('GET', `/api/lists/${list.id}`);
      if (JSON.stringify(detail).includes('From the tab')) break;
      if (Date.now() - t1 > 120_000) throw new Error("the tab's write never reached the server");
      await new Promise((r) => setTimeout(r, 100));
    }
    const pushed = Date.now() - t1;
    await waitInPage(page, () => h.c.online && h.pending === 0, undefined, 'online, nothing pending', 120_000);
    console.log(
      `      after the network healed: pulled in ${pulled} ms, pushed in ${pushed} ms, online after ${Date.now() - t1} ms`,
    );
    const synced = await page.evaluate(() => h.events.filter((e) => e.type === 'unauthenticated').length);
    expect(synced).to.equal(0);
  });
});
