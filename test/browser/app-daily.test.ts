// The daily loop in the web app (contract §10), in real Chromium at phone size, as a new family:
// a new store and a list tied to it; Milk, Bananas and Bread picked from the catalog land in
// their sections from day one (the add form's section picker says so before adding); after the
// shop "Clear checked items" empties the list and "Undo" brings everything back; the next list
// offers what the family buys in its "Suggestions" region, one tap adding it as last added; a
// recipe for 4 copied for 8 with "Combine with items on the list" adds its doubled milk to the
// milk already there. A section's category is chosen on the Stores page, a family product's
// on the Catalog page ("Aisle"). The server's views (REST) agree; every page passes axe-core.
import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { request, startTestApp } from '../helpers/app.js';
import type { RunningServer } from '../../server/server.js';
import { seedStapleProducts } from '../../server/startup/jobs.js';
import { PASSWORD, expectAccessible, registerInApp, requireBuiltApp, unique, waitUntil } from './app-helpers.js';

const WAIT = { timeout: 30_000 };

/** The level-2 section headings of the list page, in order. */
const headings = (page: Page) => page.locator('main h2').allTextContents();
const item = (page: Page, name: string) => page.getByRole('checkbox', { name, exact: true });
const group = (page: Page, section: string) =>
  page.locator('section', { has: page.getByRole('heading', { level: 2, name: section, exact: true }) });
