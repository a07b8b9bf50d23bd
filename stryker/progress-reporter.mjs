// A Stryker reporter that appends each mutant's result to reports/mutation/<run>-progress.jsonl
// as soon as it is known, so that a long run stopped early still leaves its results (Stryker
// writes its own reports only at the end). `node stryker/progress-reporter.mjs <file.jsonl>`
// prints the score per file and folder of such files (same counting as stryker/survivors.mjs);
// `--survivors` lists the mutants left (survived or without coverage).
import fs from 'node:fs';
import path from 'node:path';
import { commonTokens, declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

class ProgressReporter {
  static inject = [commonTokens.options];
  constructor(options) {
    this.file = options.progressFile;
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(this.file, '');
  }
  onMutantTested(m) {
    const line = {
      file: m.fileName,
      line: m.location.start.line,
      column: m.location.start.column,
      mutator: m.mutatorName,
      replacement: m.replacement,
      status: m.status,
      tests: m.testsCompleted,
    };
    fs.appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
}

const RESULTS = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);

/**
 * The results of one file: a progress file (`*.jsonl`, a line a mutant) or Stryker's JSON report
 * (`*.json`, the mutation-testing-report schema: the per-file runs of stryker.sdk.config.mjs).
 * Paths are made absolute under the repository (the one the report names, else this one), so that
 * runs made in different clones and sandboxes meet on the same places.
 */
export function readResults(file) {
  const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const absolute = (f) => {
    const m = /(?:^|\/)((?:client-sdk|server|web)\/.*)$/.exec(f);
    return m ? path.join(here, m[1]) : path.resolve(f);
  };
  const text = fs.readFileSync(file, 'utf8');
  if (!file.endsWith('.json')) {
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .map((r) => ({ ...r, file: absolute(r.file) }));
  }
  const report = JSON.parse(text);
  return Object.entries(report.files).flatMap(([f, { mutants }]) =>
    mutants.map((m) => ({
      file: absolute(f),
      line: m.location.start.line,
      column: m.location.start.column,
      mutator: m.mutatorName,
      replacement: m.replacement,
      status: m.status,
    })),
  );
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'progress-file', ProgressReporter)];
export const strykerValidationSchema = {
  properties: { progressFile: { type: 'string', description: 'where progress-file writes' } },
};

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  // Several files: the mutants of one place (file, line, column, mutator, replacement) that a later
  // file has results for replace the earlier file's, so that a run of some lines again, after new
  // tests, updates a whole run's results. A mutant not run ("Pending", "Ignored") replaces nothing.
  const SURVIVORS = process.argv.includes('--survivors');
  const FILES = process.argv.slice(2).filter((a) => a !== '--survivors');
  const byPlace = new Map();
  for (const file of FILES) {
    const here = new Map();
    for (const r of readResults(file)) {
      const key = [r.file, r.line, r.column, r.mutator, r.replacement].join('\u0000');
      here.set(key, [...(here.get(key) ?? []), r]);
    }
    for (const [key, rs] of here) {
      if (!byPlace.has(key) || rs.some((r) => RESULTS.has(r.status))) byPlace.set(key, rs);
    }
  }
  const rows = [...byPlace.values()].flat();
  const groups = new Map();
  const add = (key, r) => {
    const c = groups.get(key) ?? { detected: 0, undetected: 0, other: 0 };
    if (r.status === 'Killed' || r.status === 'Timeout') c.detected++;
    else if (r.status === 'Survived' || r.status === 'NoCoverage') c.undetected++;
    else c.other++;
    groups.set(key, c);
  };
  for (const r of rows) {
    const file = path.relative(process.cwd(), r.file);
    add(file, r);
    add(`${path.dirname(file)}/ (folder)`, r);
    // every folder it is in, subfolders included: the SDK's score as a whole
    for (let dir = path.dirname(file); !['.', '/', '..'].includes(path.basename(dir)); dir = path.dirname(dir)) {
      if (dir.split(path.sep).includes('src')) add(`${dir}/ (all files under it)`, r);
    }
  }
  for (const [key, c] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const run = c.detected + c.undetected;
    const score = run ? `${((100 * c.detected) / run).toFixed(1)} %` : 'n/a';
    console.log(`${key}: ${score} (${c.detected} killed or timed out, ${c.undetected} survived, ${c.other} not run)`);
  }
  if (SURVIVORS) {
    for (const r of rows.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage')) {
      console.log(
        `${path.relative(process.cwd(), r.file)}:${r.line}:${r.column} ${r.status} ${r.mutator} → ${r.replacement}`,
      );
    }
  }
}
