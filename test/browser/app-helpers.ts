// Helpers of the web app's browser tests: a real server on port 0 serving web/dist, the SMTP
// sink for emailed links, and an axe-core check of the page as it stands.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { WEB_DIST } from '../../server/web/static.js';

const require = createRequire(import.meta.url);

export function requireBuiltApp(): void {
  if (!existsSync(`${WEB_DIST}/index.html`))
    throw new Error('web/dist is missing: run npm run build (npm run test:browser does)');
}

export const PASSWORD = 'correct horse battery';

/** A name on the home network: Chromium launched with LAN_BROWSER_ARGS resolves it to
 * 127.0.0.1, so `lanUrl(app)` is plain http on a non-localhost name (not a secure context). */
export const LAN_HOST = 'family.lan';
export const LAN_BROWSER_ARGS = [`--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`];
export const lanUrl = (app: { url: string }): string => `http://${LAN_HOST}:${new URL(app.url).port}`;

let n = 0;
export function unique(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** The path of the first link to this app in an email (the server's APP_BASE_URL may differ). */
export function linkPath(text: string, kind: 'invite' | 'reset-password' | 'confirm-email'): string {
  const m = text.match(new RegExp(`https?://[^\\s"'<>]+(/${kind}/[A-Za-z0-9_-]+)`));
  if (!m) throw new Error(`no /${kind}/ link in: ${text}`);
  return m[1]!;
}

/** Runs axe-core in the page; fails on any serious or critical violation. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    // Evaluated, not a <script> tag: the app's Content-Security-Policy allows no inline script.
    await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  }
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((x) => x.target.join(' ')).join(', ')}`);
  });
  expect(violations, `axe on ${what}`).to.deep.equal([]);
}

/** Registers through the app's register page; lands on the lists page. */
export async function registerInApp(
  page: Page,
  baseUrl: string,
  who: { email: string; userName: string; familyCode?: string; newFamilyName?: string },
): Promise<void> {
  await page.goto(`${baseUrl}/register`);
  await page.getByRole('textbox', { name: 'Email' }).fill(who.email);
  await page.getByRole('textbox', { name: 'User name' }).fill(who.userName);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  if (who.newFamilyName) {
    await page.getByRole('checkbox', { name: 'Start a new family instead' }).check();
    await page.getByRole('textbox', { name: 'Family name' }).fill(who.newFamilyName);
  } else {
    await page.getByRole('textbox', { name: 'Family code' }).fill(who.familyCode!);
  }
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('textbox', { name: 'New list' }).waitFor();
}

export async function signIn(page: Page, baseUrl: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'New list' }).waitFor();
}

/** Polls `check` until it holds (a generous deadline tells an answer from a hang). */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}
