// The status bar in real Chromium: opening the app with the server reachable never says
// "Offline" (not even while the live channel is still connecting); "Offline" comes when the
// server cannot be reached, and goes when it can again.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { request, startTestApp } from '../helpers/app.js';
import type { RunningServer } from '../../server/server.js';
import { PASSWORD, registerInApp, requireBuiltApp, unique, waitUntil } from './app-helpers.js';

const WAIT = { timeout: 30_000 };

/** Records every text the status element shows, from the page's first script on. */
const RECORD_STATUS = `
  window.__statusTexts = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[role="status"]')) {
      const text = (el.textContent || '').trim();
      if (text && window.__statusTexts.at(-1) !== text) window.__statusTexts.push(text);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

describe('web app: the status bar', function () {
  this.timeout(180_000);
  let app: RunningServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let token: string;

  before(async () => {
    requireBuiltApp();
    app = await startTestApp();
    browser = await launchBrowser();
    ctx = await phoneContext(browser);
    const email = `${unique('sam')}@example.com`;
    const page = await ctx.newPage();
    await registerInApp(page, app.url, { email, userName: unique('Sam'), newFamilyName: 'Status' });
    await page.getByRole('textbox', { name: 'New list' }).waitFor(WAIT);
    await page.close();
    const login = await request(app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    token = login.body.accessToken as string;
  });
  after(async () => {
    await ctx?.close().catch(() => undefined);
    await browser?.close();
    await app?.close();
  });

  const shown = (page: Page): Promise<string[]> =>
    page.evaluate(() => (window as unknown as { __statusTexts: string[] }).__statusTexts);

  it('never says "Offline" while the app opens with the server reachable', async () => {
    for (let open = 0; open < 3; open++) {
      const page = await ctx.newPage();
      await page.addInitScript(RECORD_STATUS);
      await page.goto(app.url);
      await page.getByRole('textbox', { name: 'New list' }).waitFor(WAIT);
      // A list another member adds appears live: the live channel is up.
      const name = unique('Live ');
      const made = await request(app, 'POST', '/api/lists', { token, body: { name } });
      expect(made.status).to.equal(201);
      await page.getByRole('link', { name: new RegExp(`^${name}`) }).waitFor(WAIT);
      expect((await shown(page)).filter((t) => /Offline/.test(t))).to.deep.equal([]);
      await page.close();
    }
  });

  it('says "Offline" when the network goes, and no more once it is back', async () => {
    const page = await ctx.newPage();
    await page.addInitScript(RECORD_STATUS);
    await page.goto(app.url);
    await page.getByRole('textbox', { name: 'New list' }).waitFor(WAIT);
    const status = page.getByRole('status');
    await ctx.setOffline(true);
    await waitUntil(async () => /Offline/.test((await status.textContent()) ?? ''));
    await ctx.setOffline(false);
    await waitUntil(async () => !/Offline/.test((await status.textContent()) ?? ''));
    await page.close();
  });
});
