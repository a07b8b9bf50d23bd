// The web app's account pages in real Chromium at phone size: register a new family, sign out
// and in, invite a relative by email who joins through the emailed link, reset a forgotten
// password through the emailed link, account and family pages. Elements are found by the
// accessible names of contract §9; every page passes axe-core with no serious violation.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, phoneContext } from '../helpers/browser.js';
import { startTestApp } from '../helpers/app.js';
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

describe('web app: accounts, invitations, password reset', function () {
  this.timeout(180_000);
  let app: RunningServer;
  let smtp: SmtpSink;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    requireBuiltApp();
    smtp = await startSmtpSink();
    app = await startTestApp({ envOverrides: { SMTP_URL: smtp.url } });
    browser = await launchBrowser();
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await app?.close();
    await smtp?.close();
  });

  async function newPage(): Promise<Page> {
    const ctx = await phoneContext(browser);
    contexts.push(ctx);
    return ctx.newPage();
  }

  it('registers a new family, signs out and in; an invited relative joins through the emailed link', async () => {
    const ann = { email: `${unique('ann')}@example.com`, userName: unique('Ann'), newFamilyName: 'The Testers' };
    const page = await newPage();
    await page.goto(`${app.url}/`);
    await page.waitForURL(/\/login/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await expectAccessible(page, 'sign in');
    await page.goto(`${app.url}/register`);
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    await expectAccessible(page, 'register');
    await registerInApp(page, app.url, ann);
    await expectAccessible(page, 'lists');

    // The family page: the invite code every member can share; the admin invites by email.
    await page.getByRole('link', { name: 'Family' }).click();
    await page.getByRole('heading', { name: 'The Testers' }).waitFor();
    const code = (await page.getByLabel('Invite code').textContent())!.trim();
    expect(code).to.have.length.greaterThan(4);
    await expectAccessible(page, 'family');
    const bob = `${unique('bob')}@example.com`;
    await page.getByRole('textbox', { name: 'Invite by email' }).fill(bob);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${bob}.`).waitFor();
    await page.getByRole('button', { name: `Revoke ${bob}` }).waitFor();

    const mail = await smtp.waitFor(bob, 1, 20_000);
    const invitePath = linkPath(mail.text, 'invite');
    const bobPage = await newPage();
    await bobPage.goto(app.url + invitePath);
    await bobPage.getByText('The Testers').waitFor();
    await bobPage.getByText(bob).waitFor();
    expect(await bobPage.getByRole('textbox', { name: 'Family code' }).count()).to.equal(0);
    expect(await bobPage.getByRole('textbox', { name: 'Email' }).inputValue()).to.equal(bob);
    await expectAccessible(bobPage, 'invite');
    const bobName = unique('Bob');
    await bobPage.getByRole('textbox', { name: 'User name' }).fill(bobName);
    await bobPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await bobPage.getByRole('button', { name: 'Create account' }).click();
    await bobPage.getByRole('textbox', { name: 'New list' }).waitFor();
    expect(await bobPage.getByRole('link', { name: 'The Testers' }).count()).to.equal(1);

    // The admin sees the new member; members see the code but no admin controls.
    await page.reload();
    await page.getByText(bob).first().waitFor();
    await bobPage.getByRole('link', { name: 'Family' }).click();
    await bobPage.getByLabel('Invite code').waitFor();
    expect((await bobPage.getByLabel('Invite code').textContent())!.trim()).to.equal(code);
    expect(await bobPage.getByRole('button', { name: 'New invite code' }).count()).to.equal(0);

    // Roles and removal: the removed member's app drops the family's data and says why.
    await page.getByRole('link', { name: 'Family' }).click();
    await page.getByLabel(`Role of ${bobName}`).selectOption('admin');
    await waitUntil(async () => (await page.getByLabel(`Role of ${bobName}`).inputValue()) === 'admin');
    await page.getByLabel(`Role of ${bobName}`).selectOption('member');
    await waitUntil(async () => (await page.getByLabel(`Role of ${bobName}`).inputValue()) === 'member');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Remove ${bobName}` }).click();
    await page.getByText(`${bobName} was removed.`).waitFor();
    await bobPage.getByText('You are no longer a member of this family.').waitFor({ timeout: 60_000 });
    await bobPage.getByRole('button', { name: 'Sign in' }).waitFor();

    // Account: change the user name, sign out, sign in again.
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await expectAccessible(page, 'account');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signIn(page, app.url, ann.email);
  });

  /** An admin's page and an invitee who joined through the emailed link (email confirmed). */
  async function invitedMember(familyName: string) {
    const admin = await newPage();
    await registerInApp(admin, app.url, {
      email: `${unique('adm')}@example.com`,
      userName: unique('Adm'),
      newFamilyName: familyName,
    });
    await admin.getByRole('link', { name: 'Family' }).click();
    const email = `${unique('cat')}@example.com`;
    await admin.getByRole('textbox', { name: 'Invite by email' }).fill(email);
    await admin.getByRole('button', { name: 'Send invitation' }).click();
    const mail = await smtp.waitFor(email, 1, 20_000);
    const page = await newPage();
    await page.goto(app.url + linkPath(mail.text, 'invite'));
    await page.getByRole('textbox', { name: 'User name' }).fill(unique('Cat'));
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('textbox', { name: 'New list' }).waitFor();
    return { admin, page, email };
  }

  it('resets a forgotten password through the emailed link', async () => {
    const { page, email } = await invitedMember('Cats');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();

    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('button', { name: 'Send reset link' }).waitFor();
    await expectAccessible(page, 'forgot password');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    const mail = await smtp.waitFor(email, 2, 20_000); // after the invitation
    await page.goto(app.url + linkPath(mail.text, 'reset-password'));
    await page.getByRole('button', { name: 'Set password' }).waitFor();
    await expectAccessible(page, 'reset password');
    await page.getByRole('textbox', { name: 'New password' }).fill('a brand new secret');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set.').waitFor();

    await page.goto(`${app.url}/login`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await signIn(page, app.url, email, 'a brand new secret');
  });
});
