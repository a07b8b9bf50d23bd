// The control socket of a service on the embedded database (server/ops/control.ts), as a local
// process sees it: owner-only, one JSON request line, an answer, then closed; and the commands'
// side of it, against a service that refuses, goes away mid-backup, says nothing or too little
// (a stand-in listening where the service would). On the embedded database, in every leg.
import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { request, startTestApp } from '../../helpers/app.js';
import { controlSocketPath } from '../../../server/ops/control.js';
import { expectNoStack, pgliteUrl, runOps, tempDir } from './cli.js';
import { insertUsers } from './family-data.js';

/** Sends `text` to the socket and reads until the other side closes it (or 10 s have passed). */
function exchange(file: string, text: string): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(file);
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    socket.on('close', () => resolve({ answer, closed: true }));
    // Still open after 10 s: the other side waits for more.
    setTimeout(() => {
      resolve({ answer, closed: false });
      socket.destroy();
    }, 10_000).unref();
    socket.write(text);
  });
}

describe('ops: the control socket', function () {
  this.timeout(300_000);
  const dir = tempDir('control');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is owner-only, answers one request line, refuses anything else, and is gone when the service stops', async () => {
    const url = pgliteUrl(path.join(dir, 'service'));
    const dataDir = url.slice('pglite://'.length);
    const file = controlSocketPath(dataDir);
    const app = await startTestApp({ envOverrides: { DATABASE_URL: url, NODE_ENV: 'test' } });
    try {
      expect(fs.statSync(path.dirname(file)).mode & 0o777).to.equal(0o700);
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);

      const status = await exchange(file, '{"command":"status"}\n');
      expect(JSON.parse(status.answer)).to.deep.equal({ running: true, pid: process.pid });
      for (const bad of ['hello\n', '{"command":"drop"}\n', '{"command":"admin","args":"users"}\n', '[]\n']) {
        const r = await exchange(file, bad);
        expect(r.answer, bad).to.equal('{"error":"unknown request"}\n');
      }
      // Only the first line counts; what follows it is not read.
      const admin = await exchange(file, '{"command":"admin","args":["users"]}\n{"command":"status"}\n');
      expect(JSON.parse(admin.answer)).to.deep.equal({ code: 0, stdout: 'No users yet.\n', stderr: '' });
      // A request that never ends its line is cut off past 64 KiB, unanswered.
      const long = await exchange(file, `{"command":"admin","args":["${'x'.repeat(70 * 1024)}`);
      expect(long).to.deep.equal({ answer: '', closed: true });
    } finally {
      await app.close();
    }
    expect(fs.existsSync(file)).to.equal(false);
  });

  it('streams a backup to a slow client; one gone leaves the service serving; a stale socket is passed by', async () => {
    const url = pgliteUrl(path.join(dir, 'streaming'));
    const file = controlSocketPath(url.slice('pglite://'.length));
    const app = await startTestApp({ envOverrides: { DATABASE_URL: url, NODE_ENV: 'test' } });
    try {
      // Far more than a socket's buffers hold (over half a megabyte of rows).
      await insertUsers(app.deps.db, 'stream', 3000);
      // A reader that stops for a while: the service waits, then goes on where it stopped.
      const slow = net.connect(file);
      slow.write('{"command":"backup"}\n');
      slow.pause();
      await new Promise((r) => setTimeout(r, 1_000));
      let text = '';
      const closed = new Promise((resolve) => slow.on('close', resolve));
      slow.on('data', (d) => (text += d));
      slow.resume();
      await closed;
      const lines = text.trimEnd().split('\n');
      expect(JSON.parse(lines[0]!)).to.include({ format: 'family-shopping-backup' });
      expect(JSON.parse(lines.at(-1)!)).to.include({ end: true });
      const users = lines.findIndex((l) => l.startsWith('{"table":"users"'));
      expect(JSON.parse(lines[users]!).rows).to.equal(3000);
      expect(lines.filter((l) => l.includes('"email":"stream-'))).to.have.length(3000);

      // A reader that goes away after the first bytes: the backup stops there; the service goes on.
      const gone = net.connect(file);
      gone.write('{"command":"backup"}\n');
      await new Promise((resolve) => gone.once('data', resolve));
      gone.destroy();
      const status = await exchange(file, '{"command":"status"}\n');
      expect(JSON.parse(status.answer)).to.include({ running: true });
      const backup = await runOps('backup', [path.join(dir, 'after-gone.backup.gz')], { DATABASE_URL: url });
      expect(backup.code, backup.stderr).to.equal(0);
      expect((await request(app, 'GET', '/readyz')).status).to.equal(200);
    } finally {
      await app.close();
    }
    // What a service that crashed leaves: a socket file no one listens on. The commands open the
    // database themselves.
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    const users = await runOps('admin', ['users'], { DATABASE_URL: url });
    expect(users.code, users.stderr).to.equal(0);
    expect(users.stdout).to.include('\nstream-3000@example.test ');
  });

  /** A stand-in for the service of `name`'s database: `serve` gets each connection's first line. */
  async function standIn(name: string, serve: (socket: net.Socket, line: string) => void) {
    const dataDir = path.join(dir, name, 'pglite');
    fs.mkdirSync(dataDir, { recursive: true });
    const file = controlSocketPath(dataDir);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const server = net.createServer((socket) => {
      let text = '';
      socket.on('data', (d) => {
        text += d;
        if (text.includes('\n')) serve(socket, text.slice(0, text.indexOf('\n')));
      });
    });
    await new Promise<void>((resolve) => server.listen(file, resolve));
    return {
      env: { DATABASE_URL: `pglite://${dataDir}` },
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('backup and admin report a service that refuses, stops mid-backup or closes without an answer', async () => {
    const requests: string[] = [];
    const refusing = await standIn('refusing', (socket, line) => {
      requests.push(line);
      socket.end('{"error":"unknown request"}\n');
    });
    const silent = await standIn('silent', (socket) => socket.end());
    const terse = await standIn('terse', (socket) => socket.end('{"stdout":"Listed.\\n"}\n'));
    const dying = await standIn('dying', (socket) => {
      socket.write('{"format":"family-shopping-backup","version":1}\n{"table":"users","rows":3}\n{"id":');
      socket.destroy();
    });
    try {
      const file = (name: string) => path.join(dir, `${name}.backup.gz`);
      const cases = [
        [
          'refusing',
          refusing,
          'Backup failed: unknown request.',
          'The running service refused the command: unknown request.',
        ],
        [
          'silent',
          silent,
          'Backup failed: the service stopped sending before the end; see its log.',
          'The running service closed the connection without an answer; see its log.',
        ],
        [
          'dying',
          dying,
          'Backup failed: the service stopped sending before the end; see its log.',
          'The running service closed the connection without an answer; see its log.',
        ],
      ] as const;
      for (const [name, service, backupSays, adminSays] of cases) {
        const backup = await runOps('backup', [file(name)], service.env);
        expectNoStack(backup);
        expect([backup.code, backup.stderr], name).to.deep.equal([1, `${backupSays}\n`]);
        // Neither the file nor its partial copy is left.
        expect(
          fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.backup`)),
          name,
        ).to.deep.equal([]);
        if (name === 'dying') continue; // it answers an admin request as it answers a backup
        const admin = await runOps('admin', ['users'], service.env);
        expectNoStack(admin);
        expect([admin.code, admin.stderr], name).to.deep.equal([1, `${adminSays}\n`]);
      }
      // An answer without its exit code is a failure; nothing is made up for what it lacks.
      const admin = await runOps('admin', ['users'], terse.env);
      expect([admin.code, admin.stdout, admin.stderr]).to.deep.equal([1, 'Listed.\n', '']);
      expect(requests.map((r) => JSON.parse(r))).to.deep.equal([
        { command: 'backup' },
        { command: 'admin', args: ['users'] },
      ]);
    } finally {
      for (const s of [refusing, silent, dying, terse]) await s.close();
    }
  });
});
