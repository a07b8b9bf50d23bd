// Where a process's CPU time went, from a V8 CPU profile (`node --cpu-prof`; the live fan-out
// writes one per process with BENCH_CPU_PROF=<dir>): self time per function, and the total
// (self + callees) of the functions named on the command line.
//
//   npx tsx bench/lib/cpu-profile.ts <file.cpuprofile> [function names...]
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, ...names] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpu-profile.ts <file.cpuprofile> [function names...]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: Node) => {
  const f = n.callFrame;
  const where = f.url ? `${path.basename(f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
};

// Each sample's time is the delta to the next sample.
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + dt);
}
const totalUs = profile.endTime - profile.startTime || 1;

const self = new Map<string, number>();
for (const [id, us] of selfUs) {
  const key = label(byId.get(id)!);
  self.set(key, (self.get(key) ?? 0) + us);
}
const ms = (us: number) => (us / 1000).toFixed(1).padStart(9);
const pct = (us: number) => `${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
console.log(`${path.basename(file)}: ${(totalUs / 1e6).toFixed(1)} s profiled\n\nself time, top 25:`);
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${ms(us)} ms ${pct(us)}  ${k}`);

// Total time of a function: the samples with it anywhere on their stack (counted once).
if (names.length > 0) {
  console.log('\ntotal time (self + callees):');
  for (const name of names) {
    let us = 0;
    for (const [id, t] of selfUs) {
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        if (byId.get(cur)!.callFrame.functionName === name) {
          us += t;
          break;
        }
      }
    }
    console.log(`${ms(us)} ms ${pct(us)}  ${name}`);
  }
}
