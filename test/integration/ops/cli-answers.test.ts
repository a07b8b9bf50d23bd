// What the operator's commands answer before and around their work (contract §11): help with
// exit code 0, usage with 2, a file or a database that is not there, a restore into the database
// of a running service, an admin command on a database no service has started on, or one of an
// earlier version. Each answer is one clear message, never a stack. On the embedded database
// (a service's control socket is its feature), in every leg.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp } from '../../helpers/app.js';
import { registerViaApi } from '../../helpers/factories.js';
import { usingPostgres } from '../../helpers/env.js';
import { migrationNames } from '../../../server/ops/snapshot.js';
import { expectNoStack, pgliteUrl, runOps, tempDir, type CliResult } from './cli.js';

const BACKUP_USAGE =
  'Usage: npm run backup -- FILE   (writes a gzip-compressed snapshot of the whole database to FILE)';
const RESTORE_USAGE = 'Usage: npm run restore -- FILE   (loads a backup made by npm run backup into an empty database)';

/** Runs the calls two at a time (each is a process of its own), their results in order. */
async function inPairs<T>(calls: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < calls.length; i += 2) results.push(...(await Promise.all(calls.slice(i, i + 2).map((c) => c()))));
  return results;
}

describe('ops: what the commands answer around their work', function () {
  this.timeout(600_000);
  const dir = tempDir('cli-answers');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const url = (name: string) => pgliteUrl(path.join(dir, name));
  /** The first line of what the command wrote to stderr, and no stack anywhere. */
  const said = (r: CliResult) => {
    expectNoStack(r);
    return r.stderr.split('\n')[0];
  };

  it('prints help with exit code 0 and usage with exit code 2', async () => {
    const env = { DATABASE_URL: url('help') };
    // [command, args, exit code, first line of stderr]: the commands run two at a time.
    type Case = [command: 'backup' | 'restore' | 'admin', args: string[], code: number, first: string];
    const cases: Case[] = [
      ['backup', ['--help'], 0, BACKUP_USAGE],
      ['backup', ['-h'], 0, BACKUP_USAGE],
      ['backup', ['a', 'b'], 2, BACKUP_USAGE],
      ['restore', ['--help'], 0, RESTORE_USAGE],
      ['restore', ['-h'], 0, RESTORE_USAGE],
      ['restore', [], 2, RESTORE_USAGE],
      ['restore', ['--force'], 2, RESTORE_USAGE],
      ['admin', [], 2, 'No command given.'],
      ['admin', ['bogus'], 2, 'Unknown command: bogus'],
      ['admin', ['hasOwnProperty'], 2, 'Unknown command: hasOwnProperty'],
      ['admin', ['families', 'x'], 2, 'families takes no arguments.'],
      ['admin', ['make-admin'], 2, 'make-admin takes one argument: EMAIL.'],
      ['admin', ['create-family', 'A', 'B'], 2, 'create-family takes one argument: NAME.'],
    ];
    const helps = ['help', '--help', '-h'];
    const results = await inPairs([
      ...cases.map(
        ([command, args]) =>
          () =>
            runOps(command, args, env),
      ),
      ...helps.map((flag) => () => runOps('admin', [flag], env)),
    ]);
    cases.forEach(([command, args, code, first], i) => {
      const r = results[i]!;
      expect([r.code, said(r)], `${command} ${args.join(' ')}`).to.deep.equal([code, first]);
      if (command === 'admin') expect(r.stderr).to.include('\n\nUsage: npm run admin -- COMMAND');
      expect(r.stdout, `${command} ${args.join(' ')}`).to.equal('');
    });
    for (const help of results.slice(cases.length)) {
      expect([help.code, help.stderr]).to.deep.equal([0, '']);
      expect(help.stdout).to.match(/^Usage: npm run admin -- COMMAND\n\nCommands:\n {2}users {2}/);
      for (const command of ['users', 'families', 'create-family NAME', 'reset-link EMAIL', 'make-admin EMAIL'])
        expect(help.stdout).to.include(`\n  ${command} `);
    }
    // None of them opened (or made) a database.
    expect(fs.existsSync(path.join(dir, 'help'))).to.equal(false);
  });

  it('names what is not there: the backup file, the database, a memory-only one, its server', async () => {
    const missing = path.join(dir, 'no-such.backup.gz');
    const r = await runOps('restore', [missing], { DATABASE_URL: url('restore-target') });
    expect([r.code, said(r)]).to.deep.equal([1, `No such file: ${missing}`]);
    // A failure of no known kind: the command and the reason, no stack.
    const folder = await runOps('restore', [dir], { DATABASE_URL: url('restore-target') });
    expect([folder.code, said(folder)]).to.deep.equal([
      1,
      'Restore failed: EISDIR: illegal operation on a directory, read',
    ]);
    const none = path.join(dir, 'never', 'pglite');
    for (const [command, args] of [
      ['backup', [path.join(dir, 'x.backup.gz')]],
      ['admin', ['users']],
    ] as const) {
      const r2 = await runOps(command, [...args], { DATABASE_URL: `pglite://${none}` });
      expect([r2.code, said(r2)], command).to.deep.equal([1, `There is no database in ${none} (check DATA_DIR).`]);
      const memory = await runOps(command, [...args], { DATABASE_URL: 'pglite://memory' });
      expect([memory.code, said(memory)], command).to.deep.equal([
        1,
        'DATABASE_URL=pglite://memory keeps nothing to work on.',
      ]);
    }
    // A PostgreSQL server that is not there (and, in the PostgreSQL leg, a database its server
    // does not have): the reason, with no stack.
    const unreachable = [['postgres://family@127.0.0.1:1/shopping', 'connect ECONNREFUSED 127.0.0.1:1']];
    if (usingPostgres) {
      const u = new URL(process.env.DATABASE_URL!);
      u.pathname = '/no_such_database';
      unreachable.push([u.toString(), 'database "no_such_database" does not exist']);
    }
    for (const [databaseUrl, reason] of unreachable) {
      for (const [command, args, what] of [
        ['backup', [path.join(dir, 'x.backup.gz')], 'Backup'],
        ['admin', ['users'], 'The command'],
      ] as const) {
        const r3 = await runOps(command, [...args], { DATABASE_URL: databaseUrl! });
        expect([r3.code, said(r3)], command).to.deep.equal([1, `${what} failed: cannot use the database (${reason}).`]);
      }
    }
    expect(fs.existsSync(path.join(dir, 'x.backup.gz'))).to.equal(false);
  });

  it('admin on a database no service started on, or of an earlier version, says to start the service', async () => {
    // A restore that fails on its header has made the database, with no tables.
    const bare = url('bare');
    const bogus = path.join(dir, 'bogus.backup');
    fs.writeFileSync(bogus, '{"hello":"world"}\n');
    expect((await runOps('restore', [bogus], { DATABASE_URL: bare })).code).to.equal(1);
    const noTables = await runOps('admin', ['users'], { DATABASE_URL: bare });
    expect([noTables.code, said(noTables)]).to.deep.equal([
      1,
      'The database has no tables yet: start the service once (or run npm run migrate).',
    ]);
    // A restore of a backup at the first migration migrates to it, then finds the tables missing.
    const older = url('older');
    const first = path.join(dir, 'first.backup');
    const header = { format: 'family-shopping-backup', version: 1, createdAt: new Date().toISOString() };
    fs.writeFileSync(
      first,
      `${JSON.stringify({ ...header, source: 'pglite', migrations: migrationNames().slice(0, 1) })}\n{"end":true,"tables":0}\n`,
    );
    expect((await runOps('restore', [first], { DATABASE_URL: older })).code).to.equal(1);
    const behind = await runOps('admin', ['users'], { DATABASE_URL: older });
    expect([behind.code, said(behind)]).to.deep.equal([
      1,
      'The database is not migrated to this version yet: start the service once (or run npm run migrate).',
    ]);
  });

  it('with the service running: restore refuses its database; admin runs there, from none to some', async () => {
    const running = url('running');
    const app = await startTestApp({ envOverrides: { DATABASE_URL: running, NODE_ENV: 'test' } });
    const dataDir = running.slice('pglite://'.length);
    try {
      const env = { DATABASE_URL: running, APP_BASE_URL: 'http://app.test' };
      const none = await runOps('admin', ['users'], env);
      expect([none.code, none.stdout, none.stderr]).to.deep.equal([0, 'No users yet.\n', '']);
      const owner = await registerViaApi(app, { newFamilyName: 'Running' });
      const again = await runOps('admin', ['make-admin', owner.email], env);
      expect([again.code, again.stdout]).to.deep.equal([0, `${owner.email} is already an admin of "Running".\n`]);
      for (const [args, first] of [
        [['make-admin', 'not-an-email'], /^Not an email address: not-an-email$/],
        [['reset-link', 'x@'], /^Not an email address: x@$/],
        [['create-family', ' '], /^Invalid family name: \S.*\.$/],
      ] as const) {
        const bad = await runOps('admin', [...args], env);
        expect(bad.code, args.join(' ')).to.equal(2);
        expect(said(bad), args.join(' ')).to.match(first);
        expect(bad.stderr).to.include('\n\nUsage: npm run admin -- COMMAND');
      }
      const nobody = await runOps('admin', ['reset-link', 'Nobody@Example.test'], env);
      expect([nobody.code, said(nobody)]).to.deep.equal([1, 'No user has the email nobody@example.test.']);

      const backup = path.join(dir, 'running.backup.gz');
      const made = await runOps('backup', [backup], env);
      expect(made.code, made.stderr).to.equal(0);
      expect(made.stdout).to.match(
        new RegExp(`^Backup of the running service written to ${backup} \\(\\d+ KiB\\)\\.\\n$`),
      );
      const r = await runOps('restore', [backup], env);
      expect([r.code, said(r)]).to.deep.equal([
        1,
        `The service is running on ${dataDir}. Stop it, and restore into an empty DATA_DIR (then start the service on it).`,
      ]);
      // The service's data is untouched.
      const users = await runOps('admin', ['users'], env);
      expect(users.stdout).to.include(owner.email);
    } finally {
      await app.close();
    }
  });

  it('reset-link: a link on the service’s own address (https with TLS), valid for 24 hours', async () => {
    // A service's database with one user, the service stopped: the command opens it itself.
    const env = { DATABASE_URL: url('links'), HOST: 'family.lan', PORT: '8443' };
    const app = await startTestApp({ envOverrides: { DATABASE_URL: env.DATABASE_URL, NODE_ENV: 'test' } });
    let owner: string;
    try {
      owner = (await registerViaApi(app, { newFamilyName: 'Links' })).email;
    } finally {
      await app.close();
    }
    const tls = { TLS_CERT_FILE: path.join(dir, 'cert.pem'), TLS_KEY_FILE: path.join(dir, 'key.pem') };
    for (const [extra, origin] of [
      [{}, 'http://family.lan:8443'],
      [tls, 'https://family.lan:8443'],
      [{ ...tls, HOST: '0.0.0.0' }, 'https://localhost:8443'],
      [{ ...tls, APP_BASE_URL: 'https://shopping.example.test' }, 'https://shopping.example.test'],
    ] as const) {
      const asked = Date.now();
      const r = await runOps('admin', ['reset-link', owner], { ...env, ...extra });
      expect(r.code, r.stderr).to.equal(0);
      const [link, note] = r.stdout.split('\n');
      expect(link).to.match(new RegExp(`^${origin.replace(/[.]/g, '\\.')}/reset-password/[A-Za-z0-9_-]{20,}$`));
      const until =
        /^Single use, valid until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC; earlier reset links of (\S+) no longer work\.$/.exec(
          note!,
        );
      expect(until, note).to.not.equal(null);
      expect(until![2]).to.equal(owner);
      const expires = Date.parse(`${until![1]!.replace(' ', 'T')}:00Z`);
      // Printed to the minute: 24 hours after the command ran, within that minute.
      expect(expires).to.be.within(asked + 24 * 3600_000 - 60_000, Date.now() + 24 * 3600_000);
    }
  });
});
