// One pull per collection per app open (issue 23), in Chromium on IndexedDB, counted from the
// page's own requests: a signed-in member's family with data in several collections (1,200
// items: two pages of 1,000) is pulled once per collection (per page) on the first sign-in and
// again on a reopen (a reload), although the live channel connects meanwhile; a change another
// member then makes arrives by its live patch, pulling at most what it wrote.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { newDoc } from '@family-shopping/client';
import { COLLECTIONS, SCHEMA_VERSION } from '@family-shopping/client/protocol';
import { launchBrowser } from '../helpers/browser.js';
import { makeFamily, makeMember } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { restAs, startSdkApp } from '../e2e/sdk/helpers.js';
import { harnessPage, reloadHarness, waitInPage } from './sdk-harness.js';

const ITEMS = 1_200;

/** Pull requests per collection sent by the page since the last `reset()`. */
function countPulls(page: Page) {
  const pulls = new Map<string, number>();
  page.on('request', (req) => {
    const m = /\/api\/sync\/(\w+)\/pull/.exec(req.url());
    if (m) pulls.set(m[1]!, (pulls.get(m[1]!) ?? 0) + 1);
  });
  return {
    counts: () => Object.fromEntries(COLLECTIONS.map((c) => [c, pulls.get(c) ?? 0])),
    total: () => [...pulls.values()].reduce((a, b) => a + b, 0),
    reset: () => pulls.clear(),
  };
}

/** One pull per collection, two for the items (two pages). */
const ONCE = Object.fromEntries(COLLECTIONS.map((c) => [c, c === 'items' ? 2 : 1]));

describe('browser SDK: one pull per collection per app open', function () {
  this.timeout(180_000);
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

  it('first sign-in and reopen pull each collection once; a live change pulls at most once', async function () {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const api = restAs(app, member.token);
    const store = await api('POST', '/api/stores', { name: 'Corner shop' });
    const list = await api('POST', '/api/lists', { name: 'Big list', storeId: store.id });
    await api('POST', '/api/recipes', { name: 'Pancakes', servings: 4 });
    await api('POST', '/api/products', { name: 'House blend' });
    for (let i = 0; i < ITEMS; i += 500) {
      const rows = Array.from({ length: Math.min(500, ITEMS - i) }, (_, k) => ({
        newDocumentState: { ...newDoc('items', { listId: list.id, name: `Item ${i + k}` }), _deleted: false },
      }));
      const body = await api('POST', `/api/sync/items/push?schema=${SCHEMA_VERSION}`, rows);
      expect(body.rejected).to.deep.equal([]);
    }

    const context = await browser.newContext();
    const page = await harnessPage(context, app.url);
    const pulls = countPulls(page);
    const inSync = async (what: string) => {
      await page.evaluate(() => h.c.awaitInSync());
      await waitInPage(page, () => h.c.online && h.c.state === 'idle', undefined, what);
    };

    // First sign-in.
    await page.evaluate(
      async ([email, password]) => {
        await h.open();
        await h.c.auth.login(email!, password!);
        await h.c.start();
      },
      [family.admin.email, family.admin.password],
    );
    await inSync('the first sync, live channel up');
    expect(await page.evaluate(() => h.c.db.items.count().exec())).to.equal(ITEMS);
    const firstSignIn = pulls.total();
    expect(pulls.counts(), 'first sign-in').to.deep.equal(ONCE);

    // Reopen: the saved session, the local database, one pull per collection.
    pulls.reset();
    await reloadHarness(page);
    await page.evaluate(async () => {
      await h.open();
      await h.c.start();
    });
    await inSync('the reopened client, live channel up');
    const reopen = pulls.total();
    expect(pulls.counts(), 'reopen').to.deep.equal(Object.fromEntries(COLLECTIONS.map((c) => [c, 1])));

    // Another member's change arrives by live patch: at most one pull (of what it wrote).
    pulls.reset();
    const later = await api('POST', `/api/lists/${list.id}/items`, { name: 'Made elsewhere' });
    await waitInPage(page, (id) => h.c.db.items.findOne(id).exec().then(Boolean), later.id, 'the live change');
    await inSync('in sync after the live change');
    const live = pulls.total();
    expect(live, JSON.stringify(pulls.counts())).to.be.at.most(1);
    console.log(`      pulls: first sign-in ${firstSignIn}, reopen ${reopen}, a live change ${live}`);
    await context.close();
  });
});
