// What every benchmark shares: where things are, smoke mode, the backend under test, and the
// line describing the machine a figure was measured on.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Bundled device workers (bundle.ts) run from bench/results/.build: they find bench/ by the
// environment their benchmark set.
export const BENCH_DIR = process.env.BENCH_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.env.BENCH_DIR = BENCH_DIR;
export const ROOT = path.resolve(BENCH_DIR, '..');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');

/** BENCH_SMOKE=1: tiny sizes and few rounds, to prove a benchmark works in seconds. Its
 *  results never reach docs/benchmarks.md. */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** Pick `full` normally and `smoke` in smoke mode. */
export const pick = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);

export function databaseUrl(): string {
  return process.env.DATABASE_URL || 'pglite://memory';
}

export type Backend = 'pglite' | 'postgres';
export function backend(): Backend {
  return databaseUrl().startsWith('postgres') ? 'postgres' : 'pglite';
}
export function backendName(b: Backend = backend()): string {
  return b === 'postgres' ? `PostgreSQL (local)${process.env.REDIS_URL ? ' + Redis' : ''}` : 'PGlite (in memory)';
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

export function machine(): string {
  const cpus = os.cpus();
  return `Node ${process.version.slice(1)}, ${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, ${os.platform()}`;
}

/** The environment of a service process started by a benchmark. */
export function serviceEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl(),
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Absolute time in ms with sub-ms resolution, comparable across threads and processes. */
export const now = () => performance.timeOrigin + performance.now();
