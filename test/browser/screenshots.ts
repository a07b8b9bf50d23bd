// `npm run screenshots`: phone-size PNGs of the app's main pages into docs/screenshots/, from
// a fresh in-memory server with a small family seeded over REST. Needs web/dist (npm run build)
// and Chromium (test/helpers/browser.ts). Names as arguments shoot only those
// (`npm run screenshots -- lan-notice`).
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { startTestApp, request } from '../helpers/app.js';
import { seedProductNames, seedStapleProducts } from '../../server/startup/jobs.js';
import { LAN_BROWSER_ARGS, PASSWORD, lanUrl, requireBuiltApp } from './app-helpers.js';
import { LOCALES, type Locale } from '@family-shopping/client/protocol';

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const only = process.argv.slice(2);

requireBuiltApp();
await mkdir(OUT, { recursive: true });
const app = await startTestApp();
// The staple catalog with its categories, as a server outside tests seeds it at startup.
await seedStapleProducts(app.deps.db);
await seedProductNames(app.deps.db);
const browser = await launchBrowser(LAN_BROWSER_ARGS);
try {
  const reg = await request(app, 'POST', '/api/auth/register', {
    body: { email: 'ann@example.com', userName: 'Ann', password: PASSWORD, newFamilyName: 'The Millers' },
  });
  const token = reg.body.accessToken as string;
  const api = async (method: string, p: string, body?: unknown) =>
    (await request(app, method, p, { token, body })).body;
  const store = await api('POST', '/api/stores', { name: 'Corner Market' });
  const units = (await api('GET', '/api/units')) as { id: string; code: string | null }[];
  const unit = (code: string) => units.find((u) => u.code === code)?.id ?? null;
  const product = async (name: string): Promise<string> => {
    const found = (await api('GET', `/api/products?q=${encodeURIComponent(name)}`)) as { id: string; name: string }[];
    return found.find((p) => p.name === name)!.id;
  };
  // Last week's shop, done and cleared: what the family buys feeds the suggestions.
  const lastWeek = await api('POST', '/api/lists', { name: 'Last week', storeId: store.id });
  for (const [name, extra] of [
    ['Milk', { quantity: 2, unitOfMeasureId: unit('liter') }],
    ['Bananas', { quantity: 6 }],
    ['Bread', {}],
    ['Eggs', { quantity: 12 }],
    ['Butter', {}],
    ['Coffee', { quantityNote: 'whole beans' }],
    ['Yogurt', { quantity: 4 }],
    ['Pasta', {}],
    ['Apples', { quantity: 1, unitOfMeasureId: unit('kilogram') }],
    ['Toilet Paper', {}],
  ] as const) {
    const it = await api('POST', `/api/lists/${lastWeek.id}/items`, { productId: await product(name), ...extra });
    await api('POST', `/api/lists/${lastWeek.id}/items/${it.id}/toggle`);
  }
  await api('POST', `/api/lists/${lastWeek.id}/clear-checked`);
  await api('POST', `/api/lists/${lastWeek.id}/archive`);
  // This week's list: catalog products placed in their sections by category, from day one.
  const list = await api('POST', '/api/lists', { name: 'Groceries', storeId: store.id });
  await api('POST', '/api/lists', { name: 'Hardware store' });
  const items = [
    { productId: await product('Bananas'), quantity: 6 },
    { productId: await product('Spinach'), quantityNote: 'baby leaves' },
    { productId: await product('Bread'), name: 'Sourdough bread' },
    { productId: await product('Milk'), quantity: 2, unitOfMeasureId: unit('liter') },
    { productId: await product('Eggs'), quantity: 12 },
    {
      productId: await product('Cheddar Cheese'),
      name: 'Cheddar',
      quantity: 300,
      unitOfMeasureId: unit('gram'),
      isApproximate: true,
    },
    { name: 'Birthday candles' },
  ];
  const added = [];
  for (const it of items) added.push(await api('POST', `/api/lists/${list.id}/items`, it));
  await api('POST', `/api/lists/${list.id}/items/${added[0].id}/toggle`);
  await api('POST', `/api/lists/${list.id}/items/${added[3].id}/toggle`);
  // A new list, the morning after: two items so far, the rest one tap away.
  const fresh = await api('POST', '/api/lists', { name: 'Saturday', storeId: store.id });
  await api('POST', `/api/lists/${fresh.id}/items`, { productId: await product('Bananas'), quantity: 6 });
  await api('POST', `/api/lists/${fresh.id}/items`, { productId: await product('Bread') });
  const recipe = await api('POST', '/api/recipes', {
    name: 'Pancakes',
    servings: 4,
    instructions: 'Whisk, rest 10 minutes, fry.',
    ingredients: [
      { name: 'Flour', quantity: 250, unitOfMeasureId: unit('gram') },
      { name: 'Milk', quantity: 0.5, unitOfMeasureId: unit('liter') },
      { name: 'Eggs', quantity: 2 },
    ],
  });
  await api('POST', '/api/family/invites', { email: 'grandma@example.com' });
  await api('POST', '/api/products', { name: 'Oat drink', unitCategoryFlags: ['Volume'] });
  await api('POST', '/api/products', { name: 'Sourdough starter', unitCategoryFlags: ['Weight'] });
  await api('POST', '/api/units', { name: 'Handful', abbreviation: 'hf', category: 'Count' });

  // A page just loaded may say "Offline" or count changes until its first sync settles.
  const snap = async (page: Page, name: string, signedIn: boolean) => {
    if (signedIn)
      await page
        .waitForFunction(() => (document.querySelector('[role=status]')?.textContent ?? '').trim() === '', undefined, {
          timeout: 15_000,
        })
        .catch(() => undefined);
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(OUT, `${name}.png`) });
    console.log(`docs/screenshots/${name}.png`);
  };
  const shoot = async (
    scheme: 'light' | 'dark',
    pages: [string, string, string?, 'centre'?][],
    signedIn: boolean,
    base = app.url,
  ) => {
    pages = pages.filter(([name]) => only.length === 0 || only.includes(name));
    if (pages.length === 0) return;
    const ctx = await phoneContext(browser, { deviceScaleFactor: 1, colorScheme: scheme });
    const page = await ctx.newPage();
    if (signedIn) {
      await page.goto(`${base}/login`);
      await page.getByRole('textbox', { name: 'Email' }).fill('ann@example.com');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('textbox', { name: 'New list' }).waitFor();
    }
    for (const [name, p, waitText, centre] of pages) {
      await page.goto(base + p);
      if (waitText) await page.getByText(waitText).first().waitFor({ timeout: 20_000 });
      if (centre)
        await page
          .getByText(waitText!)
          .first()
          .evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await snap(page, name, signedIn);
    }
    await ctx.close();
  };
  await shoot(
    'light',
    [
      ['sign-in', '/login', 'Forgot your password?'],
      ['register', '/register', 'Create account'],
    ],
    false,
  );
  await shoot(
    'light',
    [
      ['lists', '/', 'Groceries'],
      ['list', `/lists/${list.id}`, 'Sourdough bread'],
      ['list-suggestions', `/lists/${fresh.id}`, 'Suggestions'],
      ['stores', '/stores', 'Corner Market'],
      ['recipe', `/recipes/${recipe.id}`, 'Copy to a list'],
      ['recipe-copy', `/recipes/${recipe.id}`, 'Combine with items on the list', 'centre'],
      ['catalog', '/catalog', 'Units'],
      ['family', '/family', 'grandma@example.com'],
      ['account', '/account', 'Change password'],
    ],
    true,
  );
  await shoot(
    'dark',
    [
      ['list-dark', `/lists/${list.id}`, 'Sourdough bread'],
      ['list-suggestions-dark', `/lists/${fresh.id}`, 'Suggestions'],
    ],
    true,
  );
  // The list page in each language (contract §12), for a family of that language: its store's
  // default sections and the catalog's names follow the family's locale, the app the user's.
  const names: Record<Locale, [store: string, list: string]> = {
    en: ['Corner Market', 'Groceries'],
    de: ['Markt an der Ecke', 'Wocheneinkauf'],
    fr: ['Épicerie du coin', 'Courses de la semaine'],
    es: ['Tienda de la esquina', 'Compras de la semana'],
    'pt-BR': ['Mercadinho da esquina', 'Compras da semana'],
  };
  for (const locale of LOCALES) {
    const name = `list-${locale}`;
    if (only.length > 0 && !only.includes(name)) continue;
    const email = `ann-${locale.toLowerCase()}@example.com`;
    const r = await request(app, 'POST', '/api/auth/register', {
      body: { email, userName: `Ann ${locale}`, password: PASSWORD, newFamilyName: 'Miller' },
    });
    const call = async (method: string, p: string, body?: unknown) =>
      (await request(app, method, p, { token: r.body.accessToken as string, body })).body;
    await call('PATCH', '/api/family', { locale });
    await call('PATCH', '/api/me', { locale });
    const [storeName, listName] = names[locale];
    const shop = await call('POST', '/api/stores', { name: storeName });
    const weekly = await call('POST', '/api/lists', { name: listName, storeId: shop.id });
    // The English names find the staples in every language (search also matches them).
    const staple = async (english: string): Promise<string> =>
      ((await call('GET', `/api/products?q=${encodeURIComponent(english)}`)) as { id: string }[])[0]!.id;
    const rows = [
      { productId: await staple('Bananas'), quantity: 6 },
      { productId: await staple('Apples'), quantity: 1.5, unitOfMeasureId: unit('kilogram') },
      { productId: await staple('Bread') },
      { productId: await staple('Milk'), quantity: 2, unitOfMeasureId: unit('liter') },
      { productId: await staple('Eggs'), quantity: 12 },
      { productId: await staple('Toilet Paper') },
    ];
    const made = [];
    for (const it of rows) made.push(await call('POST', `/api/lists/${weekly.id}/items`, it));
    await call('POST', `/api/lists/${weekly.id}/items/${made[0].id}/toggle`);
    const messages = JSON.parse(
      await readFile(new URL(`../../web/src/locales/${locale}.json`, import.meta.url), 'utf8'),
    ) as Record<string, string>;
    const ctx = await phoneContext(browser, { deviceScaleFactor: 1, locale });
    const page = await ctx.newPage();
    await page.goto(`${app.url}/login`);
    await page.getByRole('textbox', { name: messages['auth.email'] }).fill(email);
    await page.getByLabel(messages['auth.password']!, { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: messages['auth.signIn'] }).click();
    await page.getByRole('textbox', { name: messages['lists.new'] }).waitFor();
    await page.goto(`${app.url}/lists/${weekly.id}`);
    await page
      .getByText(made[2].name as string)
      .first()
      .waitFor({ timeout: 20_000 });
    await snap(page, name, true);
    await ctx.close();
  }
  // Over plain http on a home network (contract §11): the Account page's one notice.
  await shoot('light', [['lan-notice', '/account', 'Opened over plain HTTP', 'centre']], true, lanUrl(app));
} finally {
  await browser.close();
  await app.close();
}
