// The growth plot of docs/benchmarks.md: an SVG drawn here from the results of read-path,
// pull-growth and live-fanout (bench/results/*.json), rendered to PNG by Chromium (Debian's
// /usr/bin/chromium through playwright-core; no plotting tool is downloaded).
import path from 'node:path';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { RESULTS_DIR, ROOT, SMOKE } from './common.js';
import { readData } from './report.js';
import { spread } from './stats.js';

export const PLOT_FILE = SMOKE
  ? path.join(RESULTS_DIR, 'smoke', 'benchmarks-growth.png')
  : path.join(ROOT, 'docs', 'benchmarks-growth.png');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Point {
  x: number;
  y: number;
  lo: number;
  hi: number;
}
interface Series {
  name: string;
  color: string;
  dashed: boolean;
  /** Drawn dotted (wins over dashed). */
  dotted?: boolean;
  points: Point[];
}
interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

const COLORS = { pglite: '#1f77b4', postgres: '#d62728', bare: '#555555' };
const pt = (x: number, ys: number[]): Point => {
  const s = spread(ys);
  return { x, y: s.median, lo: s.min, hi: s.max };
};

function panels(): Panel[] {
  const out: Panel[] = [];
  const detail: Series[] = [];
  for (const b of ['pglite', 'postgres'] as const) {
    const d = readData<{
      rows: Array<{ what: string; n: number | null; service: Array<{ rps: number }>; bare: Array<{ rps: number }> }>;
    }>(`read-path.${b}`);
    const rowsOf = (what: string) => d?.rows.filter((r) => r.n !== null && r.what === what) ?? [];
    const rows = rowsOf('GET /api/lists/{id}');
    const plain = rowsOf('GET /api/lists/{id}, without copies');
    if (rows.length === 0) continue;
    const name = b === 'pglite' ? 'PGlite' : 'PostgreSQL';
    detail.push({
      name: `service, ${name}`,
      color: COLORS[b],
      dashed: false,
      points: rows.map((r) =>
        pt(
          r.n!,
          r.service.map((l) => l.rps),
        ),
      ),
    });
    if (plain.length)
      detail.push({
        name: `service without copies, ${name}`,
        color: COLORS[b],
        dashed: false,
        dotted: true,
        points: plain.map((r) =>
          pt(
            r.n!,
            r.service.map((l) => l.rps),
          ),
        ),
      });
    detail.push({
      name: `bare Koa (${name} run)`,
      color: COLORS[b],
      dashed: true,
      points: rows.map((r) =>
        pt(
          r.n!,
          r.bare.map((l) => l.rps),
        ),
      ),
    });
  }
  if (detail.length)
    out.push({
      title: 'GET /api/lists/{id}, 50 connections',
      xLabel: 'items on the list',
      yLabel: 'requests/s',
      series: detail,
    });

  const pull: Series[] = [];
  for (const b of ['pglite', 'postgres'] as const) {
    const d = readData<{ rows: Array<{ n: number; service: number[]; baseline: number[] }> }>(`pull-growth.${b}`);
    if (!d?.rows.length) continue;
    pull.push({
      name: `pull, ${b === 'pglite' ? 'PGlite' : 'PostgreSQL'}`,
      color: COLORS[b],
      dashed: false,
      points: d.rows.map((r) => pt(r.n, r.service)),
    });
    pull.push({
      name: `raw query (${b === 'pglite' ? 'PGlite' : 'PostgreSQL'})`,
      color: COLORS[b],
      dashed: true,
      points: d.rows.map((r) => pt(r.n, r.baseline)),
    });
  }
  if (pull.length)
    out.push({
      title: 'Pull from scratch, 1,000 docs a page',
      xLabel: 'items in the family',
      yLabel: 'docs/s',
      series: pull,
    });

  const fan = readData<{
    rows: Array<{ n: number; service: { p50: number[]; p99: number[] }; bare: { p50: number[]; p99: number[] } }>;
  }>('live-fanout.pglite');
  if (fan?.rows.length) {
    out.push({
      title: 'Live fan-out, commit → receipt',
      xLabel: 'sockets',
      yLabel: 'ms',
      series: [
        {
          name: 'service p50',
          color: COLORS.pglite,
          dashed: false,
          points: fan.rows.map((r) => pt(r.n, r.service.p50)),
        },
        { name: 'service p99', color: '#9467bd', dashed: false, points: fan.rows.map((r) => pt(r.n, r.service.p99)) },
        { name: 'bare ws p50', color: COLORS.bare, dashed: true, points: fan.rows.map((r) => pt(r.n, r.bare.p50)) },
      ],
    });
  }
  return out;
}

const W = 420;
const M = { l: 64, r: 16, t: 34 };
/** The plot area's height; below it the axis label and one legend line per series. */
const PH = 186;
const heightFor = (ps: Panel[]) => M.t + PH + 50 + Math.max(...ps.map((p) => p.series.length)) * 15 + 6;

