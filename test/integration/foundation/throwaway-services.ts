// A redis-server and a PostgreSQL cluster of a test's own (free ports, temp directories), so a
// test can stop and start them without disturbing the servers the rest of the suite uses.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sleep } from '../../helpers/wait.js';

const run = promisify(execFile);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, binary);
    if (fs.existsSync(file)) return file;
  }
  return undefined;
}

/** The newest PostgreSQL server's bin directory (Debian layout), or undefined. */
export function pgBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return onPath('initdb') ? path.dirname(onPath('initdb')!) : undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

export const redisServerBinary = (): string | undefined => onPath('redis-server');

async function waitForPort(port: number, up: boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (open === up) return;
    if (Date.now() > deadline) throw new Error(`port ${port} still ${up ? 'closed' : 'open'} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

export class ThrowawayRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<ThrowawayRedis> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-test-redis-'));
    const redis = new ThrowawayRedis(await freePort(), dir);
    await redis.start();
    return redis;
  }

  async start(): Promise<void> {
    const child = spawn(
      redisServerBinary()!,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir],
      { stdio: 'ignore' },
    );
    this.child = child;
    await waitForPort(this.port, true, 10_000);
  }

  /** Stops it as a crash would (SIGKILL): connections drop, nothing is kept. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    await waitForPort(this.port, false, 10_000);
  }

  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** initdb refuses to run as root: run as the postgres user then. */
function asPostgres(file: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const root = process.getuid?.() === 0;
  return root ? run('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: '/' }) : run(file, args, { cwd: '/' });
}

export class ThrowawayPostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  static async start(): Promise<ThrowawayPostgres> {
    const bin = pgBinDir()!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-test-pg-'));
    fs.chmodSync(dir, 0o755);
    const pg = new ThrowawayPostgres(await freePort(), dir, bin);
    fs.mkdirSync(pg.data);
    fs.mkdirSync(path.join(dir, 'sock'));
    if (process.getuid?.() === 0) await run('chown', ['-R', 'postgres:postgres', dir]);
    await asPostgres(path.join(bin, 'initdb'), [
      '-D',
      pg.data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-locale',
    ]);
    await pg.start();
    return pg;
  }

  async start(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      `-k ${path.join(this.dir, 'sock')}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
    ].join(' ');
    await asPostgres(path.join(this.bin, 'pg_ctl'), [
      '-D',
      this.data,
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      '-t',
      '60',
      '-o',
      options,
      'start',
    ]);
  }

  /** Stops it (fast shutdown: sessions are terminated, new connections refused). */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await asPostgres(path.join(this.bin, 'pg_ctl'), ['-D', this.data, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  async destroy(): Promise<void> {
    try {
      await this.stop('immediate');
    } catch {
      // not running
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
