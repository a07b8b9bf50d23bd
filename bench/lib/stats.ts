// Small statistics of the benchmarks: quantiles of latency samples, and the median of several
// rounds with its spread (min–max), which is how every figure in docs/benchmarks.md is given.

/** The q-quantile of an ascending array (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

export const ascending = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** Median of the rounds and their min–max. */
export function spread(xs: readonly number[]): Spread {
  const s = ascending(xs.filter((x) => Number.isFinite(x)));
  if (s.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

/** A number for a table: thousands separated, `digits` decimals (fewer for big numbers). */
export function num(x: number, digits = 2): string {
  if (!Number.isFinite(x)) return '—';
  const d = Math.abs(x) >= 1000 ? 0 : Math.abs(x) >= 100 ? Math.min(digits, 1) : digits;
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** `median (min–max)` of the rounds. */
export function fmtSpread(s: Spread, digits = 2): string {
  if (s.n === 0) return '—';
  if (s.n === 1) return num(s.median, digits);
  return `${num(s.median, digits)} (${num(s.min, digits)}–${num(s.max, digits)})`;
}

/** Per-round ratios a/b, then their median and spread. */
export function ratioSpread(a: readonly number[], b: readonly number[]): Spread {
  return spread(a.map((x, i) => x / b[i]!));
}
