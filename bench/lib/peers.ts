// The peers the benchmarks compare against (PouchDB + express-pouchdb) and the load generator
// (autocannon) live in bench/peers, a package of its own: installed on demand here, never among
// the app's dependencies.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BENCH_DIR } from './common.js';

export const PEERS_DIR = path.join(BENCH_DIR, 'peers');
const PEERS = [
  'autocannon',
  'express',
  'express-pouchdb',
  'pouchdb-core',
  'pouchdb-adapter-memory',
  'pouchdb-adapter-http',
  'pouchdb-replication',
  'pouchdb-mapreduce',
  'pouchdb-browser',
  'events',
  'lighthouse',
];

/** `npm install --prefix bench/peers` when any peer is missing. */
export function ensurePeers(): void {
  const missing = PEERS.filter((p) => !existsSync(path.join(PEERS_DIR, 'node_modules', p, 'package.json')));
  if (missing.length === 0) return;
  console.error(`installing the benchmark peers into bench/peers (missing: ${missing.join(', ')})`);
  const r = spawnSync('npm', ['install', '--prefix', PEERS_DIR, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`npm install --prefix bench/peers failed (${r.status ?? r.signal})`);
}

/** require() from bench/peers. */
export const peerRequire = createRequire(path.join(PEERS_DIR, 'package.json'));

/** A PouchDB constructor with the in-memory adapter, HTTP and replication. */
export function pouchDB(): any {
  const PouchDB = peerRequire('pouchdb-core');
  PouchDB.plugin(peerRequire('pouchdb-adapter-memory'));
  PouchDB.plugin(peerRequire('pouchdb-adapter-http'));
  PouchDB.plugin(peerRequire('pouchdb-replication'));
  PouchDB.plugin(peerRequire('pouchdb-mapreduce'));
  return PouchDB;
}