function log10range(values: number[]): [number, number] {
  const v = values.filter((x) => x > 0 && Number.isFinite(x));
  return [Math.floor(Math.log10(Math.min(...v))), Math.ceil(Math.log10(Math.max(...v)))];
}

function panelSvg(p: Panel, ox: number): string {
  const xs = p.series.flatMap((s) => s.points.map((q) => q.x));
  const ys = p.series.flatMap((s) => s.points.flatMap((q) => [q.lo, q.hi]));
  const lx = xs.map((x) => Math.log10(x));
  const x0 = Math.min(...lx) - 0.2;
  const x1 = Math.max(...lx) + 0.2;
  let [y0, y1] = log10range(ys);
  if (y1 === y0) y1++;
  const pw = W - M.l - M.r;
  const ph = PH;
  const X = (x: number) => ox + M.l + ((Math.log10(x) - x0) / (x1 - x0)) * pw;
  const Y = (y: number) => M.t + ph - ((Math.log10(Math.max(y, 10 ** y0)) - y0) / (y1 - y0)) * ph;
  const parts: string[] = [];
  parts.push(
    `<text x="${ox + W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="600">${esc(p.title)}</text>`,
  );
  for (let e = y0; e <= y1; e++) {
    parts.push(`<line x1="${ox + M.l}" x2="${ox + W - M.r}" y1="${Y(10 ** e)}" y2="${Y(10 ** e)}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${ox + M.l - 6}" y="${Y(10 ** e) + 4}" text-anchor="end" font-size="11">${fmtTick(10 ** e)}</text>`,
    );
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    parts.push(`<line x1="${X(x)}" x2="${X(x)}" y1="${M.t}" y2="${M.t + ph}" stroke="#eee"/>`);
    parts.push(`<text x="${X(x)}" y="${M.t + ph + 15}" text-anchor="middle" font-size="11">${fmtTick(x)}</text>`);
  }
  parts.push(`<rect x="${ox + M.l}" y="${M.t}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  parts.push(
    `<text x="${ox + M.l + pw / 2}" y="${M.t + ph + 32}" text-anchor="middle" font-size="12">${esc(p.xLabel)} (log)</text>`,
  );
  parts.push(
    `<text transform="translate(${ox + 14} ${M.t + ph / 2}) rotate(-90)" text-anchor="middle" font-size="12">${esc(p.yLabel)} (log)</text>`,
  );
  p.series.forEach((s, i) => {
    const d = s.points.map((q, k) => `${k ? 'L' : 'M'}${X(q.x).toFixed(1)},${Y(q.y).toFixed(1)}`).join(' ');
    parts.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2" ${s.dotted ? 'stroke-dasharray="2 3"' : s.dashed ? 'stroke-dasharray="6 4"' : ''}/>`,
    );
    for (const q of s.points) {
      parts.push(
        `<line x1="${X(q.x)}" x2="${X(q.x)}" y1="${Y(q.lo)}" y2="${Y(q.hi)}" stroke="${s.color}" stroke-width="1.5"/>`,
      );
      parts.push(`<circle cx="${X(q.x)}" cy="${Y(q.y)}" r="3" fill="${s.color}"/>`);
    }
    const ly = M.t + ph + 50 + i * 15;
    parts.push(
      `<line x1="${ox + M.l}" x2="${ox + M.l + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2" ${s.dotted ? 'stroke-dasharray="2 3"' : s.dashed ? 'stroke-dasharray="6 4"' : ''}/>`,
    );
    parts.push(`<text x="${ox + M.l + 30}" y="${ly}" font-size="11">${esc(s.name)}</text>`);
  });
  return parts.join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
function fmtTick(v: number): string {
  if (v >= 1000) return `${+(v / 1000).toPrecision(3)}k`;
  return `${+v.toPrecision(3)}`;
}

/** Draws the panels whose results exist and writes docs/benchmarks-growth.png; null if none. */
/** The plot's panels, one per benchmark whose results it draws. */
const PANEL_COUNT = 3;

/**
 * Renders the plot from the results in bench/results/ (kept on this machine, never committed).
 * Only with all three panels: a checkout that ran one benchmark alone keeps the committed plot
 * rather than replacing it with one panel.
 */
export async function renderGrowthPlot(file = PLOT_FILE): Promise<string | null> {
  const ps = panels();
  if (ps.length < PANEL_COUNT) {
    console.error(
      `the plot is kept: results for ${PANEL_COUNT - ps.length} of its ${PANEL_COUNT} panels are missing in bench/results/ (run read-path, pull-growth and live-fanout)`,
    );
    return null;
  }
  if (!existsSync(CHROMIUM)) {
    console.error(`no Chromium at ${CHROMIUM}: the plot is not rendered`);
    return null;
  }
  const width = W * ps.length;
  const H = heightFor(ps);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" font-family="DejaVu Sans, sans-serif"><rect width="100%" height="100%" fill="#fff"/>${ps.map((p, i) => panelSvg(p, i * W)).join('\n')}</svg>`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width, height: H }, deviceScaleFactor: 1 });
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    await page.locator('svg').screenshot({ path: file });
  } finally {
    await browser.close();
  }
  return file;
}
