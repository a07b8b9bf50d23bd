// Device worker threads load one bundled ES module each (built here with esbuild, once per
// benchmark run) instead of compiling TypeScript in every thread: a hundred devices start in
// seconds. The SDK is bundled from its sources (the @family-shopping/source condition);
// PouchDB is required at run time from bench/peers.
import { build } from 'esbuild';
import path from 'node:path';
import { BENCH_DIR, RESULTS_DIR } from './common.js';

const OUT = path.join(RESULTS_DIR, '.build');

export async function bundleWorker(
  name: 'sdk-device' | 'pouch-device' | 'rxdb-floor-sync' | 'rxdb-floor-device',
): Promise<string> {
  const outfile = path.join(OUT, `${name}.mjs`);
  await build({
    entryPoints: [path.join(BENCH_DIR, 'workers', `${name}.ts`)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['@family-shopping/source'],
    external: ['bufferutil', 'utf-8-validate'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  return outfile;
}
