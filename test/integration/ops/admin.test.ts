// `npm run admin -- COMMAND` (contract §11 "Administration") as a child process against the
// database of a running service: the embedded one in a DATA_DIR (the command goes through the
// service's control socket, and through the database itself once the service stopped), or
// PostgreSQL when DATABASE_URL is set.
import { expect } from 'chai';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { request, startTestApp } from '../../helpers/app.js';
import { usingPostgres } from '../../helpers/env.js';
import { registerViaApi } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { expectNoStack, pgliteUrl, runOps, tempDir } from './cli.js';

/** A table's columns line up: each starts where its heading does, after two spaces at least;
 *  no line ends in spaces. */
function expectColumns(text: string): void {
  const [head, ...rows] = text.trimEnd().split('\n');
  const starts = [...head!.matchAll(/\S+/g)].map((m) => m.index);
  expect(rows).to.not.be.empty;
  for (const row of [head!, ...rows]) {
    expect(row, 'no trailing spaces').to.equal(row.trimEnd());
    for (const at of starts.slice(1)) expect(row.slice(at - 2, at + 1), row).to.match(/^ {2}\S$/);
  }
}

describe('ops: npm run admin', function () {
  this.timeout(600_000);
  let app: RunningServer;
  let dir: string;
  let env: Record<string, string>;
  const admin = (...args: string[]) => runOps('admin', args, env);
  const uniq = () => crypto.randomBytes(4).toString('hex');
  const familyCode = async (owner: { body: { accessToken: string } }) =>
    (await request(app, 'GET', '/api/family', { token: owner.body.accessToken })).body.inviteCode as string;

  before(async () => {
    dir = tempDir('admin');
    const url = usingPostgres ? process.env.DATABASE_URL! : pgliteUrl(dir);
    env = { DATABASE_URL: url, APP_BASE_URL: 'http://app.test' };
    app = await startTestApp({ envOverrides: { DATABASE_URL: url } });
  });
  after(async () => {
    await app?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists users and families, creates a family whose code admits a new member', async () => {
    const familyName = `Admins ${uniq()}`;
    const owner = await registerViaApi(app, { newFamilyName: familyName });
    expect(owner.status).to.equal(201);
    const member = await registerViaApi(app, { familyCode: await familyCode(owner) });
    expect(member.status).to.equal(201);

    const users = await admin('users');
    expect(users.code, users.stderr).to.equal(0);
    const lines = users.stdout.split('\n');
    expect(lines[0]).to.match(/^EMAIL\s+NAME\s+FAMILY\s+ROLE\s+CREATED$/);
    const ownerLine = lines.find((l) => l.startsWith(`${owner.email} `));
    const memberLine = lines.find((l) => l.startsWith(`${member.email} `));
    expect(ownerLine).to.match(
      new RegExp(`${owner.userName}\\s+${familyName}\\s+admin\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`),
    );
    expect(memberLine).to.match(new RegExp(`${member.userName}\\s+${familyName}\\s+member\\s+`));
    // Oldest first.
    expect(lines.indexOf(ownerLine!)).to.be.below(lines.indexOf(memberLine!));

    expectColumns(users.stdout);

    const families = await admin('families');
    expect(families.code, families.stderr).to.equal(0);
    expectColumns(families.stdout);
    expect(families.stdout.split('\n')[0]).to.match(/^NAME\s+MEMBERS\s+CREATED$/);
    expect(families.stdout).to.match(new RegExp(`^${familyName}\\s+2\\s+\\d{4}-`, 'm'));

    const clubName = `Garden club ${uniq()}`;
    const created = await admin('create-family', clubName);
    expect(created.code, created.stderr).to.equal(0);
    const code = /Invite code: (\S+)/.exec(created.stdout)?.[1];
    expect(code).to.be.a('string');
    const joined = await registerViaApi(app, { familyCode: code! });
    expect(joined.status).to.equal(201);
    expect(joined.body.family.name).to.equal(clubName);
    const after = (await admin('families')).stdout;
    expect(after).to.match(new RegExp(`^${clubName}\\s+1\\s+`, 'm'));
    expect(after.indexOf(`\n${familyName} `)).to.be.within(0, after.indexOf(`\n${clubName} `));
  });

  it('reset-link prints a single-use link that resets the password through REST', async () => {
    const owner = await registerViaApi(app, { newFamilyName: `Reset ${uniq()}` });
    const r = await admin('reset-link', owner.email.toUpperCase());
    expect(r.code, r.stderr).to.equal(0);
    const token = /^http:\/\/app\.test\/reset-password\/([A-Za-z0-9_-]+)$/m.exec(r.stdout)?.[1];
    expect(token, r.stdout).to.be.a('string');

    const reset = await request(app, 'POST', '/api/auth/reset-password', {
      body: { token, newPassword: 'a brand new password' },
    });
    expect(reset.status).to.equal(200);
    const login = (password: string) =>
      request(app, 'POST', '/api/auth/login', { body: { email: owner.email, password } });
    expect((await login(owner.password)).status).to.equal(401);
    expect((await login('a brand new password')).status).to.equal(200);
    const again = await request(app, 'POST', '/api/auth/reset-password', {
      body: { token, newPassword: 'yet another password' },
    });
    expect(again.status).to.equal(400);
    expect(again.body.code).to.equal('reset_token_invalid');
  });

  it('make-admin lets a member call an admin endpoint', async () => {
    const owner = await registerViaApi(app, { newFamilyName: `Promote ${uniq()}` });
    const member = await registerViaApi(app, { familyCode: await familyCode(owner) });
    const token = member.body.accessToken as string;
    expect((await request(app, 'GET', '/api/family/invites', { token })).status).to.equal(403);

    const r = await admin('make-admin', member.email);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`${member.email} is now an admin`);
    expect((await request(app, 'GET', '/api/family/invites', { token })).status).to.equal(200);
    const members = await request(app, 'GET', '/api/family/members', { token });
    expect(members.body.find((m: { email: string }) => m.email === member.email).role).to.equal('admin');
  });

  it('a removed member: listed without a family, make-admin says they belong to none', async () => {
    const owner = await registerViaApi(app, { newFamilyName: `Removal ${uniq()}` });
    const member = await registerViaApi(app, { familyCode: await familyCode(owner) });
    const removed = await request(app, 'DELETE', `/api/family/members/${member.body.user.id}`, {
      token: owner.body.accessToken,
    });
    expect(removed.status).to.equal(204);
    const line = (await admin('users')).stdout.split('\n').find((l) => l.startsWith(`${member.email} `));
    expect(line).to.match(new RegExp(`^${member.email}\\s+${member.userName}\\s+-\\s+-\\s+\\d{4}-`));
    const r = await admin('make-admin', member.email);
    expect([r.code, r.stdout, r.stderr]).to.deep.equal([1, '', `${member.email} belongs to no family.\n`]);
  });

  it('answers bad input with usage and exit code 2, an unknown user with exit code 1, never a stack', async () => {
    for (const args of [
      [],
      ['bogus'],
      ['users', 'extra'],
      ['reset-link'],
      ['reset-link', 'not-an-email'],
      ['create-family', '  '],
    ]) {
      const r = await admin(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.include('Usage: npm run admin -- COMMAND');
      expectNoStack(r);
    }
    const unknown = await admin('make-admin', `nobody-${uniq()}@example.test`);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(/^No user has the email nobody-/);
    expectNoStack(unknown);
  });

  it('works on the database itself once the service has stopped (embedded database)', async function () {
    if (usingPostgres) this.skip(); // PostgreSQL: every command above already ran on the database itself
    const owner = await registerViaApi(app, { newFamilyName: `Offline ${uniq()}` });
    await app.close();
    const users = await admin('users');
    expect(users.code, users.stderr).to.equal(0);
    expect(users.stdout).to.include(owner.email);
    const link = await admin('reset-link', owner.email);
    expect(link.code, link.stderr).to.equal(0);
    expect(link.stdout).to.match(/^http:\/\/app\.test\/reset-password\//m);
  });
});
