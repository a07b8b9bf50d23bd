// The before/after table of docs/benchmarks.md: issue 12's figures measured before the work
// ("before", fixed text) beside the same ratios from the latest results in bench/results/.
import { existsSync, readFileSync } from 'node:fs';
import { DOCS, readData } from './report.js';
import { num, spread, type Spread } from './stats.js';

const ratioOf = (a: number[], b: number[]) => spread(a.map((x, i) => x / b[i]!));
const r = (s: Spread | undefined, digits = 2, suffix = '') =>
  s && s.n ? `${num(s.median, digits)}${suffix} (${num(s.min, digits)}–${num(s.max, digits)})` : 'not measured';

type Load = { rps: number; p99: number; errors: number };
type ReadRow = { what: string; n: number | null; service: Load[]; bare: Load[] };

function readRow(b: string, what: string, n: number | null): string {
  const d = readData<{ rows: ReadRow[] }>(`read-path.${b}`);
  const row = d?.rows.find((x) => x.what === what && x.n === n);
  if (!row) return 'not measured';
  const rps = spread(row.service.map((l) => l.rps)).median;
  const p99 = spread(row.service.map((l) => l.p99)).median;
  const errors = row.service.reduce((a, l) => a + l.errors, 0);
  return `${num(rps, 0)} req/s, p99 ${num(p99, 0)} ms, ${errors} errors; ratio ${r(
    ratioOf(
      row.service.map((l) => l.rps),
      row.bare.map((l) => l.rps),
    ),
  )}`;
}

/** The list detail as served (an unchanged list from its copy) and built on every request. */
const detailRows = (b: string) =>
  `${readRow(b, 'GET /api/lists/{id}', 200)}; without copies (built on every request, as after a write): ${readRow(
    b,
    'GET /api/lists/{id}, without copies',
    200,
  )}`;

function pushRow(b: string): string {
  const d = readData<{ rounds: Array<{ pushMs: number; pushBaseMs: number }> }>(`sync-throughput.${b}`);
  if (!d) return 'not measured';
  return `ratio ${r(spread(d.rounds.map((x) => x.pushBaseMs / x.pushMs)))}`;
}

function initialSyncRow(): string {
  // `floor` (the RxDB floor: RxDB and Node's fetch alone) is absent from older results.
  const d = readData<{ sdk: number[]; pouch: Record<string, number[]>; floor?: number[] }>('initial-sync.pglite');
  if (!d) return 'not measured';
  const best = d.sdk.map((_, i) => Math.min(...Object.values(d.pouch).map((p) => p[i]!)));
  const floor = d.floor?.length
    ? `; RxDB floor (no SDK, no service) ${num(spread(d.floor).median / 1000)} s: ${r(ratioOf(best, d.floor), 1, '×')}`
    : '';
  return `${num(spread(d.sdk).median / 1000)} s; ${r(ratioOf(best, d.sdk), 1, '×')} faster than PouchDB's best batch size${floor}`;
}

function propagationRow(): string {
  const d = readData<{ results: Array<{ n: number; system: string; p99: number[] }>; patchedFrames: number }>(
    'live-propagation.pglite',
  );
  const n = Math.max(...(d?.results.map((x) => x.n) ?? [0]));
  const sdk = d?.results.find((x) => x.n === n && x.system === 'patches');
  const pouch = d?.results.find((x) => x.n === n && x.system === 'pouchdb');
  const floor = d?.results.find((x) => x.n === n && x.system === 'floor');
  if (!sdk || !pouch) return 'not measured';
  const floorNote = floor
    ? `; RxDB floor (bare broadcast into \`pull.stream$\`, a lower bound) p99 ${num(spread(floor.p99).median, 0)} ms: ${r(ratioOf(pouch.p99, floor.p99), 1, '×')} lower`
    : '';
  return `${n} devices: SDK p99 ${num(spread(sdk.p99).median, 0)} ms, PouchDB p99 ${num(spread(pouch.p99).median, 0)} ms: ${r(ratioOf(pouch.p99, sdk.p99), 1, '×')} lower${d!.patchedFrames ? '' : ' (no live patches were sent)'}${floorNote}`;
}

