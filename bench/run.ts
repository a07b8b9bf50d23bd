// `npm run bench`: every benchmark of bench/, one after another, each in its own process so
// neither inherits the other's warmed caches or open sockets; those that the issue asks for on
// both backends run on PGlite and then on PostgreSQL. Each writes its Markdown block to
// bench/results/, and this script puts the blocks into docs/benchmarks.md between their markers
// and renders the growth plot (docs/benchmarks-growth.png). The peers (PouchDB, autocannon) are
// installed into bench/peers on first use.
//
//   npm run bench                                  (all)
//   npm run bench -- live-propagation read-path    (some)
//   npm run bench -- --smoke                       (tiny sizes, seconds; docs untouched)
//   npm run bench -- --backend=pglite              (one backend only)
// PostgreSQL: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/fs_bench);
// BENCH_REDIS_URL adds the Redis bus to the PostgreSQL runs.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { BENCH_DIR } from './lib/common.js';
import { ensurePeers } from './lib/peers.js';
import { updateDocs, writeResult } from './lib/report.js';
import { summaryMarkdown } from './lib/summary.js';
import { renderGrowthPlot } from './lib/plot.js';

type Backend = 'pglite' | 'postgres';
// `byDefault: false`: run only when named (realtime-latency: the in-process latency and the
// cross-instance Redis hop, whose figures live-fanout supersedes for the growth table).
const BENCHES: Array<{ name: string; backends: Backend[]; byDefault?: false }> = [
  { name: 'live-propagation', backends: ['pglite'] },
  { name: 'initial-sync', backends: ['pglite'] },
  { name: 'read-path', backends: ['pglite', 'postgres'] },
  { name: 'live-fanout', backends: ['pglite'] },
  { name: 'pull-growth', backends: ['pglite', 'postgres'] },
  { name: 'sync-throughput', backends: ['pglite', 'postgres'] },
  { name: 'web-app', backends: ['pglite'] },
  { name: 'first-sync', backends: ['pglite'] },
  { name: 'long-list', backends: ['pglite'] },
  { name: 'lighthouse', backends: ['pglite'] },
  { name: 'browser-initial-sync', backends: ['pglite'] },
  { name: 'realtime-latency', backends: ['pglite', 'postgres'], byDefault: false },
];
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/fs_bench';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke') || process.env.BENCH_SMOKE === '1';
const onlyBackend = args.find((a) => a.startsWith('--backend='))?.slice('--backend='.length) as Backend | undefined;
const wanted = args.filter((a) => !a.startsWith('--'));
const unknown = wanted.filter((n) => !BENCHES.some((b) => b.name === n));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

async function postgresReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch (err) {
    console.error(`PostgreSQL at ${POSTGRES_URL} not reachable (${(err as Error).message}): its runs are skipped`);
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function main() {
  ensurePeers();
  const selected = BENCHES.filter((b) => (wanted.length === 0 ? b.byDefault !== false : wanted.includes(b.name)));
  const needsPg = selected.some((b) => b.backends.includes('postgres')) && onlyBackend !== 'pglite';
  const pgUp = needsPg && (await postgresReachable());
  let failed = 0;
  const started = Date.now();
  for (const bench of selected) {
    for (const b of bench.backends) {
      if (onlyBackend && b !== onlyBackend) continue;
      if (b === 'postgres' && !pgUp) continue;
      const env: NodeJS.ProcessEnv = { ...process.env, BENCH_SMOKE: smoke ? '1' : '' };
      delete env.DATABASE_URL;
      delete env.REDIS_URL;
      if (b === 'postgres') {
        env.DATABASE_URL = POSTGRES_URL;
        if (process.env.BENCH_REDIS_URL) env.REDIS_URL = process.env.BENCH_REDIS_URL;
      }
      console.log(`\n## bench/${bench.name}.ts (${b})${smoke ? ' (smoke)' : ''}\n`);
      const t = Date.now();
      const r = spawnSync(
        process.execPath,
        ['--conditions=@family-shopping/source', '--import', 'tsx', path.join(BENCH_DIR, `${bench.name}.ts`)],
        {
          stdio: 'inherit',
          env,
        },
      );
      console.log(`(${bench.name}, ${b}: ${((Date.now() - t) / 1000).toFixed(0)} s)`);
      if (r.status !== 0) {
        console.error(`bench/${bench.name}.ts (${b}) failed (exit ${r.status ?? r.signal})`);
        failed++;
        continue;
      }
      if (!smoke) {
        const missing = updateDocs([`${bench.name}.${b}`]);
        if (missing.length)
          console.error(`docs/benchmarks.md has no markers for ${missing.join(', ')}: block left in bench/results/`);
      }
    }
  }
  if (!smoke) {
    writeResult('summary', summaryMarkdown(new Date().toISOString().slice(0, 10)));
    updateDocs(['summary']);
  }
  if (!smoke && selected.some((b) => ['read-path', 'pull-growth', 'live-fanout'].includes(b.name))) {
    const file = await renderGrowthPlot();
    if (file) console.log(`\nplot: ${path.relative(path.join(BENCH_DIR, '..'), file)}`);
  }
  console.log(`\nall done in ${((Date.now() - started) / 1000).toFixed(0)} s${failed ? `, ${failed} failed` : ''}`);
  process.exit(failed > 0 ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
