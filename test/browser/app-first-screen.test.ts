// The first screen (issue 23): the public pages load only the small entry of the app (Preact,
// the router, the English messages, plain fetch for the auth calls), never the SDK's local
// database (RxDB) or its replication, and their JavaScript stays within 35 KB gzipped. The
// signed-in shell (a chunk of its own) is fetched right after sign-in, and at once when a page
// opens with a kept session. Which chunk holds RxDB is read from web/dist as built.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { request, testApp } from '../helpers/app.js';
import type { RunningServer } from '../../server/server.js';
import { WEB_DIST } from '../../server/web/static.js';
import { PASSWORD, requireBuiltApp, unique } from './app-helpers.js';

/** The budget of the public pages' JavaScript, gzipped (level 9), in bytes. */
const BUDGET = 35 * 1000;
const WAIT = { timeout: 30_000 };

const PUBLIC_PAGES: [path: string, heading: string][] = [
  ['/login', 'Sign in'],
  ['/register', 'Create account'],
  ['/forgot-password', 'Forgot password'],
  ['/reset-password/not-a-token', 'Set a new password'],
  ['/invite/not-a-token', 'Join your family'],
  ['/confirm-email/not-a-token', 'Confirm email'],
];

/** RxDB's own code: its error messages name it (they are kept in the production build). */
const holdsRxdb = (code: string) => /rxdb/i.test(code);

function assetText(url: string): string {
  return readFileSync(path.join(WEB_DIST, new URL(url).pathname), 'utf8');
}

const gzipped = (text: string) => gzipSync(text, { level: 9 }).byteLength;

/** The scripts `page` fetches from the app while `act` runs and until the network is idle. */
async function scriptsFetched(page: Page, act: () => Promise<void>): Promise<string[]> {
  const urls = new Set<string>();
  const listener = (req: { resourceType(): string; url(): string }) => {
    if (req.resourceType() === 'script' && /\.m?js$/.test(new URL(req.url()).pathname)) urls.add(req.url());
  };
  page.on('request', listener);
  try {
    await act();
    await page.waitForLoadState('networkidle');
  } finally {
    page.off('request', listener);
  }
  return [...urls];
}

describe('web app: the first screen', function () {
  this.timeout(180_000);
  let app: RunningServer;
  let browser: Browser;
  let rxdbChunks: string[];

  before(async () => {
    requireBuiltApp();
    app = await testApp();
    browser = await launchBrowser();
    const assets = path.join(WEB_DIST, 'assets');
    rxdbChunks = readdirSync(assets).filter(
      (f) => f.endsWith('.js') && holdsRxdb(readFileSync(path.join(assets, f), 'utf8')),
    );
  });
  after(async () => {
    await browser?.close();
  });

  it('the build has RxDB in a chunk of its own (the signed-in shell), not in the entry', () => {
    expect(rxdbChunks, 'chunks holding RxDB').to.have.length.greaterThan(0);
    const html = readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
    for (const chunk of rxdbChunks) expect(html, 'index.html').not.to.include(chunk);
  });

  for (const [pagePath, heading] of PUBLIC_PAGES) {
    it(`${pagePath} loads no RxDB and at most 35 KB of JavaScript (gzipped)`, async () => {
      const ctx = await phoneContext(browser);
      try {
        const page = await ctx.newPage();
        const scripts = await scriptsFetched(page, async () => {
          await page.goto(app.url + pagePath);
          await page.getByRole('heading', { name: heading }).waitFor(WAIT);
        });
        expect(scripts, 'scripts fetched').to.have.length.greaterThan(0);
        const texts = scripts.map(assetText);
        expect(
          scripts.filter((_, i) => holdsRxdb(texts[i]!)),
          'scripts holding RxDB',
        ).to.deep.equal([]);
        const total = texts.reduce((sum, t) => sum + gzipped(t), 0);
        expect(total, `gzipped JavaScript of ${pagePath} (${scripts.join(', ')})`).to.be.at.most(BUDGET);
      } finally {
        await ctx.close();
      }
    });
  }

  it('signing in fetches the signed-in shell with RxDB at once; a kept session loads it on open', async () => {
    const email = `${unique('fay')}@example.com`;
    const reg = await request(app, 'POST', '/api/auth/register', {
      body: { email, userName: unique('Fay'), password: PASSWORD, newFamilyName: 'First Screen' },
    });
    expect(reg.status).to.equal(201);
    const ctx = await phoneContext(browser);
    try {
      const page = await ctx.newPage();
      await page.goto(`${app.url}/login`);
      await page.getByRole('textbox', { name: 'Email' }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      const afterSignIn = await scriptsFetched(page, async () => {
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('textbox', { name: 'New list' }).waitFor(WAIT);
      });
      expect(afterSignIn.filter((u) => holdsRxdb(assetText(u))).length, 'RxDB chunks after sign-in').to.be.above(0);

      // A new browser context holding only the kept session (no cache, no service worker).
      const kept = await phoneContext(browser, { storageState: await ctx.storageState() });
      const again = await kept.newPage();
      const onOpen = await scriptsFetched(again, async () => {
        await again.goto(`${app.url}/`);
        await again.getByRole('textbox', { name: 'New list' }).waitFor(WAIT);
      });
      await kept.close();
      expect(onOpen.filter((u) => holdsRxdb(assetText(u))).length, 'RxDB chunks on open').to.be.above(0);
    } finally {
      await ctx.close();
    }
  });
});
