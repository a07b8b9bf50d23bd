// Replication throughput for 10,000 items of one family: push (POST /api/sync/items/push, 500
// rows a request) and pull (GET /api/sync/items/pull, 1,000 docs a page), in documents per
// second, against baselines measured in the same run:
//   push baseline: JSON.parse of the same request bodies + one multi-row INSERT per 500 rows in
//                  a transaction (no rules, no conflict check, no events);
//   pull baseline: the raw SQL page query of the same rows (same (version, id) order and page
//                  size) + JSON.stringify of the rows.
//
//   npx tsx bench/sync-throughput.ts                       (embedded PGlite in memory)
//   DATABASE_URL=postgres://… npx tsx bench/sync-throughput.ts
// Rounds in families of their own; medians and min–max. The block goes to docs/benchmarks.md
// (section "Replication") through `npm run bench`.
import { performance } from 'node:perf_hooks';
import crypto from 'node:crypto';
import { startServer, type RunningServer } from '../server/server.js';
import { backend, backendName, machine, pick, serviceEnv, today, SMOKE } from './lib/common.js';
import { fmtSpread, spread } from './lib/stats.js';
import { writeResult } from './lib/report.js';
import { createFamilyRow } from '../server/family/create.js';
import { newId } from '../server/db/ids.js';
import { takeFamilyVersion } from '../server/db/family-write.js';
import { signAccessToken } from '../server/auth/tokens.js';
import { pullUrl, type Checkpoint, type ItemDoc } from '@family-shopping/client/protocol';
import { PUSH_BATCH, itemDoc, pushBodies, pushItems } from './lib/seed.js';
import { rawItemPull } from './lib/raw-pull.js';

const N = Number(process.env.BENCH_ITEMS ?? pick(10_000, 1000));
const ROUNDS = pick(3, 2);
const PULL_PAGE = 1000;

interface Round {
  pushMs: number;
  pushBaseMs: number;
  pullMs: number;
  pullBaseMs: number;
}

/** One round in a family of its own: push N items, the push baseline, pull them back, the
 *  pull baseline. */
async function oneRound(app: RunningServer): Promise<Round> {
  const db = app.deps.db;
  {
    const family = await createFamilyRow(db, { name: `Bench ${newId().slice(0, 8)}` });
    const userId = newId();
    await db('users').insert({
      id: userId,
      email: `bench-${userId}@example.test`,
      user_name: `bench-${userId}`,
      password_hash: 'x',
    });
    await db('family_memberships').insert({ id: newId(), family_id: family.id, user_id: userId, role: 'admin' });
    const token = signAccessToken(app.deps.jwtSecret, { userId, familyId: family.id, role: 'admin' }, 3600, Date.now());
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const r = await fetch(app.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
      const json = (await r.json()) as any;
      if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
      return json;
    };
    const list = await post('/api/lists', { name: 'Bench list' });
    const baselineList = await post('/api/lists', { name: 'Baseline list' });

    // --- push -----------------------------------------------------------------------------
    const bodies = pushBodies(Array.from({ length: N }, (_, i) => itemDoc(list.id, i)));
    let t0 = performance.now();
    for (const body of bodies) await pushItems(app.url, token, body);
    const pushMs = performance.now() - t0;

    t0 = performance.now();
    for (const body of bodies) {
      const rows = (JSON.parse(body) as Array<{ newDocumentState: ItemDoc }>).map(({ newDocumentState: d }) => ({
        id: crypto.randomUUID(),
        family_id: family.id,
        list_id: baselineList.id,
        name: d.name,
        quantity: d.quantity,
        is_approximate: d.isApproximate,
        quantity_note: d.quantityNote,
        checked: d.checked,
      }));
      // Like every write of a replicated table, the baseline takes the family's next version
      // (the database refuses rows without it): one statement per 500 rows.
      await db.transaction(async (trx) => {
        const version = await takeFamilyVersion(trx, family.id);
        await trx('shopping_list_items').insert(rows.map((r) => ({ ...r, version })));
      });
    }
    const pushBaseMs = performance.now() - t0;
    // Remove the baseline rows again, so the pull below reads the pushed items only.
    await db('shopping_list_items').where({ list_id: baselineList.id }).del();

    // --- pull -----------------------------------------------------------------------------
    t0 = performance.now();
    let cp: Checkpoint | null = null;
    let pulled = 0;
    for (;;) {
      const url: string = app.url + pullUrl('items', cp, PULL_PAGE);
      const r = await fetch(url, { headers });
      const json = (await r.json()) as { documents: unknown[]; checkpoint: Checkpoint | null };
      pulled += json.documents.length;
      cp = json.checkpoint;
      if (json.documents.length < PULL_PAGE) break;
    }
    const pullMs = performance.now() - t0;
    if (pulled !== N) throw new Error(`pulled ${pulled} of ${N}`);

    const { ms: pullBaseMs, rows: raw } = await rawItemPull(db, family.id, PULL_PAGE);
    if (raw !== N) throw new Error(`baseline read ${raw} of ${N}`);

    await db('families').where({ id: family.id }).del();
    return { pushMs, pushBaseMs, pullMs, pullBaseMs };
  }
}

async function main() {
  const app = await startServer({ env: serviceEnv() });
  const rounds: Round[] = [];
  try {
    await oneRound(app); // warm-up
    for (let i = 0; i < ROUNDS; i++) rounds.push(await oneRound(app));
  } finally {
    await app.close();
  }
  const rate = (ms: number) => (N / ms) * 1000;
  const row = (op: string, ms: (r: Round) => number, base: (r: Round) => number) =>
    `| ${op} | ${fmtSpread(spread(rounds.map((r) => rate(ms(r)))), 0)} | ${fmtSpread(spread(rounds.map((r) => rate(base(r)))), 0)} | ${fmtSpread(spread(rounds.map((r) => base(r) / ms(r))))} |`;
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${N.toLocaleString('en-US')} items, ${backendName()}, ${machine()}; ${ROUNDS} rounds (a family of its own each, after a warm-up round), docs/s, median (min–max).`,
    '',
    '| operation | endpoint docs/s | baseline docs/s | endpoint / baseline |',
    '|---|---:|---:|---:|',
    row(
      `push (${PUSH_BATCH} rows/request)`,
      (r) => r.pushMs,
      (r) => r.pushBaseMs,
    ),
    row(
      `pull (${PULL_PAGE} docs/page)`,
      (r) => r.pullMs,
      (r) => r.pullBaseMs,
    ),
  ].join('\n');
  writeResult(`sync-throughput.${backend()}`, md, { n: N, rounds });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
