// The app in German (contract §12), in real Chromium at phone size with the browser's language
// set to de-DE: register, a list, a quantity typed as "1,5" and shown back so, the offline
// status with its plural forms, and the Account page's "Language" switching to English (kept
// with the user: it comes back after a reload and on another device). Elements are found by
// their German names: every word on screen comes from the catalogs.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { startTestApp } from '../helpers/app.js';
import type { RunningServer } from '../../server/server.js';
import { PASSWORD, expectAccessible, requireBuiltApp, unique, waitUntil } from './app-helpers.js';

const WAIT = { timeout: 30_000 };
const item = (page: Page, name: string) => page.getByRole('checkbox', { name, exact: true });
const status = (page: Page) => page.getByRole('status');
const statusText = async (page: Page) => ((await status(page).textContent()) ?? '').trim();

describe('web app: in German', function () {
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

  it('follows a German browser: register, a list, "1,5", offline plurals, then English by choice', async () => {
    const ctx = await phoneContext(browser, { locale: 'de-DE' });
    contexts.push(ctx);
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    // The browser's language, before any choice: the sign-up page speaks German.
    const email = `${unique('anna')}@example.com`;
    await page.goto(`${app.url}/register`);
    await page.getByRole('heading', { name: 'Konto erstellen' }).waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.lang)).to.equal('de');
    expect(await page.title()).to.equal('Konto erstellen · Family Shopping');
    await page.getByRole('textbox', { name: 'E-Mail' }).fill(email);
    await page.getByRole('textbox', { name: 'Benutzername' }).fill(unique('Anna'));
    await page.getByLabel('Passwort', { exact: true }).fill(PASSWORD);
    await page.getByRole('checkbox', { name: 'Stattdessen eine neue Familie gründen' }).check();
    await page.getByRole('textbox', { name: 'Name der Familie' }).fill('Familie Müller');
    await expectAccessible(page, 'register (de)');
    await page.getByRole('button', { name: 'Konto erstellen' }).click();

    // A list.
    await page.getByRole('textbox', { name: 'Neue Liste' }).fill('Wocheneinkauf');
    await page.getByRole('button', { name: 'Liste anlegen' }).click();
    await page.getByRole('link', { name: /^Wocheneinkauf/ }).waitFor(WAIT);
    expect(await page.getByText('0 von 0 abgehakt').count()).to.equal(1);
    await page.getByRole('link', { name: /^Wocheneinkauf/ }).click();
    await page.getByRole('textbox', { name: 'Artikel hinzufügen' }).waitFor(WAIT);
    await page.getByText('Noch nichts auf dieser Liste.').waitFor(WAIT);

    // A quantity typed in the German number format, shown back in it; the server has 1.5.
    await page.getByRole('textbox', { name: 'Artikel hinzufügen' }).fill('Milch');
    await page.getByText('Menge, Einheit und Notiz').click();
    await page.getByRole('spinbutton', { name: 'Menge' }).fill('1,5');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await item(page, 'Milch').waitFor(WAIT);
    const row = page.locator('li.item', { has: item(page, 'Milch') });
    expect((await row.locator('.item-amount').textContent())?.trim()).to.equal('1,5');
    await page.getByRole('heading', { level: 2, name: 'Ohne Bereich' }).waitFor(WAIT);
    const listId = new URL(page.url()).pathname.split('/').pop()!;
    await waitUntil(async () => {
      const detail = await api(page, `/api/lists/${listId}`);
      const items = (detail as { groups: { items: { name: string; quantity: number | null }[] }[] }).groups.flatMap(
        (g) => g.items,
      );
      return items.some((i) => i.name === 'Milch' && i.quantity === 1.5);
    });
    await page.getByRole('button', { name: 'Milch bearbeiten' }).click();
    const dialog = page.getByRole('dialog', { name: 'Milch bearbeiten' });
    expect(await dialog.getByRole('spinbutton', { name: 'Menge' }).inputValue()).to.equal('1,5');
    await dialog.getByRole('button', { name: 'Abbrechen' }).click();
    await expectAccessible(page, 'list (de)');

    // Offline: the status in German, one change and then several.
    await ctx.setOffline(true);
    await waitUntil(async () => (await statusText(page)) === 'Offline');
    await page.getByRole('textbox', { name: 'Artikel hinzufügen' }).fill('Brot');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await item(page, 'Brot').waitFor(WAIT);
    await waitUntil(async () => (await statusText(page)) === 'Offline · 1 Änderung wartet');
    await page.getByRole('textbox', { name: 'Artikel hinzufügen' }).fill('Butter');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await item(page, 'Butter').waitFor(WAIT);
    await waitUntil(async () => (await statusText(page)) === 'Offline · 2 Änderungen warten');
    await ctx.setOffline(false);
    await waitUntil(async () => (await statusText(page)) === '');

    // The Account page: "Language" (Sprache) to English switches the app at once.
    await page.getByRole('link', { name: 'Konto' }).click();
    const language = page.getByRole('combobox', { name: 'Sprache' });
    expect(await language.inputValue()).to.equal('');
    expect(await language.locator('option').allTextContents()).to.deep.equal([
      'Wie im Browser',
      'English',
      'Deutsch',
      'Français',
      'Español',
      'Português (Brasil)',
    ]);
    await expectAccessible(page, 'account (de)');
    await language.selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor(WAIT);
    await page.getByText('Language saved.').waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.lang)).to.equal('en');
    expect(await page.getByRole('combobox', { name: 'Language' }).inputValue()).to.equal('en');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Lists' }).waitFor(WAIT);
    const me = (await api(page, '/api/me')) as { user?: { locale?: string | null }; locale?: string | null };
    expect(me.user?.locale ?? me.locale).to.equal('en');

    // Kept across a reload and on another device with a German browser.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor(WAIT);
    const other = await phoneContext(browser, { locale: 'de-DE' });
    contexts.push(other);
    const phone = await other.newPage();
    await phone.goto(`${app.url}/login`);
    await phone.getByRole('heading', { name: 'Anmelden' }).waitFor(WAIT);
    await phone.getByRole('textbox', { name: 'E-Mail' }).fill(email);
    await phone.getByLabel('Passwort', { exact: true }).fill(PASSWORD);
    await phone.getByRole('button', { name: 'Anmelden' }).click();
    await phone.getByRole('textbox', { name: 'New list' }).waitFor(WAIT);
    await phone.getByRole('link', { name: /^Wocheneinkauf/ }).click();
    const milk = phone.locator('li.item', { has: item(phone, 'Milch') });
    expect((await milk.locator('.item-amount').textContent())?.trim()).to.equal('1.5');

    // Offline: the choice applies on this device at once and is saved when back online.
    await ctx.setOffline(true);
    await waitUntil(async () => (await statusText(page)) === 'Offline');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('de');
    await page.getByRole('heading', { level: 1, name: 'Konto' }).waitFor(WAIT);
    await page
      .getByText(
        'Sprache auf diesem Gerät geändert. Sie wird in deinem Konto gespeichert, sobald du wieder online bist.',
      )
      .waitFor(WAIT);
    await ctx.setOffline(false);
    await waitUntil(async () => ((await api(page, '/api/me')) as { user: { locale: unknown } }).user.locale === 'de');

    // Back to the browser's language ("Wie im Browser": null): German, as the browser is.
    await page.getByRole('combobox', { name: 'Sprache' }).selectOption('');
    await page.getByText('Sprache gespeichert.').waitFor(WAIT);
    expect(((await api(page, '/api/me')) as { user: { locale: unknown } }).user.locale).to.equal(null);
    expect(await page.evaluate(() => document.documentElement.lang)).to.equal('de');
    expect(errors).to.deep.equal([]);
  });
});

/** A GET of the REST API with the session the app keeps in localStorage. */
async function api(page: Page, path: string): Promise<unknown> {
  return page.evaluate(async (p) => {
    const session = JSON.parse(localStorage.getItem('family-shopping.session') ?? 'null') as {
      accessToken: string;
    } | null;
    const res = await fetch(p, { headers: { Authorization: `Bearer ${session?.accessToken ?? ''}` } });
    return res.json();
  }, path);
}
