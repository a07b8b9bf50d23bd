// The family's shopping story in the web app, in real Chromium at phone size, as two family
// members in two browser contexts: register (the second with the family code), a store and a
// list, items (the remembered section applies), check, remove and undo, the other member sees
// it live; offline: keep shopping, reload with no network (app shell from the service worker,
// data from IndexedDB), come back and converge. Elements are found by contract §9's names.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { startTestApp } from '../helpers/app.js';
import type { RunningServer } from '../../server/server.js';
import { waitUntil, expectAccessible, registerInApp, requireBuiltApp, unique } from './app-helpers.js';

const WAIT = { timeout: 30_000 };

/** The level-2 section headings of the list page, in order. */
const headings = (page: Page) => page.locator('main h2').allTextContents();
const item = (page: Page, name: string) => page.getByRole('checkbox', { name, exact: true });

describe('web app: shopping together, online and offline', function () {
  this.timeout(300_000);
  let app: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    requireBuiltApp();
    app = await startTestApp();
    browser = await launchBrowser();
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await app?.close();
  });

  it('two members shop one list live, and one keeps shopping offline', async () => {
    const annCtx = await phoneContext(browser);
    const bobCtx = await phoneContext(browser);
    contexts.push(annCtx, bobCtx);
    const ann = await annCtx.newPage();
    const bob = await bobCtx.newPage();

    await registerInApp(ann, app.url, {
      email: `${unique('ann')}@example.com`,
      userName: unique('Ann'),
      newFamilyName: 'Shoppers',
    });
    await ann.getByRole('link', { name: 'Family' }).click();
    const code = (await ann.getByLabel('Invite code').textContent())!.trim();
    await registerInApp(bob, app.url, {
      email: `${unique('bob')}@example.com`,
      userName: unique('Bob'),
      familyCode: code,
    });

    // A family product, so the store can remember where it lives.
    await ann.getByRole('link', { name: 'Catalog' }).click();
    await ann.getByRole('textbox', { name: 'New product' }).fill('Milk');
    await ann.getByRole('button', { name: 'Add product' }).click();
    await ann.getByRole('button', { name: 'Edit Milk' }).waitFor(WAIT);
    await expectAccessible(ann, 'catalog');

    // A store (default sections appear at once) and a list tied to it.
    await ann.getByRole('link', { name: 'Stores' }).click();
    await ann.getByRole('textbox', { name: 'New store' }).fill('Corner Market');
    await ann.getByRole('button', { name: 'Add store' }).click();
    await ann.getByRole('heading', { name: 'Corner Market' }).waitFor(WAIT);
    await ann.getByRole('combobox', { name: 'Category of Dairy & Eggs' }).waitFor(WAIT);
    await expectAccessible(ann, 'stores');

    await ann.getByRole('link', { name: 'Lists' }).click();
    await ann.getByRole('textbox', { name: 'New list' }).fill('Groceries');
    await ann.getByLabel('Store for the new list').selectOption({ label: 'Corner Market' });
    await ann.getByRole('button', { name: 'Add list' }).click();
    await ann.getByRole('link', { name: /^Groceries/ }).click();
    await ann.getByRole('textbox', { name: 'Add item' }).waitFor(WAIT);

    // Add items: with no section remembered yet they are Uncategorized.
    for (const name of ['Milk', 'Eggs', 'Bread']) {
      await ann.getByRole('textbox', { name: 'Add item' }).fill(name);
      await ann.getByRole('button', { name: 'Add', exact: true }).click();
      await item(ann, name).waitFor(WAIT);
    }
    expect(await headings(ann)).to.deep.equal(['Uncategorized']);

    // Move Milk to its section: the store remembers it.
    await ann.getByRole('button', { name: 'Edit Milk' }).click();
    await ann.getByRole('dialog').getByLabel('Section').selectOption({ label: 'Dairy & Eggs' });
    await ann.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await ann.getByRole('heading', { level: 2, name: 'Dairy & Eggs' }).waitFor(WAIT);
    expect(await headings(ann)).to.deep.equal(['Dairy & Eggs', 'Uncategorized']);
    await expectAccessible(ann, 'list');

    // The other member sees the list and its items live.
    await bob.getByRole('link', { name: 'Lists' }).click();
    await bob.getByRole('link', { name: /^Groceries/ }).click();
    await item(bob, 'Milk').waitFor(WAIT);
    await ann.getByRole('textbox', { name: 'Add item' }).fill('Apples');
    await ann.getByRole('button', { name: 'Add', exact: true }).click();
    await item(bob, 'Apples').waitFor(WAIT);

    // Check: live on the other phone; checked items go below unchecked ones.
    await item(ann, 'Eggs').check();
    await expectChecked(bob, 'Eggs', true);
    const uncategorized = bob
      .locator('section', { has: bob.getByRole('heading', { name: 'Uncategorized' }) })
      .getByRole('checkbox');
    await waitUntil(async () => (await names(uncategorized)).join() === 'Bread,Apples,Eggs');

    // Remove and undo.
    await ann.getByRole('button', { name: 'Remove Milk' }).click();
    await item(ann, 'Milk').waitFor({ state: 'detached', ...WAIT });
    await item(bob, 'Milk').waitFor({ state: 'detached', ...WAIT });
    await ann.getByRole('button', { name: 'Undo' }).click();
    await item(ann, 'Milk').waitFor(WAIT);
    await item(bob, 'Milk').waitFor(WAIT);

    // Removed and added again: the remembered section applies.
    await ann.getByRole('button', { name: 'Remove Milk' }).click();
    await item(ann, 'Milk').waitFor({ state: 'detached', ...WAIT });
    await ann.getByRole('textbox', { name: 'Add item' }).fill('Milk');
    await ann.getByRole('button', { name: 'Add', exact: true }).click();
    const dairy = ann.locator('section', { has: ann.getByRole('heading', { name: 'Dairy & Eggs' }) });
    await dairy.getByRole('checkbox', { name: 'Milk', exact: true }).waitFor(WAIT);

    // Offline: the app shell is the service worker's, the data IndexedDB's.
    await bob.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await bob.waitForFunction(() => !!navigator.serviceWorker.controller, undefined, WAIT);
    await bobCtx.setOffline(true);
    const status = bob.getByRole('status');
    await expectText(status, /Offline/);
    await bob.getByRole('textbox', { name: 'Add item' }).fill('Butter');
    await bob.getByRole('button', { name: 'Add', exact: true }).click();
    await item(bob, 'Butter').waitFor(WAIT);
    await item(bob, 'Bread').check();
    await expectText(status, /\d+ changes? waiting/);
    // Checked before the reload: Chromium re-applies the offline emulation to a reloaded
    // document only after its first requests, so a reload can let queued writes out.
    expect(await item(ann, 'Butter').count()).to.equal(0);
    await bob.reload();
    await item(bob, 'Butter').waitFor(WAIT);
    await expectChecked(bob, 'Bread', true);
    await expectText(bob.getByRole('status'), /Offline/);

    // Back online: both converge.
    await bobCtx.setOffline(false);
    await item(ann, 'Butter').waitFor(WAIT);
    await expectChecked(ann, 'Bread', true);
    await waitUntil(async () => ((await bob.getByRole('status').textContent()) ?? '').trim() === '');
    const annSections = await headings(ann);
    await waitUntil(async () => (await headings(bob)).join() === annSections.join());
  });
});

async function names(checkboxes: ReturnType<Page['getByRole']>): Promise<string[]> {
  return checkboxes.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
}

async function expectChecked(page: Page, name: string, checked: boolean): Promise<void> {
  await waitUntil(async () => (await item(page, name).isChecked()) === checked);
}

async function expectText(locator: ReturnType<Page['getByRole']>, re: RegExp): Promise<void> {
  await waitUntil(async () => re.test((await locator.textContent()) ?? ''));
}
