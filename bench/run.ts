// `npm run bench`: every benchmark of bench/, one after another, each in its own process so
// neither inherits the other's warmed caches or open sockets. Each prints its own Markdown
// table (copy into docs/benchmarks.md). Pass names to run some only:
//   npm run bench                        (all)
//   npm run bench -- sync-throughput     (one)
// The environment (DATABASE_URL, REDIS_URL, BENCH_*) is passed through unchanged.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ALL = ['realtime-latency', 'sync-throughput'];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((n) => !ALL.includes(n));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of wanted.length > 0 ? wanted : ALL) {
  console.log(`\n## bench/${name}.ts\n`);
  const r = spawnSync(process.execPath, ['--conditions=@family-shopping/source', '--import', 'tsx', path.join(here, `${name}.ts`)], {
    stdio: 'inherit',
    env: process.env,
  });
  if (r.status !== 0) {
    console.error(`bench/${name}.ts failed (exit ${r.status ?? r.signal})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
