// Contract §11 "Any address on a home network": the web app opened over plain http on a name
// that is not localhost (a phone on the family's Wi-Fi), in real Chromium at phone size.
// Chromium resolves family.lan to 127.0.0.1, so the page is not a secure context: no
// crypto.subtle, no crypto.randomUUID, no service worker. The app still signs in, sees another
// member's change live, keeps offline edits in IndexedDB (they outlive the page and reach the
// server when the network returns), survives a reload, and says once, calmly, what only HTTPS
// adds. RxDB's advert for its paid plugins never reaches the console.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { request, startTestApp } from '../helpers/app.js';
import { makeFamily, type TestFamily } from '../helpers/factories.js';
import type { RunningServer } from '../../server/server.js';
import {
  LAN_BROWSER_ARGS,
  expectAccessible,
  lanUrl,
  registerInApp,
  requireBuiltApp,
  unique,
  waitUntil,
} from './app-helpers.js';

const WAIT = { timeout: 30_000 };
const NOTICE =
  /^Opened over plain HTTP: the app works and keeps your changes while offline, but it cannot open with no network at all or be installed on the home screen\. HTTPS adds both/;

const item = (page: Page, name: string) => page.getByRole('checkbox', { name, exact: true });

describe('web app over plain http on a home network (contract §11)', function () {
  this.timeout(300_000);
  let app: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let family: TestFamily;
  const consoleLines: string[] = [];
  const pageErrors: string[] = [];

  before(async () => {
    requireBuiltApp();
    app = await startTestApp();
    browser = await launchBrowser(LAN_BROWSER_ARGS);
    family = await makeFamily(app);
  });
  after(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close();
    await app?.close();
  });

  const newPage = async (): Promise<Page> => {
    const page = await context.newPage();
    page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await request(app, method, path, { token: family.admin.token, body });
    expect(res.status, `${method} ${path}`).to.be.within(200, 299);
    return res.body;
  };
  const serverItems = async (listId: string) => {
    const detail = await api('GET', `/api/lists/${listId}`);
    return (detail.groups as { items: { name: string; checked: boolean }[] }[])
      .flatMap((g) => g.items)
      .map((i) => `${i.name}${i.checked ? ' ✓' : ''}`)
      .sort();
  };

  it('signs in, lives, keeps offline edits in IndexedDB and names what only HTTPS adds', async () => {
    const base = lanUrl(app);
    context = await phoneContext(browser);
    let page = await newPage();

    // Register into the family over http://family.lan:{port}: not a secure context.
    await registerInApp(page, base, {
      email: `${unique('lan')}@example.com`,
      userName: unique('Lan'),
      familyCode: family.inviteCode,
    });
    const runtime = await page.evaluate(() => ({
      origin: location.origin,
      secure: window.isSecureContext,
      subtle: typeof globalThis.crypto?.subtle,
      serviceWorker: 'serviceWorker' in navigator,
    }));
    expect(runtime).to.deep.equal({ origin: base, secure: false, subtle: 'undefined', serviceWorker: false });

    // Another member's changes arrive live (the REST writes of the family's admin).
    const list = await api('POST', '/api/lists', { name: 'Groceries' });
    await page.getByRole('link', { name: /^Groceries/ }).click(WAIT);
    await page.getByRole('textbox', { name: 'Add item' }).waitFor(WAIT);
    await api('POST', `/api/lists/${list.id}/items`, { name: 'Milk' });
    await item(page, 'Milk').waitFor(WAIT);

    // This phone's own change reaches the server.
    await page.getByRole('textbox', { name: 'Add item' }).fill('Eggs');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await waitUntil(async () => (await serverItems(list.id)).join() === 'Eggs,Milk');

    // Offline: keep shopping; the edits wait. Chromium's offline emulation has let a request
    // out now and then, so the API is also cut here (not the WebSocket: it carries no writes).
    const cut = (route: Route) => route.abort('internetdisconnected');
    await context.route('**/api/**', cut);
    await context.setOffline(true);
    const status = page.getByRole('status');
    await waitUntil(async () => /Offline/.test((await status.textContent()) ?? ''));
    await page.getByRole('textbox', { name: 'Add item' }).fill('Butter');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await item(page, 'Butter').waitFor(WAIT);
    await item(page, 'Milk').check();
    await waitUntil(async () => /\d+ changes? waiting/.test((await status.textContent()) ?? ''));

    // The page goes away with its edits unsent: they are in IndexedDB, not in the page.
    await page.close();
    expect(await serverItems(list.id)).to.deep.equal(['Eggs', 'Milk']);

    // The network returns; the app opened again shows the edits and sends them.
    await context.unroute('**/api/**', cut);
    await context.setOffline(false);
    page = await newPage();
    await page.goto(`${base}/lists/${list.id}`);
    await item(page, 'Butter').waitFor(WAIT);
    await waitUntil(async () => (await serverItems(list.id)).join() === 'Butter,Eggs,Milk ✓');
    await waitUntil(async () => ((await page.getByRole('status').textContent()) ?? '').trim() === '');
    expect(await item(page, 'Milk').isChecked()).to.equal(true);

    // A reload while online: the data is there.
    await page.reload();
    await item(page, 'Butter').waitFor(WAIT);
    expect(await item(page, 'Milk').isChecked()).to.equal(true);
    expect(await item(page, 'Eggs').isChecked()).to.equal(false);

    // One notice on the Account page and in the status bar's title says what only HTTPS adds.
    await page.getByRole('link', { name: 'Account' }).click();
    const notice = page.getByText(/^Opened over plain HTTP/);
    await notice.waitFor(WAIT);
    expect(await notice.count()).to.equal(1);
    expect(await notice.textContent()).to.match(NOTICE);
    expect(await page.getByRole('status').getAttribute('title')).to.match(NOTICE);
    await expectAccessible(page, 'account over plain http');

    // Nothing refused to start, nothing failed, and RxDB advertised nothing.
    expect(await page.getByText('cannot start').count()).to.equal(0);
    expect(pageErrors).to.deep.equal([]);
    expect(consoleLines.filter((l) => /open core|premium/i.test(l))).to.deep.equal([]);
  });
});
