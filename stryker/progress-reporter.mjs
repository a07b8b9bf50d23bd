// A Stryker reporter that appends each mutant's result to reports/mutation/<run>-progress.jsonl
// as soon as it is known, so that a long run stopped early still leaves its results (Stryker
// writes its own reports only at the end). `node stryker/progress-reporter.mjs <file.jsonl>`
// prints the score per file and folder of such a file (same counting as stryker/survivors.mjs).
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

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'progress-file', ProgressReporter)];
export const strykerValidationSchema = {
  properties: { progressFile: { type: 'string', description: 'where progress-file writes' } },
};

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  const rows = fs
    .readFileSync(process.argv[2], 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
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
  }
  for (const [key, c] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const run = c.detected + c.undetected;
    const score = run ? `${((100 * c.detected) / run).toFixed(1)} %` : 'n/a';
    console.log(`${key}: ${score} (${c.detected} killed or timed out, ${c.undetected} survived, ${c.other} not run)`);
  }
}
