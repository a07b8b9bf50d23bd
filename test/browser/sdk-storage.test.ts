// The SDK in Chromium with its default storage (IndexedDB through RxDB's Dexie storage), on
// pages of the app's origin: data outlives a reload, a second client in one page fails with a
// clear error, and a page over plain http on a LAN name (no secure context) works too.
import { expect } from 'chai';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestApp } from '../helpers/app.js';
import { makeFamily } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import { harnessBundle, harnessPage, reloadHarness } from './sdk-harness.js';

describe('browser SDK: default storage and runtime errors', function () {
  let app: RunningServer;
  let browser: Browser;
  let context: BrowserContext;

  before(async function () {
    app = await startTestApp();
    browser = await launchBrowser();
  });
  after(async function () {
    await browser?.close();
    await app?.close();
  });
  beforeEach(async function () {
    context = await browser.newContext();
  });
  afterEach(async function () {
    await context?.close();
  });

  it('keeps the local database in IndexedDB: a reload finds it signed in with its data', async function () {
    const family = await makeFamily(app);
    const page = await harnessPage(context, app.url);
    await page.evaluate(
      async ([email, password]) => {
        await h.open();
        await h.c.auth.login(email!, password!);
        await h.c.start();
        await h.c.awaitInSync();
      },
      [family.admin.email, family.admin.password],
    );
    const dbs = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    expect(dbs.some((n) => n?.includes('family-shopping'))).to.equal(true);
    const listId = await page.evaluate(async () => {
      const list = h.sdk.newDoc('lists', { name: 'Weekly' });
      await h.c.db.lists.insert(list);
      await h.addItem(list.id, 'Milk');
      await h.c.awaitInSync();
      return list.id;
    });

    await reloadHarness(page);
    const after = await page.evaluate(async (id) => {
      await h.open();
      return { names: await h.itemNames(id), signedIn: !!h.c.auth.session };
    }, listId);
    expect(after).to.deep.equal({ names: ['Milk'], signedIn: true });
  });

  it('a second client of the same database in one page is a FamilyClientError database_in_use', async function () {
    const page = await harnessPage(context, app.url);
    const err = await page.evaluate(async () => {
      await h.open();
      return h.error(() => h.sdk.createFamilyClient({ baseUrl: location.origin }));
    });
    expect(err).to.include({ name: 'FamilyClientError', code: 'database_in_use' });
    // after close() the database can be opened again
    const reopened = await page.evaluate(async () => {
      await h.c.close();
      return h.error(() => h.open());
    });
    expect(reopened).to.equal(null);
  });

  it('a second client of another database in one page is a FamilyClientError too_many_clients', async function () {
    const page = await harnessPage(context, app.url);
    const err = await page.evaluate(async () => {
      await h.open();
      return h.error(() => h.sdk.createFamilyClient({ baseUrl: location.origin, databaseName: 'other' }));
    });
    expect(err).to.include({ name: 'FamilyClientError', code: 'too_many_clients' });
  });

  it('over plain http on a LAN address (no secure context) it opens and writes with no crypto.subtle', async function () {
    const page = await context.newPage();
    // A page of an http origin that is not localhost: not a secure context, no crypto.subtle,
    // no crypto.randomUUID.
    await page.route('http://shopping.lan.test/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>app</title>' }),
    );
    await page.goto('http://shopping.lan.test/');
    const runtime = await page.evaluate(() => ({
      secure: window.isSecureContext,
      subtle: typeof globalThis.crypto?.subtle,
      randomUUID: typeof (globalThis.crypto as { randomUUID?: unknown } | undefined)?.randomUUID,
    }));
    expect(runtime).to.deep.equal({ secure: false, subtle: 'undefined', randomUUID: 'undefined' });
    await page.addScriptTag({ content: await harnessBundle() });
    const names = await page.evaluate(async () => {
      await h.open();
      const list = await h.c.lists.create({ name: 'Weekly' });
      await h.addItem(list.id, 'Milk');
      return h.itemNames(list.id);
    });
    expect(names).to.deep.equal(['Milk']);
  });
});
