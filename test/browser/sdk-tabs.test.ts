// One session across tabs: two tabs of one browser (one origin, one IndexedDB database) and a
// second device (the SDK in Node) of the same family, with 8 s access tokens and no refresh
// grace on the server (REFRESH_REUSE_GRACE=0s: a reused refresh token revokes every session,
// so the client must never present a rotated one). For minutes, with the replicating tab
// closed halfway, every writer's items reach everyone and nobody is signed out.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { makeFamily, makeMember } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { newDoc, type FamilyClient } from '@family-shopping/client';
import { restAs, signedInClient, startSdkApp, waitFor } from '../e2e/sdk/helpers.js';
import { harnessPage, waitInPage } from './sdk-harness.js';

const RUN_MS = Number(process.env.SDK_TABS_RUN_MS ?? 150_000);

describe('browser SDK: two tabs and a second device with 8 s access tokens', function () {
  this.timeout(RUN_MS + 180_000);
  let app: RunningServer;
  let browser: Browser;
  let device: FamilyClient | undefined;

  before(async function () {
    app = await startSdkApp({ ACCESS_TOKEN_TTL: '8s', REFRESH_REUSE_GRACE: '0s' });
    browser = await launchBrowser();
  });
  after(async function () {
    await device?.destroy();
    await browser?.close();
    await app?.close();
  });

  it('stay signed in for minutes, one tab replicating at a time, and see each other’s writes', async function () {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const list = await restAs(app, family.admin.token)('POST', '/api/lists', { name: 'Tabs' });
    const context = await browser.newContext();

    const tab1 = await harnessPage(context, app.url);
    await tab1.evaluate(
      async ([email, password]) => {
        await h.open();
        await h.c.auth.login(email!, password!);
        await h.c.start();
        await h.c.awaitInSync();
      },
      [family.admin.email, family.admin.password],
    );
    const tab2 = await harnessPage(context, app.url);
    const tab2SignedIn = await tab2.evaluate(async () => {
      await h.open();
      const signedIn = !!h.c.auth.session;
      await h.c.start();
      return signedIn;
    });
    expect(tab2SignedIn, 'the second tab shares the session').to.equal(true);
    const leaders = async (tabs: Page[]) => Promise.all(tabs.map((t) => t.evaluate(() => h.c.leader)));
    await waitFor(async () => (await leaders([tab1, tab2])).filter(Boolean).length === 1, 'one leader');
    expect(await leaders([tab1, tab2])).to.deep.equal([true, false]);

    device = await signedInClient(app, member);
    const d = device;
    await d.start();
    await d.awaitInSync();

    const deviceNames = async () =>
      (await d.db.items.find({ selector: { listId: list.id, removedAt: null } }).exec()).map((x) => x.name).sort();
    const tabNames = (tab: Page) => tab.evaluate((id) => h.itemNames(id), list.id);

    let tabs: Page[] = [tab1, tab2];
    const written: string[] = [];
    const t0 = Date.now();
    let round = 0;
    let closedLeader = false;
    while (Date.now() - t0 < RUN_MS) {
      round++;
      // Each writer adds one item: every tab, and the device. Every tab also calls the REST API
      // with its own copy of the session (a tab that is not replicating refreshes on demand).
      for (const [i, tab] of tabs.entries()) {
        const name = `r${round}-tab${i}`;
        await tab.evaluate(([id, n]) => h.addItem(id!, n!), [list.id, name]);
        written.push(name);
        const me = await tab.evaluate(() => h.c.rest('GET', '/api/me'));
        expect(me.user.email).to.equal(family.admin.email);
      }
      const name = `r${round}-device`;
      await d.db.items.insert(newDoc('items', { listId: list.id, name }));
      written.push(name);
      const expected = [...written].sort();
      const started = Date.now();
      await waitFor(
        async () => JSON.stringify(await deviceNames()) === JSON.stringify(expected),
        `round ${round}: the device has every write`,
        60_000,
      );
      for (const tab of tabs) {
        await waitFor(
          async () => JSON.stringify(await tabNames(tab)) === JSON.stringify(expected),
          `round ${round}: a tab has every write`,
          60_000,
        );
      }
      console.log(
        `      round ${round} at ${Math.round((Date.now() - t0) / 1000)} s: everyone has ${expected.length} items after ${Date.now() - started} ms`,
      );
      if (!closedLeader && Date.now() - t0 > RUN_MS / 2) {
        // The replicating tab goes away: the other one takes over.
        closedLeader = true;
        await tab1.close();
        tabs = [tab2];
        await waitInPage(tab2, () => h.c.leader, undefined, 'the remaining tab replicates', 30_000);
      }
      await new Promise((r) => setTimeout(r, 8_000));
    }

    // Nobody was signed out, and tokens were refreshed all along.
    const status = await tab2.evaluate(() => ({
      signedIn: !!h.c.auth.session,
      unauthenticated: h.events.filter((e) => e.type === 'unauthenticated').length,
      state: h.c.state,
    }));
    expect(status.signedIn).to.equal(true);
    expect(status.unauthenticated).to.equal(0);
    expect(d.auth.session).to.not.equal(null);
    // The session still works on the server: a REST call with the tab's current token.
    const me = await tab2.evaluate(() => h.c.rest('GET', '/api/me'));
    expect(me.user.email).to.equal(family.admin.email);
    expect(closedLeader).to.equal(true);
  });
});
