// Results: each benchmark writes its Markdown block to bench/results/<key>.md (and its figures
// to <key>.json for the plot); `npm run bench` then puts each block into docs/benchmarks.md
// between the markers `<!-- bench:<key> -->` and `<!-- /bench:<key> -->`. Smoke runs write to
// bench/results/smoke/ and never touch the docs.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { RESULTS_DIR, ROOT, SMOKE } from './common.js';

export const DOCS = path.join(ROOT, 'docs', 'benchmarks.md');
const dir = () => (SMOKE ? path.join(RESULTS_DIR, 'smoke') : RESULTS_DIR);

export function writeResult(key: string, markdown: string, data?: unknown): void {
  mkdirSync(dir(), { recursive: true });
  writeFileSync(path.join(dir(), `${key}.md`), markdown.trimEnd() + '\n');
  if (data !== undefined) writeFileSync(path.join(dir(), `${key}.json`), JSON.stringify(data, null, 2));
  console.log(`\n${markdown.trimEnd()}\n`);
}

export function readData<T = any>(key: string): T | undefined {
  const f = path.join(dir(), `${key}.json`);
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as T) : undefined;
}

/** Replaces each block's marked region of docs/benchmarks.md; returns keys without markers. */
export function updateDocs(keys: string[]): string[] {
  let text = readFileSync(DOCS, 'utf8');
  const missing: string[] = [];
  for (const key of keys) {
    const file = path.join(dir(), `${key}.md`);
    if (!existsSync(file)) continue;
    const block = readFileSync(file, 'utf8').trimEnd();
    const open = `<!-- bench:${key} -->`;
    const close = `<!-- /bench:${key} -->`;
    const a = text.indexOf(open);
    const b = text.indexOf(close);
    if (a < 0 || b < a) {
      missing.push(key);
      continue;
    }
    text = text.slice(0, a + open.length) + '\n' + block + '\n' + text.slice(b);
  }
  writeFileSync(DOCS, text);
  return missing;
}
