// The web app's cost (issue 11): its JavaScript and CSS as built in web/dist, raw and gzipped
// (level 9), per file kind. When web/dist is absent (the app not built, or not there yet) it
// says so and measures nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, backend, machine, today, SMOKE } from './lib/common.js';
import { writeResult } from './lib/report.js';

const DIST = path.join(ROOT, 'web', 'dist');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

function main() {
  if (!existsSync(DIST)) {
    console.log('web/dist is absent (build the web app first): nothing measured');
    return;
  }
  const kinds: Record<string, { raw: number; gz: number; count: number }> = {};
  for (const f of files(DIST)) {
    const ext = path.extname(f).slice(1);
    if (!['js', 'mjs', 'css', 'html', 'webmanifest'].includes(ext)) continue;
    const kind = ext === 'mjs' ? 'js' : ext;
    const buf = readFileSync(f);
    const k = (kinds[kind] ??= { raw: 0, gz: 0, count: 0 });
    k.raw += buf.byteLength;
    k.gz += gzipSync(buf, { level: 9 }).byteLength;
    k.count++;
  }
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const md = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: web/dist as built, ${machine()}.`,
    '',
    '| files | count | size | gzipped |',
    '|---|---:|---:|---:|',
    ...Object.entries(kinds)
      .sort()
      .map(([kind, k]) => `| ${kind} | ${k.count} | ${kib(k.raw)} | ${kib(k.gz)} |`),
  ].join('\n');
  writeResult(`web-app.${backend()}`, md, { kinds });
}

main();
