// The browser says the network is back (`online`): every retry that waits out its backoff goes
// at once. Backoff waits here are up to ten minutes, so a write made offline reaches the server
// within the test's deadline only because the `online` event woke its retry (and the live
// channel's reconnect), not because a timer ran out.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { makeFamily } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { restAs, startSdkApp, waitFor } from '../e2e/sdk/helpers.js';
import { harnessPage, waitInPage } from './sdk-harness.js';

describe('browser SDK: the network comes back', function () {
  this.timeout(120_000);
  let app: RunningServer;
  let browser: Browser;

  before(async function () {
    app = await startSdkApp();
    browser = await launchBrowser();
  });
  after(async function () {
    await browser?.close();
    await app?.close();
  });

  it('a write waiting out a long backoff goes as soon as the browser is online again', async function () {
    const family = await makeFamily(app);
    const rest = restAs(app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Back online' });
    const context = await browser.newContext();
    const tab = await harnessPage(context, app.url);
    await tab.evaluate(
      async ([email, password]) => {
        await h.open({ backoff: { baseMs: 600_000, maxMs: 600_000 }, retryTime: 600_000 });
        await h.c.auth.login(email!, password!);
        await h.c.start();
        await h.c.awaitInSync();
      },
      [family.admin.email, family.admin.password],
    );

    await context.setOffline(true);
    await waitInPage(tab, () => h.c.state === 'offline', undefined, 'offline');
    const id = await tab.evaluate((listId) => h.addItem(listId, 'Written offline'), list.id);
    // The push fails and waits out its backoff (up to ten minutes).
    await waitInPage(tab, () => h.pending > 0, undefined, 'pending');
    await new Promise((r) => setTimeout(r, 1_000));
    const onServer = async () => JSON.stringify(await rest('GET', `/api/lists/${list.id}`)).includes(id);
    expect(await onServer()).to.equal(false);

    await context.setOffline(false);
    await waitFor(onServer, 'the write on the server', 20_000);
    await waitInPage(tab, () => h.c.online && h.pending === 0, undefined, 'online, nothing pending', 20_000);
    await context.close();
  });
});
