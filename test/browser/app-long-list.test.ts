// A long list in the web app (issue 23), in real Chromium at phone size: a list of 2,000 items
// opened from the lists page shows every item (none left out of the page while out of view), and
// an item far down is found by its accessible name and checked and unchecked, by tap and by
// keyboard (Tab to it, Space), with the list's progress following.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { newDoc } from '@family-shopping/client';
import { SCHEMA_VERSION } from '@family-shopping/client/protocol';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { startTestApp } from '../helpers/app.js';
import { makeFamily } from '../helpers/factories.js';
import { restAs } from '../e2e/sdk/helpers.js';
import type { RunningServer } from '../../server/server.js';
import { expectAccessible, requireBuiltApp, signIn } from './app-helpers.js';

const ITEMS = 2_000;
const WAIT = { timeout: 60_000 };

const item = (page: Page, name: string) => page.getByRole('checkbox', { name, exact: true });
const progress = (page: Page, checked: number) =>
  page.getByText(`${checked} of ${ITEMS.toLocaleString('en')} checked`).waitFor(WAIT);
/** The accessible name (aria-label) and role of the focused element. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement as HTMLInputElement | null;
    return { label: e?.getAttribute('aria-label'), type: e?.type, checked: e?.checked };
  });

describe('web app: a long list', function () {
  this.timeout(300_000);
  let app: RunningServer;
  let browser: Browser;

  before(async () => {
    requireBuiltApp();
    app = await startTestApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('opens a 2,000-item list with every item, and checks one far down by name and by keyboard', async () => {
    const family = await makeFamily(app);
    const api = restAs(app, family.admin.token);
    const store = await api('POST', '/api/stores', { name: 'Big store' });
    const list = await api('POST', '/api/lists', { name: 'Long list', storeId: store.id });
    const sections = (store.sections as Array<{ id: string }>).map((s) => s.id);
    for (let i = 0; i < ITEMS; i += 500) {
      const rows = Array.from({ length: 500 }, (_, k) => ({
        newDocumentState: {
          ...newDoc('items', {
            listId: list.id,
            name: `Item ${i + k}`,
            sectionId: (i + k) % 7 === 6 || sections.length === 0 ? null : sections[(i + k) % sections.length]!,
          }),
          _deleted: false,
        },
      }));
      const body = await api('POST', `/api/sync/items/push?schema=${SCHEMA_VERSION}`, rows);
      expect(body.rejected).to.deep.equal([]);
    }

    const context = await phoneContext(browser);
    try {
      const page = await context.newPage();
      await signIn(page, app.url, family.admin.email, family.admin.password);
      await page.getByText(`0 of ${ITEMS.toLocaleString('en')} checked`).waitFor(WAIT);
      await page.getByRole('link', { name: /Long list/ }).click();
      await page.getByRole('heading', { level: 1, name: 'Long list' }).waitFor(WAIT);

      // Every item is in the page, out of view too; Uncategorized is the last section.
      await item(page, 'Item 1999').waitFor({ state: 'attached', ...WAIT });
      expect(await page.getByRole('checkbox', { name: /^Item \d+$/ }).count()).to.equal(ITEMS);
      expect(await page.getByRole('button', { name: /^Remove Item \d+$/ }).count()).to.equal(ITEMS);
      expect((await page.locator('main h2').allTextContents()).at(-1)).to.equal('Uncategorized');
      await expectAccessible(page, 'a list of 2,000 items');

      // By name: the last item, far below the screen.
      await item(page, 'Item 1999').check();
      expect(await item(page, 'Item 1999').isChecked()).to.equal(true);
      await progress(page, 1);
      await item(page, 'Item 1999').uncheck();
      expect(await item(page, 'Item 1999').isChecked()).to.equal(false);
      await progress(page, 0);

      // By keyboard: from an item far down, Tab passes its Edit and Remove buttons to the next
      // item's checkbox; Space checks it and Space again unchecks it.
      await item(page, 'Item 1500').focus();
      await page.keyboard.press('Tab');
      expect((await focused(page)).label).to.equal('Edit Item 1500');
      await page.keyboard.press('Tab');
      expect((await focused(page)).label).to.equal('Remove Item 1500');
      await page.keyboard.press('Tab');
      const next = await focused(page);
      expect(next.type).to.equal('checkbox');
      expect(next.label).to.match(/^Item \d+$/);
      expect(next.checked).to.equal(false);
      await page.keyboard.press('Space');
      await progress(page, 1);
      expect(await item(page, next.label!).isChecked()).to.equal(true);
      expect((await focused(page)).label).to.equal(next.label);
      await page.keyboard.press('Space');
      await progress(page, 0);
      expect(await item(page, next.label!).isChecked()).to.equal(false);
    } finally {
      await context.close();
    }
  });
});
