// Prints a Stryker JSON report's score per file (and in all) and its surviving mutants, one a
// line (file:line:column mutator: original → replacement), for docs/mutation.md.
// Usage: node stryker/survivors.mjs reports/mutation/sdk-protocol.json [file filter] [--mutate]
// --mutate prints the survivors' locations instead, comma-separated, for MUTATE= with --force:
// a run that tests again the mutants on the lines of those that survived (e.g. after new tests).
import fs from 'node:fs';

const args = process.argv.slice(2);
const asMutate = args.includes('--mutate');
const [reportPath, filter = ''] = args.filter((a) => a !== '--mutate');
if (!reportPath) throw new Error('usage: node stryker/survivors.mjs <report.json> [file filter]');
const report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const score = (c) =>
  c.detected + c.undetected === 0 ? 'n/a' : `${((100 * c.detected) / (c.detected + c.undetected)).toFixed(1)} %`;
const total = { detected: 0, undetected: 0, invalid: 0 };
const lines = [];
const ranges = [];
for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  if (!file.includes(filter)) continue;
  const c = { detected: 0, undetected: 0, invalid: 0 };
  const text = source.split('\n');
  for (const m of mutants) {
    if (DETECTED.has(m.status)) c.detected++;
    else if (UNDETECTED.has(m.status)) {
      c.undetected++;
      const { start, end } = m.location;
      ranges.push(`${file}:${start.line}-${end.line}`);
      const original =
        start.line === end.line
          ? text[start.line - 1].slice(start.column - 1, end.column - 1)
          : `${text[start.line - 1].slice(start.column - 1)} …`;
      const short = (s) => (s.length > 70 ? `${s.slice(0, 67)}…` : s).replace(/\s+/g, ' ');
      lines.push(
        `${file}:${start.line}:${start.column} ${m.mutatorName}: ${short(original)} → ${short(m.replacement ?? '')}`,
      );
    } else c.invalid++;
  }
  for (const k of Object.keys(total)) total[k] += c[k];
  if (!asMutate)
    console.log(
      `${file}: ${score(c)} (${c.detected} killed, ${c.undetected} survived, ${c.invalid} not run: compile error or ignored)`,
    );
}
if (asMutate) {
  console.log([...new Set(ranges)].join(','));
  process.exit(0);
}
console.log(`all: ${score(total)} (${total.detected} killed, ${total.undetected} survived, ${total.invalid} not run)`);
for (const l of lines) console.log(l);
