// The chaos convergence run (issue 25 item 3; scenario.ts says what it does and checks).
//   npm run chaos -- [--seed N] [--minutes M] [--clients C]
// The seed is printed at the start and on failure; the same seed replays the same schedule
// (the timings of a loaded machine still differ). PostgreSQL: the cluster DATABASE_URL names
// (a database of the run's own is made on it), else a throwaway cluster; Redis: always a
// redis-server of the run's own, which it restarts.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { startCluster } from './cluster.js';
import { runScenario } from './scenario.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    minutes: { type: 'string', default: '2' },
    clients: { type: 'string', default: '8' },
  },
});
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const minutes = Number(values.minutes);
const clients = Number(values.clients);
if (!Number.isInteger(seed) || !(minutes > 0) || !Number.isInteger(clients) || clients < 4 || clients > 12) {
  console.error('usage: npm run chaos -- [--seed N] [--minutes M] [--clients 4..12]');
  process.exit(2);
}
const replay = `npm run chaos -- --seed ${seed} --minutes ${minutes} --clients ${clients}`;
console.log(`[chaos] seed ${seed}, ${minutes} min, ${clients} clients (replay: ${replay})`);

const started = Date.now();
const cluster = await startCluster(seed);
let failed = true;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`[chaos] ${signal}: stopping (seed ${seed})`);
    void cluster.close().finally(() => process.exit(130));
  });
try {
  const figures = await runScenario(cluster, { seed, minutes, clients }, (s) => console.log(s));
  const ops = Object.entries(figures.operations)
    .filter(([k]) => !k.startsWith('refused'))
    .reduce((s, [, n]) => s + n, 0);
  console.log('[chaos] figures:');
  console.log(
    JSON.stringify(
      {
        ...figures,
        domainOperations: ops,
        failures: figures.failures.length,
        totalSeconds: Math.round((Date.now() - started) / 1000),
      },
      null,
      2,
    ),
  );
  if (figures.failures.length) {
    console.error(`[chaos] FAILED (seed ${seed}): ${figures.failures.length} failures`);
    for (const f of figures.failures.slice(0, 40)) console.error(`  - ${f}`);
    console.error(`[chaos] logs of the instances: ${cluster.dir}; replay: ${replay}`);
  } else {
    failed = false;
    console.log(`[chaos] passed (seed ${seed})`);
  }
} catch (err) {
  console.error(`[chaos] FAILED (seed ${seed}):`, err);
  console.error(`[chaos] logs of the instances: ${cluster.dir}; replay: ${replay}`);
} finally {
  await cluster.close();
  if (!failed) fs.rmSync(cluster.dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
