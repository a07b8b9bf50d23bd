// The web app's other pages in real Chromium at phone size: recipes with structured ingredients
// copied (chosen ones) to a list, sections reordered by keyboard and by dragging, a unit in use
// refused with its reason, the account page (user name, password, email confirmation through
// the emailed link), catalog edits made offline that reach the server once back online. Every
// page passes axe-core with no serious or critical violation.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { request, startTestApp } from '../helpers/app.js';
import { insertGlobalProductRow } from '../helpers/versioned.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import type { RunningServer } from '../../server/server.js';
import {
  waitUntil,
  expectAccessible,
  linkPath,
  PASSWORD,
  registerInApp,
  requireBuiltApp,
  signIn,
  unique,
} from './app-helpers.js';

const WAIT = { timeout: 30_000 };

describe('web app: recipes, stores, catalog, account', function () {
  this.timeout(300_000);
  let app: RunningServer;
  let smtp: SmtpSink;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let email: string;
  /** A product of the shared (global) catalog. */
  let shared: string;

  before(async () => {
    requireBuiltApp();
    smtp = await startSmtpSink();
    app = await startTestApp({ envOverrides: { SMTP_URL: smtp.url } });
    shared = unique('Shared fruit ');
    await insertGlobalProductRow(app, { name: shared, unit_category_flags: 1 });
    browser = await launchBrowser();
    ctx = await phoneContext(browser);
    page = await ctx.newPage();
    email = `${unique('dee')}@example.com`;
    await registerInApp(page, app.url, { email, userName: unique('Dee'), newFamilyName: 'Cooks' });
  });
  after(async () => {
    await ctx?.close().catch(() => undefined);
    await browser?.close();
    await app?.close();
    await smtp?.close();
  });

  const sectionNames = () => page.locator('ol.sections > li .section-name').allTextContents();

  it('reorders a store’s sections by keyboard and by dragging; the list follows the walking order', async () => {
    await page.getByRole('link', { name: 'Stores' }).click();
    await page.getByRole('textbox', { name: 'New store' }).fill('Market');
    await page.getByRole('button', { name: 'Add store' }).click();
    await page.getByRole('button', { name: 'Move Bakery up' }).waitFor(WAIT);
    expect((await sectionNames()).slice(0, 3).map((t) => t.replace(/[^A-Za-z& ]/g, '').trim())).to.deep.equal([
      'Produce',
      'Bakery',
      'Meat & Seafood',
    ]);

    // Keyboard: focus the button and press Enter.
    await page.getByRole('button', { name: 'Move Bakery up' }).focus();
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await sectionNames())[0]!.includes('Bakery'));

    // Drag: the handle of Deli onto the first row (both in view: rows hold a category select).
    await page
      .locator('ol.sections > li')
      .nth(1)
      .evaluate((e) => e.scrollIntoView({ block: 'center' }));
    const handle = page
      .locator('ol.sections > li', { has: page.locator('.section-name', { hasText: /^Deli$/ }) })
      .locator('.handle');
    const first = page.locator('ol.sections > li').first();
    const from = (await handle.boundingBox())!;
    const to = (await first.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, to.y + 4, { steps: 8 });
    await page.mouse.up();
    await waitUntil(async () => (await sectionNames())[0]!.includes('Deli'));
    await expectAccessible(page, 'stores');

    // Rename and add a section.
    await page.getByRole('textbox', { name: 'New section' }).fill('Flowers');
    await page.getByRole('button', { name: 'Add section' }).click();
    await page.getByRole('button', { name: 'Move Flowers up' }).waitFor(WAIT);

    // A list tied to the store shows its sections in that order.
    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('textbox', { name: 'New list' }).fill('Weekly');
    await page.getByLabel('Store for the new list').selectOption({ label: 'Market' });
    await page.getByRole('button', { name: 'Add list' }).click();
    await page.getByRole('link', { name: /^Weekly/ }).click();
    for (const name of ['Rolls', 'Ham']) {
      await page.getByRole('textbox', { name: 'Add item' }).fill(name);
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('checkbox', { name, exact: true }).waitFor(WAIT);
    }
    for (const [name, section] of [
      ['Rolls', 'Bakery'],
      ['Ham', 'Deli'],
    ] as const) {
      await page.getByRole('button', { name: `Edit ${name}` }).click();
      await page.getByRole('dialog').getByLabel('Section').selectOption({ label: section });
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { level: 2, name: section }).waitFor(WAIT);
    }
    expect(await page.locator('main h2').allTextContents()).to.deep.equal(['Deli', 'Bakery']);
  });

  it('copies chosen ingredients of a recipe to a list', async () => {
    await page.getByRole('link', { name: 'Recipes' }).click();
    await page.getByRole('textbox', { name: 'New recipe' }).fill('Pancakes');
    await page.getByRole('button', { name: 'Add recipe' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pancakes' }).waitFor(WAIT);
    for (const [name, quantity] of [
      ['Flour', '250'],
      ['Eggs', '2'],
      ['Sugar', '1'],
    ]) {
      await page.getByRole('textbox', { name: 'Ingredient' }).fill(name!);
      await page.getByRole('spinbutton', { name: 'Quantity' }).fill(quantity!);
      await page.getByRole('button', { name: 'Add ingredient' }).click();
      await page.getByRole('checkbox', { name: `Copy ${name}` }).waitFor(WAIT);
    }
    await expectAccessible(page, 'recipe');
    await page.getByRole('checkbox', { name: 'Copy Sugar' }).uncheck();
    await page.getByLabel('List', { exact: true }).selectOption({ label: 'Weekly' });
    await page.getByRole('button', { name: 'Copy to list' }).click();
    await page.getByRole('link', { name: 'Open the list' }).click();
    await page.getByRole('checkbox', { name: 'Flour', exact: true }).waitFor(WAIT);
    await page.getByRole('checkbox', { name: 'Eggs', exact: true }).waitFor(WAIT);
    expect(await page.getByRole('checkbox', { name: 'Sugar', exact: true }).count()).to.equal(0);
    await page.getByRole('link', { name: 'Recipes' }).click();
    await page.getByRole('link', { name: /^Pancakes/ }).waitFor(WAIT);
    await expectAccessible(page, 'recipes');
  });

  it('refuses to delete a unit in use and says why', async () => {
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('textbox', { name: 'Unit name' }).fill('Handful');
    await page.getByRole('textbox', { name: 'Abbreviation' }).fill(unique('hf').slice(0, 12));
    await page.getByRole('button', { name: 'Add unit' }).click();
    await page.getByRole('button', { name: 'Delete Handful' }).waitFor(WAIT);

    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('link', { name: /^Weekly/ }).click();
    await page.getByRole('textbox', { name: 'Add item' }).fill('Cherries');
    await page.getByText('Quantity, unit and note').click();
    await page.getByRole('spinbutton', { name: 'Quantity' }).fill('2');
    await page.getByRole('combobox', { name: 'Unit' }).selectOption({ label: `Handful (${await abbreviation()})` });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('checkbox', { name: 'Cherries', exact: true }).waitFor(WAIT);
    await page.getByRole('link', { name: 'Catalog' }).click();
    await waitUntil(async () => {
      await page.getByRole('button', { name: 'Delete Handful' }).click();
      return (await page.getByRole('alert').count()) > 0;
    });
    expect(await page.getByRole('alert').textContent()).to.contain('cannot be deleted');
    expect(await page.getByRole('button', { name: 'Delete Handful' }).count()).to.equal(1);
    await expectAccessible(page, 'catalog');

    async function abbreviation(): Promise<string> {
      const opts = await page.getByRole('combobox', { name: 'Unit' }).locator('option').allTextContents();
      const o = opts.find((t) => t.startsWith('Handful ('))!;
      return o.slice('Handful ('.length, -1);
    }
  });

  it('suggests products from the local catalog and offers the units of their categories', async () => {
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('textbox', { name: 'New product' }).fill('Basmati rice');
    await page.getByRole('checkbox', { name: 'Weight' }).check();
    await page.getByRole('button', { name: 'Add product' }).click();
    await page.getByRole('button', { name: 'Edit Basmati rice' }).waitFor(WAIT);

    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('link', { name: /^Weekly/ }).click();
    await page.getByRole('textbox', { name: 'Add item' }).fill('basm');
    await page.getByRole('button', { name: 'Basmati rice' }).click();
    expect(await page.getByRole('textbox', { name: 'Add item' }).inputValue()).to.equal('Basmati rice');
    await page.getByText('Quantity, unit and note').click();
    const units = async () =>
      (await page.getByRole('combobox', { name: 'Unit' }).locator('option').allTextContents()).slice(1);
    await waitUntil(
      async () => (await units()).length > 0 && (await units()).every((u) => /gram|ounce|pound/i.test(u)),
    );
    await page.getByRole('checkbox', { name: 'Show all units' }).check();
    await waitUntil(async () => (await units()).some((u) => /liter/i.test(u)));
    await page.getByRole('combobox', { name: 'Unit' }).selectOption({ label: 'Kilogram (kg)' });
    await page.getByRole('spinbutton', { name: 'Quantity' }).fill('1.5');
    await page.getByRole('checkbox', { name: 'Approximate' }).check();
    await page.getByRole('textbox', { name: 'Note' }).fill('the big bag');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('checkbox', { name: 'Basmati rice', exact: true }).waitFor(WAIT);
    await page.getByText('≈1.5 kg · the big bag').waitFor(WAIT);
  });

  it('edits the catalog offline; the edits reach the server once back online', async () => {
    const login = await request(app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    const serverCatalog = async () => {
      const opts = { token: login.body.accessToken as string };
      const products = (await request(app, 'GET', '/api/products?limit=200', opts)).body as any[];
      const units = (await request(app, 'GET', '/api/units', opts)).body as any[];
      return { products, units };
    };
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('button', { name: `Edit ${shared}` }).waitFor(WAIT);
    const status = page.getByRole('status');
    await ctx.setOffline(true);
    await waitUntil(async () => /Offline/.test((await status.textContent()) ?? ''));

    // A family product, a change to a shared product, a new unit, and a unit in use kept.
    await page.getByRole('textbox', { name: 'New product' }).fill('Oat drink');
    await page.getByRole('checkbox', { name: 'Volume' }).check();
    await page.getByRole('button', { name: 'Add product' }).click();
    await page.getByRole('button', { name: 'Edit Oat drink' }).waitFor(WAIT);
    await page.getByRole('button', { name: `Edit ${shared}` }).click();
    await page.getByRole('textbox', { name: 'Product name' }).fill('Our fruit');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByRole('button', { name: 'Edit Our fruit' }).waitFor(WAIT);
    await page.getByRole('textbox', { name: 'Unit name' }).fill('Sprig');
    await page.getByRole('textbox', { name: 'Abbreviation' }).fill(unique('sp').slice(0, 12));
    await page.getByRole('button', { name: 'Add unit' }).click();
    await page.getByRole('button', { name: 'Delete Sprig' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Delete Handful' }).click();
    await page.getByRole('alert').waitFor(WAIT);
    expect(await page.getByRole('alert').textContent()).to.contain('Handful cannot be deleted');
    await waitUntil(async () => /\d+ changes? waiting/.test((await status.textContent()) ?? ''));
    const before = await serverCatalog();
    expect(before.products.map((p) => p.name)).to.not.include.members(['Oat drink', 'Our fruit']);
    expect(before.units.map((u) => u.name)).to.not.include('Sprig');

    // Back online: the server has them, and nothing waits any more.
    await ctx.setOffline(false);
    await waitUntil(async () => {
      const { products, units } = await serverCatalog();
      const ours = products.find((p) => p.name === 'Our fruit');
      return (
        products.some(
          (p) => p.name === 'Oat drink' && p.kind === 'family' && p.unitCategoryFlags.join() === 'Volume',
        ) &&
        ours?.kind === 'global' &&
        ours.overridden === true &&
        units.some((u) => u.name === 'Sprig') &&
        units.some((u) => u.name === 'Handful')
      );
    });
    await waitUntil(async () => ((await status.textContent()) ?? '').trim() === '');
    await expectAccessible(page, 'catalog after offline edits');

    // Offline again: undo the change to the shared product (the device saw it unchanged) and
    // delete Sprig, which another member puts on a list meanwhile.
    await ctx.setOffline(true);
    await waitUntil(async () => /Offline/.test((await status.textContent()) ?? ''));
    await page.getByRole('button', { name: 'Edit Our fruit' }).click();
    await page.getByRole('button', { name: 'Undo our changes' }).click();
    await page.getByRole('button', { name: `Edit ${shared}` }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Delete Sprig' }).click();
    await page.getByRole('button', { name: 'Delete Sprig' }).waitFor({ state: 'detached', ...WAIT });
    const token = { token: login.body.accessToken as string };
    const sprig = (await serverCatalog()).units.find((u) => u.name === 'Sprig');
    const herbs = (await request(app, 'POST', '/api/lists', { ...token, body: { name: 'Herbs' } })).body;
    const mint = { name: 'Mint', quantity: 1, familyUnitOfMeasureId: sprig.id };
    expect((await request(app, 'POST', `/api/lists/${herbs.id}/items`, { ...token, body: mint })).status).to.equal(201);

    // Back online: the override is gone on the server; the deletion is refused there, so Sprig
    // comes back and the page says why.
    await ctx.setOffline(false);
    await waitUntil(async () =>
      (await serverCatalog()).products.some((p) => p.name === shared && p.overridden === false),
    );
    await page.getByRole('button', { name: 'Delete Sprig' }).waitFor(WAIT);
    await page.getByText('Sprig cannot be deleted: it is used by a list item').waitFor(WAIT);
    expect((await serverCatalog()).units.map((u) => u.name)).to.include('Sprig');

    // A unit in use can still be renamed, offline too.
    await ctx.setOffline(true);
    await waitUntil(async () => /Offline/.test((await status.textContent()) ?? ''));
    await page.getByRole('button', { name: 'Edit Sprig' }).click();
    await page.getByRole('textbox', { name: 'Name of Sprig' }).fill('Twig');
    await page.getByRole('button', { name: 'Save unit' }).click();
    await page.getByRole('button', { name: 'Delete Twig' }).waitFor(WAIT);
    await ctx.setOffline(false);
    await waitUntil(async () => (await serverCatalog()).units.some((u) => u.id === sprig.id && u.name === 'Twig'));
  });

  it('renames a list, archives it and brings it back', async () => {
    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('link', { name: /^Weekly/ }).click();
    await page.getByText('List settings').click();
    await page.getByRole('textbox', { name: 'List name' }).fill('Weekly shop');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { level: 1, name: 'Weekly shop' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('textbox', { name: 'New list' }).waitFor(WAIT);
    // The lists page may paint before the archive reaches its query: wait for the link to go.
    await page.getByRole('link', { name: /^Weekly shop/ }).waitFor({ ...WAIT, state: 'detached' });
    await page.getByRole('button', { name: 'Show archived lists' }).click();
    await page.getByRole('button', { name: 'Unarchive Weekly shop' }).click();
    await page.getByRole('button', { name: 'Show current lists' }).click();
    await page.getByRole('link', { name: /^Weekly shop/ }).waitFor(WAIT);
  });

  it('lets the admin rename the family, make a new invite code and revoke an invitation', async () => {
    page.on('dialog', (d) => void d.accept());
    await page.getByRole('link', { name: 'Family' }).click();
    const code = (await page.getByLabel('Invite code').textContent())!.trim();
    await page.getByRole('button', { name: 'New invite code' }).click();
    await waitUntil(async () => ((await page.getByLabel('Invite code').textContent()) ?? code).trim() !== code);
    await page.getByRole('textbox', { name: 'Family name' }).fill('The Cooks');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { level: 2, name: 'The Cooks' }).waitFor(WAIT);
    await page.getByRole('link', { name: 'The Cooks' }).waitFor(WAIT); // the header follows
    const guest = `${unique('guest')}@example.com`;
    await page.getByRole('textbox', { name: 'Invite by email' }).fill(guest);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('button', { name: `Resend to ${guest}` }).click();
    await smtp.waitFor(guest, 2, 20_000);
    await page.getByRole('button', { name: `Revoke ${guest}` }).click();
    await page.getByRole('button', { name: `Revoke ${guest}` }).waitFor({ state: 'detached', ...WAIT });
    await expectAccessible(page, 'family');

    // Installable: the manifest names the app and its icons, which are PNGs of those sizes.
    const manifest = await (await page.request.get(`${app.url}/manifest.webmanifest`)).json();
    expect(manifest.display).to.equal('standalone');
    const sizes = manifest.icons.map((i: { sizes: string }) => i.sizes);
    expect(sizes).to.include.members(['192x192', '512x512']);
    for (const icon of manifest.icons) {
      const res = await page.request.get(app.url + icon.src);
      expect(res.headers()['content-type']).to.equal('image/png');
      const png = await res.body();
      expect(png.readUInt32BE(16)).to.equal(Number(icon.sizes.split('x')[0]));
    }
  });

  it('changes the user name and password, and confirms the email through the emailed link', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    const name = unique('Dora');
    await page.getByRole('textbox', { name: 'User name' }).fill(name);
    await page.getByRole('button', { name: 'Save user name' }).click();
    await page.getByText('User name saved.').waitFor(WAIT);
    await page.getByRole('heading', { name }).waitFor(WAIT);

    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('another good secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor(WAIT);
    await expectAccessible(page, 'account');

    await page.getByRole('button', { name: 'Send confirmation email' }).click();
    const mail = await smtp.waitFor(email, 1, 20_000);
    const other = await ctx.newPage();
    await other.goto(app.url + linkPath(mail.text, 'confirm-email'));
    await other.getByText('Email confirmed').waitFor(WAIT);
    await expectAccessible(other, 'confirm email');
    await other.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    await signIn(page, app.url, email, 'another good secret');
  });
});
