// @ts-check
// Mutation testing of whole folders, one long-lived test process per run (stryker/folders.mjs).
// MUTATION_FOLDER names the folder (FOLDERS in stryker/folders.mjs); each has its own report
// and incremental file, reports/mutation/folder-<name>.*. `npm run mutation` runs them all, one after the other.
import { FOLDERS, folderConfig } from './stryker/folders.mjs';

// Several folders, comma-separated, share one run (one initial test run): their reports are one.
const names = (process.env.MUTATION_FOLDER ?? '').split(',').filter(Boolean);
const unknown = names.find((n) => !(n in FOLDERS));
if (names.length === 0 || unknown !== undefined) {
  throw new Error(`MUTATION_FOLDER must name some of ${Object.keys(FOLDERS).join(', ')}`);
}
const chosen = names.map((n) => FOLDERS[n]);
export default folderConfig({
  // MUTATION_REPORT names a run narrowed by hand (MUTATE, MUTATION_SPEC), not to overwrite the folder's.
  name: process.env.MUTATION_REPORT ?? `folder-${names.join('+')}`,
  mutate: chosen.flatMap((f) => f.mutate),
  spec: [...new Set(chosen.flatMap((f) => f.spec))],
  tsconfigFile: chosen[0].tsconfigFile,
});
