// The replicating tab stops (the app signs out there, or unmounts its client): its replication
// ends with it, the live channel included, and the other started tab takes over alone. Seen
// from the server (the family's live sockets) and from the stopped tab's own network requests.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { makeFamily, makeMember } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { restAs, startSdkApp, waitFor } from '../e2e/sdk/helpers.js';
import { harnessPage, waitInPage } from './sdk-harness.js';

describe('browser SDK: the replicating tab stops', function () {
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

  it('its replication and live channel end; the other tab replicates alone', async function () {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const api = restAs(app, member.token);
    const list = await api('POST', '/api/lists', { name: 'Hand over' });
    const context = await browser.newContext();
    const sockets = () => app.deps.realtime!.hub.stats().sockets;

    // Each tab counts the sync requests it sends itself.
    const open = `
      window.syncRequests = 0;
      await h.open({
        fetch: (input, init) => {
          if (String(input).includes('/api/sync/')) window.syncRequests++;
          return fetch(input, init);
        },
      });`;
    const tab1 = await harnessPage(context, app.url);
    await tab1.evaluate(
      new Function(
        'args',
        `return (async () => { ${open}
          await h.c.auth.login(args[0], args[1]);
          await h.c.start();
          await h.c.awaitInSync();
        })();`,
      ) as (args: string[]) => Promise<void>,
      [family.admin.email, family.admin.password],
    );
    const tab2 = await harnessPage(context, app.url);
    await tab2.evaluate(new Function(`return (async () => { ${open} await h.c.start(); })();`) as () => Promise<void>);
    expect(await tab1.evaluate(() => h.c.leader)).to.equal(true);
    expect(await tab2.evaluate(() => h.c.leader)).to.equal(false);
    await waitFor(() => sockets() === 1, 'one live socket (the leader)');

    await tab1.evaluate(() => h.c.stop());
    expect(await tab1.evaluate(() => h.c.state)).to.equal('stopped');
    await waitInPage(tab2, () => h.c.leader && h.c.online, undefined, 'the other tab replicates');
    await waitFor(() => sockets() === 1, "one live socket (the new leader's)", 15_000);

    // Another member writes: the new leader brings it in; the stopped tab sends nothing.
    const before = await tab1.evaluate(() => (window as unknown as { syncRequests: number }).syncRequests);
    const item = await api('POST', `/api/lists/${list.id}/items`, { name: 'After the hand-over' });
    await waitInPage(
      tab2,
      (id) => h.c.db.items.findOne(id).exec().then(Boolean),
      item.id,
      'the write in the remaining tab',
    );
    await tab2.evaluate(() => h.c.sync());
    expect(await tab1.evaluate(() => (window as unknown as { syncRequests: number }).syncRequests)).to.equal(before);
    expect(sockets()).to.equal(1);
    await context.close();
  });
});
