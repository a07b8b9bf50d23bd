// The operator's commands run as their own processes, as `npm run backup|restore|admin` runs them,
// against the database the test names.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { usingPostgres } from '../../helpers/env.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const SCRIPTS = {
  backup: 'server/ops/backup-cli.ts',
  restore: 'server/ops/restore-cli.ts',
  admin: 'server/ops/admin-cli.ts',
};

/**
 * Runs `npm run <command> -- args` with the environment `env` (DATABASE_URL / DATA_DIR …).
 * `readAfterMs`: its output is read only after that long, as by a reader that is slow to start
 * (a pager): the command then waits, with its output in the pipe.
 */
export function runOps(
  command: keyof typeof SCRIPTS,
  args: string[],
  env: Record<string, string>,
  options: { readAfterMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPTS[command], ...args], {
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: process.env.NODE_OPTIONS ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    if (options.readAfterMs) {
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), options.readAfterMs);
    }
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), `fs-${prefix}-`));

/** The database URL of an embedded database in `dir`. */
export const pgliteUrl = (dir: string) => `pglite://${path.join(dir, 'pglite')}`;

/** A new, empty PostgreSQL database on the server of DATABASE_URL: its URL and a drop function. */
export async function createPgDatabase(admin: {
  raw(sql: string): Promise<unknown>;
}): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!usingPostgres) throw new Error('PostgreSQL only');
  const name = `fs_ops_${crypto.randomBytes(5).toString('hex')}`;
  await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => void (await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

/** No stack trace or SQL in a command's output. */
export function expectNoStack(r: CliResult): void {
  const all = r.stdout + r.stderr;
  if (/\n\s+at .+:\d+:\d+\)?/.test(all) || /\b(select|insert into)\b/i.test(all))
    throw new Error(`output carries a stack or SQL:\n${all}`);
}