const selectedLabel = (select: Locator) =>
  select.evaluate((e) => (e as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');

interface ItemView {
  id: string;
  name: string;
  quantity: number | null;
  unitOfMeasureId: string | null;
  sectionId: string | null;
  checked: boolean;
}
interface DetailView {
  groups: { sectionId: string | null; name: string; items: ItemView[] }[];
}

describe('web app: the daily loop', function () {
  this.timeout(300_000);
  let app: RunningServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let token: string;

  before(async () => {
    requireBuiltApp();
    app = await startTestApp();
    // The staple catalog with its categories, as a server outside tests seeds it at startup.
    await seedStapleProducts(app.deps.db);
    browser = await launchBrowser();
    ctx = await phoneContext(browser);
    page = await ctx.newPage();
    const email = `${unique('dana')}@example.com`;
    await registerInApp(page, app.url, { email, userName: unique('Dana'), newFamilyName: 'Daily' });
    const login = await request(app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    expect(login.status).to.equal(200);
    token = login.body.accessToken as string;
  });
  after(async () => {
    await ctx?.close().catch(() => undefined);
    await browser?.close();
    await app?.close();
  });

  const api = async <T>(path: string): Promise<T> => {
    const r = await request<T>(app, 'GET', path, { token });
    expect(r.status, path).to.equal(200);
    return r.body;
  };
  /** The server's list detail, once `check` holds for it (the app's writes replicate). */
  const serverDetail = async (listId: string, check: (d: DetailView) => boolean): Promise<DetailView> => {
    let detail: DetailView | null = null;
    await waitUntil(async () => check((detail = await api<DetailView>(`/api/lists/${listId}`))));
    return detail!;
  };
  const listIdOfPage = () => new URL(page.url()).pathname.split('/').pop()!;

  async function newList(name: string): Promise<string> {
    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('textbox', { name: 'New list' }).fill(name);
    await page.getByLabel('Store for the new list').selectOption({ label: 'Corner Market' });
    await page.getByRole('button', { name: 'Add list' }).click();
    await page.getByRole('link', { name: new RegExp(`^${name}`) }).click();
    await page.getByRole('textbox', { name: 'Add item' }).waitFor(WAIT);
    return listIdOfPage();
  }

  /** Types the start of a catalog product's name and picks the product from the matches. */
  async function pickProduct(typed: string, product: string): Promise<void> {
    await page.getByRole('textbox', { name: 'Add item' }).fill(typed);
    await page
      .getByRole('list', { name: 'Matching products' })
      .getByRole('button', { name: product, exact: true })
      .click();
  }

  let firstList: string;

  it('places catalog products in their sections from day one; a section’s category is chosen on Stores', async () => {
    await page.getByRole('link', { name: 'Stores' }).click();
    await page.getByRole('textbox', { name: 'New store' }).fill('Corner Market');
    await page.getByRole('button', { name: 'Add store' }).click();
    const dairy = page.getByRole('combobox', { name: 'Category of Dairy & Eggs' });
    await dairy.waitFor(WAIT);
    expect(await selectedLabel(dairy)).to.equal('Dairy & Eggs');
    const personal = page.getByRole('combobox', { name: 'Category of Personal Care' });
    expect(await personal.locator('option').allTextContents()).to.deep.equal([
      'None',
      'Produce',
      'Bakery',
      'Meat & Seafood',
      'Deli',
      'Dairy & Eggs',
      'Frozen',
      'Pantry',
      'Snacks',
      'Beverages',
      'Household',
      'Personal Care',
    ]);
    // A section of one's own gets a category.
    await page.getByRole('textbox', { name: 'New section' }).fill('Flowers');
    await page.getByRole('button', { name: 'Add section' }).click();
    const flowers = page.getByRole('combobox', { name: 'Category of Flowers' });
    await flowers.waitFor(WAIT);
    expect(await selectedLabel(flowers)).to.equal('None');
    await flowers.selectOption({ label: 'Household' });
    await expectAccessible(page, 'stores with categories');

    firstList = await newList('Weekly');
    const detail = await api<{ storeId: string }>(`/api/lists/${firstList}`);
    await waitUntil(async () => {
      const store = await api<{ sections: { name: string; category: string | null }[] }>(
        `/api/stores/${detail.storeId}`,
      );
      return store.sections.find((s) => s.name === 'Flowers')?.category === 'household';
    });

    // Milk: the picker shows Dairy & Eggs before the item is added; with 2 liters.
    await pickProduct('mil', 'Milk');
    const section = page.getByRole('combobox', { name: 'Section' });
    await waitUntil(async () => (await selectedLabel(section)) === 'Dairy & Eggs');
    await page.getByText('Quantity, unit and note').click();
    await page.getByRole('spinbutton', { name: 'Quantity' }).fill('2');
    await page.getByRole('combobox', { name: 'Unit' }).selectOption({ label: 'Liter (l)' });
    await expectAccessible(page, 'add form with its section picker');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await group(page, 'Dairy & Eggs').getByRole('checkbox', { name: 'Milk', exact: true }).waitFor(WAIT);
    await page.getByText('Quantity, unit and note').click();

    for (const [typed, product, where] of [
      ['banan', 'Bananas', 'Produce'],
      ['brea', 'Bread', 'Bakery'],
    ] as const) {
      await pickProduct(typed, product);
      await waitUntil(async () => (await selectedLabel(section)) === where);
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await group(page, where).getByRole('checkbox', { name: product, exact: true }).waitFor(WAIT);
    }
    expect(await headings(page)).to.deep.equal(['Produce', 'Bakery', 'Dairy & Eggs']);
    // The server placed them alike.
    const server = await serverDetail(firstList, (d) => d.groups.reduce((n, g) => n + g.items.length, 0) === 3);
    expect(server.groups.map((g) => [g.name, g.items.map((i) => i.name)])).to.deep.equal([
      ['Produce', ['Bananas']],
      ['Bakery', ['Bread']],
      ['Dairy & Eggs', ['Milk']],
    ]);
    await expectAccessible(page, 'list placed by category');
  });

  it('clears the checked items after the shop, and Undo brings them all back', async () => {
    expect(await page.getByRole('button', { name: 'Clear checked items' }).count()).to.equal(0);
    for (const name of ['Milk', 'Bananas', 'Bread']) await item(page, name).check();
    await waitUntil(async () => {
      for (const name of ['Milk', 'Bananas', 'Bread']) if (!(await item(page, name).isChecked())) return false;
      return true;
    });
    await page.getByRole('button', { name: 'Clear checked items' }).click();
    for (const name of ['Milk', 'Bananas', 'Bread']) await item(page, name).waitFor({ state: 'detached', ...WAIT });
    expect(await page.getByRole('button', { name: 'Clear checked items' }).count()).to.equal(0);
    await serverDetail(firstList, (d) => d.groups.length === 0);
    await expectAccessible(page, 'list cleared, with Undo');

    await page.getByRole('button', { name: 'Undo' }).click();
    for (const name of ['Milk', 'Bananas', 'Bread']) await item(page, name).waitFor(WAIT);
    expect(await headings(page)).to.deep.equal(['Produce', 'Bakery', 'Dairy & Eggs']);
    expect(await item(page, 'Milk').isChecked()).to.equal(true);
    const back = await serverDetail(firstList, (d) => d.groups.reduce((n, g) => n + g.items.length, 0) === 3);
    expect(back.groups.flatMap((g) => g.items.map((i) => i.checked))).to.deep.equal([true, true, true]);

    await page.getByRole('button', { name: 'Clear checked items' }).click();
    for (const name of ['Milk', 'Bananas', 'Bread']) await item(page, name).waitFor({ state: 'detached', ...WAIT });
    await page.getByText('Nothing on this list yet.').waitFor(WAIT);
    await serverDetail(firstList, (d) => d.groups.length === 0);
  });

  let nextList: string;

  it('suggests on the next list what the family buys; one tap adds it as last added', async () => {
    nextList = await newList('Next week');
    const suggestions = page.getByRole('region', { name: 'Suggestions' });
    for (const name of ['Milk', 'Bananas', 'Bread'])
      await suggestions.getByRole('button', { name: `Add ${name}`, exact: true }).waitFor(WAIT);
    await expectAccessible(page, 'list with suggestions');

    await suggestions.getByRole('button', { name: 'Add Milk', exact: true }).click();
    const milk = group(page, 'Dairy & Eggs')
      .getByRole('listitem')
      .filter({ has: item(page, 'Milk') });
    await milk.waitFor(WAIT);
    expect((await milk.textContent())!).to.contain('2 l');
    await suggestions.getByRole('button', { name: 'Add Milk', exact: true }).waitFor({ state: 'detached', ...WAIT });
    expect(await suggestions.getByRole('button', { name: 'Add Bananas', exact: true }).count()).to.equal(1);

    // While a name is typed the product matches take the place of the suggestions.
    await page.getByRole('textbox', { name: 'Add item' }).fill('Ban');
    await suggestions.waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('textbox', { name: 'Add item' }).fill('');
    await suggestions.waitFor(WAIT);

    const server = await serverDetail(nextList, (d) => d.groups.length === 1);
    const [added] = server.groups[0]!.items;
    const liter = (await api<{ id: string; code: string | null }[]>('/api/units')).find((u) => u.code === 'liter')!;
    expect(added).to.include({ name: 'Milk', quantity: 2, unitOfMeasureId: liter.id });
    expect(server.groups[0]!.name).to.equal('Dairy & Eggs');

    // More than a handful: the region shows the server's default answer, in its order.
    const other = await request<{ id: string }>(app, 'POST', '/api/lists', { token, body: { name: 'Pantry run' } });
    expect(other.status).to.equal(201);
    for (let n = 1; n <= 12; n++) {
      for (let times = 0; times < (n % 3) + 1; times++) {
        const r = await request(app, 'POST', `/api/lists/${other.body.id}/items`, {
          token,
          body: { name: `Staple ${n}` },
        });
        expect(r.status).to.equal(201);
      }
    }
    const expected = (await api<{ name: string }[]>(`/api/lists/${nextList}/suggestions`)).map((s) => `Add ${s.name}`);
    expect(expected.length).to.be.greaterThan(8);
    await waitUntil(async () => (await suggestions.getByRole('button').count()) === expected.length);
    expect(
      await suggestions
        .getByRole('button')
        .evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? b.textContent)),
    ).to.deep.equal(expected);
  });

  it('copies a recipe for 4 for 8 people, combined with the milk already on the list', async () => {
    await page.getByRole('link', { name: 'Recipes' }).click();
    await page.getByRole('textbox', { name: 'New recipe' }).fill('Pancakes');
    await page.getByRole('button', { name: 'Add recipe' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pancakes' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Edit recipe' }).click();
    await page.getByRole('spinbutton', { name: 'Servings' }).fill('4');
    await page.getByRole('button', { name: 'Save recipe' }).click();
    await page.getByText('Serves 4').waitFor(WAIT);

    for (const [typed, product, quantity, unit] of [
      ['mil', 'Milk', '0.5', 'Liter (l)'],
      ['flou', 'Flour', '250', 'Gram (g)'],
    ] as const) {
      await page.getByRole('textbox', { name: 'Ingredient' }).fill(typed);
      await page
        .getByRole('list', { name: 'Matching products' })
        .getByRole('button', { name: product, exact: true })
        .click();
      await page.getByRole('spinbutton', { name: 'Quantity' }).fill(quantity);
      await page.getByRole('combobox', { name: 'Unit' }).selectOption({ label: unit });
      await page.getByRole('button', { name: 'Add ingredient' }).click();
      await page.getByRole('checkbox', { name: `Copy ${product}` }).waitFor(WAIT);
    }

    const servings = page.getByRole('spinbutton', { name: 'Servings' });
    expect(await servings.inputValue()).to.equal('4');
    const combine = page.getByRole('checkbox', { name: 'Combine with items on the list' });
    expect(await combine.isChecked()).to.equal(true);
    await expectAccessible(page, 'recipe with servings and combine');
    await servings.fill('8');
    await page.getByLabel('List', { exact: true }).selectOption({ label: 'Next week' });
    await page.getByRole('button', { name: 'Copy to list' }).click();
    await page.getByText('1 combined with an item on the list').waitFor(WAIT);
    await page.getByRole('link', { name: 'Open the list' }).click();

    // 2 l + 0.5 l × 8/4 = 3 l, on the one Milk item; Flour, 250 g × 2, new in Pantry.
    const flour = group(page, 'Pantry')
      .getByRole('listitem')
      .filter({ has: item(page, 'Flour') });
    await flour.waitFor(WAIT);
    expect((await flour.textContent())!).to.contain('500 g');
    const milk = group(page, 'Dairy & Eggs')
      .getByRole('listitem')
      .filter({ has: item(page, 'Milk') });
    await waitUntil(async () => ((await milk.textContent()) ?? '').includes('3 l'));
    expect(await item(page, 'Milk').count()).to.equal(1);

    const server = await serverDetail(nextList, (d) => d.groups.reduce((n, g) => n + g.items.length, 0) === 2);
    const all = server.groups.flatMap((g) => g.items);
    expect(all.find((i) => i.name === 'Milk')).to.include({ quantity: 3 });
    expect(all.find((i) => i.name === 'Flour')).to.include({ quantity: 500 });
    await expectAccessible(page, 'list after the combined copy');
  });

  it('places a family product by the aisle chosen for it in the catalog', async () => {
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('textbox', { name: 'New product' }).fill('Oat drink');
    await page.getByRole('combobox', { name: 'Aisle' }).selectOption({ label: 'Beverages' });
    await page.getByRole('button', { name: 'Add product' }).click();
    await page.getByRole('searchbox', { name: 'Search products' }).fill('oat');
    await page.getByRole('button', { name: 'Edit Oat drink' }).waitFor(WAIT);
    const row = page.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Edit Oat drink' }) });
    expect(await row.textContent()).to.contain('Beverages');
    await expectAccessible(page, 'catalog with aisles');

    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('link', { name: /^Next week/ }).click();
    await pickProduct('oat d', 'Oat drink');
    await waitUntil(async () => (await selectedLabel(page.getByRole('combobox', { name: 'Section' }))) === 'Beverages');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await group(page, 'Beverages').getByRole('checkbox', { name: 'Oat drink', exact: true }).waitFor(WAIT);
  });
});