function memoryRow(): string {
  const d = readData<{
    rows: Array<{
      n: number;
      service: { rssPerSocket: number; heapPerSocket: number };
      bare: { rssPerSocket: number };
    }>;
  }>('live-fanout.pglite');
  const row = d?.rows.reduce((a, x) => (x.n > a.n ? x : a));
  if (!row || row.n < 1000) return 'not measured';
  return `${row.n.toLocaleString('en-US')} sockets: ${num(row.service.rssPerSocket / 1024, 1)} KB RSS (${num(row.service.heapPerSocket / 1024, 1)} KB heap) per socket; bare ws ${num(row.bare.rssPerSocket / 1024, 1)} KB`;
}

/** The "after" cell of each row of the summary block now in docs/benchmarks.md, by measure. */
function afterCellsInDocs(): Map<string, string> {
  const cells = new Map<string, string>();
  if (!existsSync(DOCS)) return cells;
  const text = readFileSync(DOCS, 'utf8');
  const block = /<!-- bench:summary -->([\s\S]*?)<!-- \/bench:summary -->/.exec(text)?.[1] ?? '';
  for (const line of block.split('\n')) {
    const cols = line.split(' | ');
    if (cols.length === 4 && line.startsWith('| ')) cells.set(cols[0]!.slice(2), cols[3]!.replace(/ \|$/, ''));
  }
  return cells;
}

/** A row whose figures this run did not measure keeps the ones the docs hold (a bench run
 *  alone must not wipe the other rows). */
function keepingMeasured(rows: string[]): string[] {
  const previous = afterCellsInDocs();
  return rows.map((line) => {
    const cols = line.split(' | ');
    if (cols.length !== 4 || !cols[3]!.includes('not measured')) return line;
    const before = previous.get(cols[0]!.slice(2));
    return before && !before.includes('not measured') ? [...cols.slice(0, 3), `${before} |`].join(' | ') : line;
  });
}

export function summaryMarkdown(date: string): string {
  const [intro, blank, head, rule, ...rows] = summaryLines(date);
  return [intro, blank, head, rule, ...keepingMeasured(rows)].join('\n');
}

function summaryLines(date: string): string[] {
  return [
    `"Before": issue 12, measured on this machine before the work. "After": the latest \`npm run bench\` (${date}; a row this run did not measure keeps its earlier figures); ratios are median (min–max) of the rounds.`,
    '',
    '| measure | goal | before | after |',
    '|---|---|---|---|',
    `| \`GET /api/lists/{id}\`, 200 items, PGlite | ≥ 0.25 of bare Koa, p99 ≤ 100 ms, 0 errors | 110 req/s (p99 up to 6 s, 8 timeouts); bare Koa 2,858 req/s: 0.04 | ${detailRows('pglite')} |`,
    `| same on PostgreSQL 15 | ≥ 0.5 of bare Koa, p99 ≤ 100 ms, 0 errors | 289 req/s (p99 250 ms); bare Koa 2,613 req/s: 0.11 | ${detailRows('postgres')} |`,
    `| \`GET /api/me\`, PostgreSQL | — | 1,002 req/s; bare Koa \`/ping\` ~61,000 req/s: 0.02 | ${readRow('postgres', 'GET /api/me', null)} (baseline: bare Koa, same-shape body) |`,
    `| push 10,000 items, PGlite | — | 2,025 docs/s; multi-row INSERT 19,465: 0.10 | ${pushRow('pglite')} |`,
    `| push 10,000 items, PostgreSQL | ≥ 0.4 of the multi-row baseline | 3,004 docs/s; multi-row INSERT 38,835: 0.08 | ${pushRow('postgres')} |`,
    `| SDK initial sync, 10,000 items (RxDB memory) | ≥ 3× faster than PouchDB's best batch size | 0.84 s; PouchDB batch 1000: 1.52 s (1.8×), default 100: 3.13 s (3.7×) | ${initialSyncRow()} |`,
    `| live propagation, 100 receiving devices | SDK p99 ≥ 20× lower than PouchDB live sync | PouchDB p99 ~650 ms (no SDK figure) | ${propagationRow()} |`,
    `| server memory per idle authenticated socket | ≤ 50 KB | not measured | ${memoryRow()} |`,
  ];
}
