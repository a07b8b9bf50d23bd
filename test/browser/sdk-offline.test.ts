// Offline in a real browser (Chromium, IndexedDB): writes made offline survive a reload and a
// browser restart (the same profile directory), and once the network is back they reach the
// server within seconds without the app doing anything. The figures are printed; only a hang
// deadline is asserted.
//
// Two kinds of "offline": the browser's own (context.setOffline: requests fail, `offline` and
// `online` events fire), and a network switch in front of the app (sdk-switch.ts) that lets the
// page itself load while the server cannot be reached, as an app's service worker would (so
// the page can be reloaded, or the browser restarted, while offline).
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_PATH, launchBrowser } from '../helpers/browser.js';
import { startTestApp } from '../helpers/app.js';
import { makeFamily, type TestFamily } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { restAs } from '../e2e/sdk/helpers.js';
import { harnessHtml, harnessPage, reloadHarness, switchedPage, waitInPage } from './sdk-harness.js';
import { startSwitch, type NetworkSwitch } from './sdk-switch.js';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];

describe('browser SDK: offline writes', function () {
  let app: RunningServer;
  let net: NetworkSwitch | undefined;

  before(async function () {
    app = await startTestApp();
  });
  after(async function () {
    await app?.close();
  });
  afterEach(async function () {
    await net?.close();
    net = undefined;
  });

  async function signIn(page: Page, family: TestFamily): Promise<void> {
    await page.evaluate(
      async ([email, password]) => {
        await h.open();
        await h.c.auth.login(email!, password!);
        await h.c.start();
        await h.c.awaitInSync();
      },
      [family.admin.email, family.admin.password],
    );
  }

  /** Items of the list on the server (REST). */
  async function serverItems(family: TestFamily, listId: string): Promise<string[]> {
    const detail = await restAs(app, family.admin.token)('GET', `/api/lists/${listId}`);
    return detail.groups.flatMap((g: { items: { name: string }[] }) => g.items.map((i) => i.name)).sort();
  }

  /** ms until the server has every one of `names` (fails after the hang deadline). */
  async function waitForServer(
    family: TestFamily,
    listId: string,
    names: string[],
    timeoutMs = 60_000,
  ): Promise<number> {
    const t0 = Date.now();
    for (;;) {
      const got = await serverItems(family, listId);
      if (names.every((n) => got.includes(n))) return Date.now() - t0;
      if (Date.now() - t0 > timeoutMs)
        throw new Error(`server has [${got.join(', ')}]; waiting for ${names.join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const hasList = (id: string) => h.c.db.lists.findOne(id).exec().then(Boolean);

  it('the browser goes offline and back: queued writes reach the server within seconds (online event)', async function () {
    const family = await makeFamily(app);
    const list = await restAs(app, family.admin.token)('POST', '/api/lists', { name: 'Offline' });
    const browser: Browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      const page = await harnessPage(context, app.url);
      await signIn(page, family);
      await waitInPage(page, hasList, list.id, 'the list locally');
      await waitInPage(page, () => h.c.online, undefined, 'online');

      await context.setOffline(true);
      await waitInPage(page, () => h.c.state === 'offline' && !h.c.online, undefined, 'offline');
      await page.evaluate(async (id) => {
        for (const name of ['Bread', 'Eggs', 'Milk']) await h.addItem(id, name);
      }, list.id);
      await waitInPage(page, () => h.pending === 3, undefined, 'pending 3');
      // Long enough offline for the retries to back off to several seconds.
      await new Promise((r) => setTimeout(r, 8_000));
      expect(await serverItems(family, list.id)).to.deep.equal([]);

      await context.setOffline(false);
      const took = await waitForServer(family, list.id, ['Bread', 'Eggs', 'Milk']);
      console.log(`      browser back online → 3 queued writes on the server: ${took} ms`);
      const t1 = Date.now();
      await waitInPage(
        page,
        () => h.pending === 0 && h.c.online && h.c.state === 'idle',
        undefined,
        'pending 0, online, idle',
      );
      console.log(`      … and the client says online, idle, 0 pending ${took + Date.now() - t1} ms after`);
    } finally {
      await browser.close();
    }
  });

  it('survive a reload while the server cannot be reached, and are pushed once it can', async function () {
    const family = await makeFamily(app);
    const list = await restAs(app, family.admin.token)('POST', '/api/lists', { name: 'Reload' });
    net = await startSwitch(app, harnessHtml);
    const browser: Browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      const page = await switchedPage(context, net.url);
      await signIn(page, family);
      await waitInPage(page, hasList, list.id, 'the list locally');

      net.cut();
      await page.evaluate(async (id) => {
        for (const name of ['Bread', 'Eggs', 'Milk']) await h.addItem(id, name);
      }, list.id);
      await waitInPage(page, () => h.c.state === 'offline' && h.pending === 3, undefined, 'offline, pending 3');

      await reloadHarness(page);
      const reloaded = await page.evaluate(async (id) => {
        await h.open();
        await h.c.start();
        return { names: await h.itemNames(id), signedIn: !!h.c.auth.session };
      }, list.id);
      expect(reloaded).to.deep.equal({ names: ['Bread', 'Eggs', 'Milk'], signedIn: true });
      await waitInPage(page, () => h.pending === 3, undefined, 'pending 3 after the reload');
      expect(await serverItems(family, list.id)).to.deep.equal([]);

      net.restore();
      const took = await waitForServer(family, list.id, ['Bread', 'Eggs', 'Milk']);
      console.log(`      server reachable again (no browser event) → 3 queued writes on the server: ${took} ms`);
      await waitInPage(page, () => h.pending === 0 && h.c.online, undefined, 'pending 0 and online');
    } finally {
      await browser.close();
    }
  });

  it('survive a browser restart (same profile) while the server cannot be reached, and are pushed once it can', async function () {
    const family = await makeFamily(app);
    const list = await restAs(app, family.admin.token)('POST', '/api/lists', { name: 'Restart' });
    net = await startSwitch(app, harnessHtml);
    const dir = await mkdtemp(path.join(tmpdir(), 'sdk-profile-'));
    const launch = () =>
      chromium.launchPersistentContext(dir, { executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
    let context: BrowserContext | undefined;
    try {
      context = await launch();
      let page = await switchedPage(context, net.url);
      await signIn(page, family);
      await waitInPage(page, hasList, list.id, 'the list locally');
      net.cut();
      await page.evaluate((id) => h.addItem(id, 'Apples'), list.id);
      await waitInPage(page, () => h.pending === 1, undefined, 'pending 1');
      await context.close(); // the browser ends
      context = undefined;

      context = await launch();
      page = await switchedPage(context, net.url);
      const restarted = await page.evaluate(async (id) => {
        await h.open();
        await h.c.start();
        return { names: await h.itemNames(id), signedIn: !!h.c.auth.session };
      }, list.id);
      expect(restarted).to.deep.equal({ names: ['Apples'], signedIn: true });
      expect(await serverItems(family, list.id)).to.deep.equal([]);

      net.restore();
      const took = await waitForServer(family, list.id, ['Apples']);
      console.log(`      after a browser restart, server reachable again → queued write on the server: ${took} ms`);
    } finally {
      await context?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
