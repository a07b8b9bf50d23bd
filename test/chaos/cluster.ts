// What the chaos run stands on: a PostgreSQL database of its own (on the cluster DATABASE_URL
// names, or a throwaway cluster), a redis-server of its own (so it can be restarted), a mail
// sink (invitations), and two service instances as child processes (`npm start`'s command) that
// can be killed with SIGKILL and started again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, ThrowawayPostgres, ThrowawayRedis } from '../integration/foundation/throwaway-services.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

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
    const child = spawn(TSX, ['--conditions=@family-shopping/source', 'server/main.ts'], {
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
        if (r.status < 500) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${this.name} did not start within 60 s; see ${this.logFile}`);
      await new Promise((r) => setTimeout(r, 200));
    }
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
    new Instance('instance A', await freePort(), env, path.join(dir, 'a.log')),
    new Instance('instance B', await freePort(), env, path.join(dir, 'b.log')),
  ];
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
