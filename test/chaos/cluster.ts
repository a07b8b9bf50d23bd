// What the chaos run stands on: a PostgreSQL database of its own (on the cluster DATABASE_URL
// names, or a throwaway cluster), a redis-server of its own (so it can be restarted), a mail
// sink (invitations), and two service instances as child processes (`npm start`'s command) that
// can be killed with SIGKILL and started again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ThrowawayPostgres, ThrowawayRedis } from '../integration/foundation/throwaway-services.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
// `npm start`'s command as one process (node with tsx's loader): the `tsx` binary would run
// the server in a child of its own, which a SIGKILL of the parent leaves running.
const NODE_ARGS = ['--import', 'tsx', '--conditions=@family-shopping/source', 'server/main.ts'];

/** A free port below Linux's ephemeral range (32768–60999): while an instance is down, no
 *  outgoing connection can take its port, so it starts again on the same one. */
async function instancePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + crypto.randomInt(12_000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export class Instance {
  private child: ChildProcess | undefined;
  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly logFile: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    const log = fs.openSync(this.logFile, 'a');
    const child = spawn(process.execPath, NODE_ARGS, {
      cwd: ROOT,
      env: { ...process.env, ...this.env, PORT: String(this.port) },
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    this.child = child;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited with ${child.exitCode}; see ${this.logFile}`);
      try {
        const r = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2000) });
        // answered, and by this process (not one left over on the port)
        if (r.status < 500 && child.exitCode === null) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.name} did not start within 60 s; see ${this.logFile}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  killNow(): void {
    this.child?.kill('SIGKILL');
  }

  /** A crash: SIGKILL, nothing flushed or closed. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

export interface Cluster {
  instances: [Instance, Instance];
  redis: ThrowawayRedis;
  smtp: SmtpSink;
  dir: string;
  close(): Promise<void>;
}

export async function startCluster(seed: number): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-chaos-'));
  let ownPg: ThrowawayPostgres | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl || !/^postgres(ql)?:/.test(serverUrl)) {
    console.log('[chaos] no postgres:// DATABASE_URL: starting a throwaway PostgreSQL cluster');
    ownPg = await ThrowawayPostgres.start();
    serverUrl = ownPg.url;
  }
  // A database of the run's own on that cluster, dropped at the end.
  const dbName = `chaos_${seed}_${crypto.randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;

  const redis = await ThrowawayRedis.start();
  const smtp = await startSmtpSink();
  const env = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redis.url,
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    SMTP_URL: smtp.url,
    TRUST_PROXY: 'true',
    DATA_DIR: dir,
    LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
    METRICS_PORT: '',
  };
  delete (env as Partial<typeof env>).METRICS_PORT;
  const instances: [Instance, Instance] = [
    new Instance('instance A', await instancePort(), env, path.join(dir, 'a.log')),
    new Instance('instance B', await instancePort(), env, path.join(dir, 'b.log')),
  ];
  // Should the run itself die, its instances go with it.
  process.on('exit', () => {
    for (const i of instances) i.killNow();
  });
  // One at a time: the first runs the migrations.
  await instances[0].start();
  await instances[1].start();

  return {
    instances,
    redis,
    smtp,
    dir,
    async close() {
      for (const i of instances) await i.stop().catch(() => undefined);
      await redis.destroy().catch(() => undefined);
      await smtp.close().catch(() => undefined);
      const c = new pg.Client({ connectionString: serverUrl });
      await c
        .connect()
        .then(() => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`))
        .catch(() => undefined);
      await c.end().catch(() => undefined);
      await ownPg?.destroy().catch(() => undefined);
    },
  };
}
