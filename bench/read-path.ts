// The read path under load: GET /api/lists/{id} with 50, 200 and 1,000 items (a store's
// sections, items spread over them), and GET /api/me, each with autocannon (50 connections)
// against a bare Koa app in a process of its own serving a same-shape JSON body (the service's
// own answer, encoded by Koa on every request) measured in the same run. The service runs in
// its own process too; autocannon runs in this one. Rounds alternate service and baseline.
// Reports req/s, p99 latency and errors (connection errors + timeouts + non-2xx). The list detail
// is measured twice: as served (an unchanged list is answered from its copy, after the
// membership check: server/lists/detail-cache.ts), and by a second service started with
// LIST_DETAIL_CACHE_MB=0, which builds the JSON on every request, as after any write.
//
//   npx tsx bench/read-path.ts            (BENCH_DETAIL_SIZES=200 picks sizes, BENCH_SECONDS)
//   DATABASE_URL=postgres://… npx tsx bench/read-path.ts
import path from 'node:path';
import { BENCH_DIR, backend, backendName, machine, pick, today, SMOKE } from './lib/common.js';
import { fmtSpread, ratioSpread, spread } from './lib/stats.js';
import { Service } from './lib/service.js';
import { seedList } from './lib/seed.js';
import { forkRemote } from './lib/rpc.js';
import { ensurePeers, peerRequire } from './lib/peers.js';
import { writeResult } from './lib/report.js';

const SIZES = (process.env.BENCH_DETAIL_SIZES ?? pick('50,200,1000', '50')).split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? pick(3, 1));
const ROUNDS = pick(3, 2);
const CONNECTIONS = 50;

interface Load {
  rps: number;
  p99: number;
  errors: number;
}

async function cannon(url: string, headers: Record<string, string>, duration: number): Promise<Load> {
  const autocannon = peerRequire('autocannon');
  const r = await autocannon({ url, connections: CONNECTIONS, duration, headers, timeout: 10 });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx };
}

interface Row {
  what: string;
  n: number | null;
  bytes: number;
  service: Load[];
  bare: Load[];
}

async function main() {
  ensurePeers();
  const service = await Service.start();
  const plain = await Service.start({ LIST_DETAIL_CACHE_MB: '0' });
  const bare = await forkRemote('bare-koa', path.join(BENCH_DIR, 'lib', 'bare-child.ts'), process.env);
  const rows: Row[] = [];
  try {
    const { url: bareUrl } = await bare.call<{ url: string }>('start');
    const family = await service.family();
    const plainFamily = await plain.family();
    const targets: Array<{
      what: string;
      n: number | null;
      svc: Service;
      token: string;
      path: string;
      barePath: string;
    }> = [];
    for (const n of SIZES)
      targets.push({
        what: 'GET /api/lists/{id}',
        n,
        svc: service,
        token: family.token,
        path: `/api/lists/${(await seedList(service, family, n)).listId}`,
        barePath: `/detail/${n}`,
      });
    for (const n of SIZES)
      targets.push({
        what: 'GET /api/lists/{id}, without copies',
        n,
        svc: plain,
        token: plainFamily.token,
        path: `/api/lists/${(await seedList(plain, plainFamily, n)).listId}`,
        barePath: `/detail-plain/${n}`,
      });
    targets.push({ what: 'GET /api/me', n: null, svc: service, token: family.token, path: '/api/me', barePath: '/me' });

    for (const t of targets) {
      const auth = { authorization: `Bearer ${t.token}` };
      const url = t.svc.url + t.path;
      const r = await fetch(url, { headers: auth });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${t.path}: ${r.status} ${text.slice(0, 200)}`);
      const body = JSON.parse(text);
      if (t.n !== null) {
        const count = (body.groups as Array<{ items: unknown[] }>).reduce((a, g) => a + g.items.length, 0);
        if (count !== t.n) throw new Error(`list detail has ${count} items, not ${t.n}`);
      }
      await bare.call('body', { path: t.barePath, body });
      const row: Row = { what: t.what, n: t.n, bytes: Buffer.byteLength(text), service: [], bare: [] };
      await cannon(url, auth, 1); // warm-up
      await cannon(bareUrl + t.barePath, {}, 1);
      for (let round = 0; round < ROUNDS; round++) {
        const first = round % 2 === 0;
        if (first) row.service.push(await cannon(url, auth, SECONDS));
        row.bare.push(await cannon(bareUrl + t.barePath, {}, SECONDS));
        if (!first) row.service.push(await cannon(url, auth, SECONDS));
      }
      rows.push(row);
      console.error(
        `${t.what}${t.n ? ` (${t.n} items)` : ''}: ${Math.round(spread(row.service.map((l) => l.rps)).median)} req/s`,
      );
    }
    await new Promise((r) => setTimeout(r, 2_000)); // let the last queued requests finish
  } finally {
    await bare.call('close').catch(() => undefined);
    await bare.close();
    await service.close();
    await plain.close();
  }
  const kb = (b: number) => `${(b / 1024).toFixed(b < 10_240 ? 1 : 0)} KB`;
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${backendName()}, ${machine()}; autocannon, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per side (service and baseline alternating), median (min–max).`,
    '',
    '| request | body | service req/s | service p99 ms | errors | bare Koa req/s | bare p99 ms | service / bare (req/s) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const s = (k: keyof Load) => spread(r.service.map((l) => l[k]));
      const b = (k: keyof Load) => spread(r.bare.map((l) => l[k]));
      const errs = r.service.reduce((a, l) => a + l.errors, 0);
      return `| ${r.what}${r.n ? `, ${r.n.toLocaleString('en-US')} items` : ''} | ${kb(r.bytes)} | ${fmtSpread(s('rps'), 0)} | ${fmtSpread(s('p99'), 0)} | ${errs} | ${fmtSpread(b('rps'), 0)} | ${fmtSpread(b('p99'), 0)} | ${fmtSpread(
        ratioSpread(
          r.service.map((l) => l.rps),
          r.bare.map((l) => l.rps),
        ),
      )} |`;
    }),
  ].join('\n');
  writeResult(`read-path.${backend()}`, md, { rows });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
