// The line ranges of files whose mutants no run has tested yet (none of the progress files has a
// result on those lines): `MUTATE=$(node stryker/untested.mjs <file.ts,…> <progress.jsonl …>)`
// goes on with a run that stopped (out of time) without testing its first part again. A range
// mutates only the mutants wholly inside it; a later reading of all the progress files together
// (stryker/progress-reporter.mjs) merges both runs.
import fs from 'node:fs';
import path from 'node:path';
import { readResults } from './progress-reporter.mjs';

const [files, ...progress] = process.argv.slice(2);
if (!files || progress.length === 0) {
  console.error('usage: node stryker/untested.mjs <file.ts,…> <progress.jsonl …>');
  process.exit(2);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const tested = new Map();
for (const p of progress) {
  for (const r of readResults(p)) {
    if (['Pending', 'Ignored'].includes(r.status)) continue;
    const file = path.relative(root, r.file);
    const lines = tested.get(file) ?? new Set();
    lines.add(r.line);
    tested.set(file, lines);
  }
}
const ranges = [];
for (const file of files.split(',')) {
  const count = fs.readFileSync(path.join(root, file), 'utf8').split('\n').length;
  const done = tested.get(file) ?? new Set();
  // Every stretch of lines with no result (blank and comment lines included: they have no
  // mutants), from the last tested line on and every gap before it.
  let from = null;
  for (let line = 1; line <= count + 1; line++) {
    const open = line <= count && !done.has(line);
    if (open && from === null) from = line;
    if (!open && from !== null) {
      ranges.push(`${file}:${from}-${line - 1}`);
      from = null;
    }
  }
}
console.log(ranges.join(','));
