// How pull cost grows with a family's size: the items of one family pulled from scratch through
// GET /api/sync/items/pull (1,000 docs a page, over HTTP, as the SDK pulls) at 1k, 10k and
// 100k items, in docs/s, against the raw page query of the same rows ((version, id) order, same
// page size) plus JSON.stringify, in the service's process, in the same run. Items are seeded
// straight into the table through familyWrite (1,000 rows a commit).
//
//   npx tsx bench/pull-growth.ts                  (BENCH_PULL_SIZES=1000,10000 picks sizes)
//   DATABASE_URL=postgres://… npx tsx bench/pull-growth.ts
import { pullUrl, type Checkpoint } from '@family-shopping/client/protocol';
import { backend, backendName, machine, pick, today, SMOKE } from './lib/common.js';
import { fmtSpread, ratioSpread, spread } from './lib/stats.js';
import { Service, type BenchFamily } from './lib/service.js';
import { writeResult } from './lib/report.js';

const SIZES = (process.env.BENCH_PULL_SIZES ?? pick('1000,10000,100000', '500,2000')).split(',').map(Number);
const ROUNDS = pick(3, 2);
const PAGE = 1000;

async function pullAll(service: Service, f: BenchFamily): Promise<{ ms: number; docs: number }> {
  const headers = { authorization: `Bearer ${f.token}` };
  const t0 = performance.now();
  let cp: Checkpoint | null = null;
  let docs = 0;
  for (;;) {
    const url: string = service.url + pullUrl('items', cp, PAGE);
    const r = await fetch(url, { headers });
    if (r.status !== 200) throw new Error(`pull: ${r.status} ${await r.text()}`);
    const body = (await r.json()) as { documents: unknown[]; checkpoint: Checkpoint | null };
    docs += body.documents.length;
    cp = body.checkpoint;
    if (body.documents.length < PAGE) break;
  }
  return { ms: performance.now() - t0, docs };
}

async function main() {
  const service = await Service.start();
  const rows: Array<{ n: number; service: number[]; baseline: number[] }> = [];
  try {
    for (const n of SIZES) {
      const family = await service.family();
      const list = await service.rest(family, 'POST', '/api/lists', { name: `Pull ${n}` });
      const t = Date.now();
      await service.seedItems(family, list.id, n);
      console.error(`${n} items seeded in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      await pullAll(service, family); // warm-up
      const row = { n, service: [] as number[], baseline: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const s = await pullAll(service, family);
        if (s.docs !== n) throw new Error(`pulled ${s.docs} of ${n}`);
        const b = await service.rawPull(family, PAGE);
        if (b.rows !== n) throw new Error(`baseline read ${b.rows} of ${n}`);
        row.service.push((n / s.ms) * 1000);
        row.baseline.push((n / b.ms) * 1000);
      }
      rows.push(row);
      await service.dropFamily(family);
    }
  } finally {
    await service.close();
  }
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${backendName()}, ${machine()}; ${ROUNDS} rounds per size after a warm-up pull; docs/s, median (min–max).`,
    '',
    '| items | endpoint docs/s | baseline docs/s | endpoint / baseline |',
    '|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.n.toLocaleString('en-US')} | ${fmtSpread(spread(r.service), 0)} | ${fmtSpread(spread(r.baseline), 0)} | ${fmtSpread(ratioSpread(r.service, r.baseline))} |`,
    ),
  ].join('\n');
  writeResult(`pull-growth.${backend()}`, md, { rows });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
