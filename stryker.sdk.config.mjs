// @ts-check
// Mutation testing of the SDK (client-sdk/src) against the tests that exercise it: its unit
// tests, the protocol's, and the SDK's end-to-end tests against the real app. See stryker/base.mjs.
//
// SDK_FOLDER=<folder> runs one folder of client-sdk/src against the fast tests that cover it, with
// its own report and incremental file (reports/mutation/sdk-<folder>.*); SDK_FILE=<file> narrows
// that to one file of the folder and the tests of that file (the results of the folder's other
// files are kept). A whole-SDK run with the end-to-end specs takes days on two cores; each mutant
// pays a mocha start (about 3 s), so a file's run takes minutes.
import { mutationConfig } from './stryker/base.mjs';

const PROTOCOL_UNIT = 'test/unit/protocol';
/** @type {Record<string, { files: Record<string, string[]> }>} */
const FOLDERS = {
  protocol: {
    files: {
      'merge.ts': [
        `${PROTOCOL_UNIT}/merge.test.ts`,
        `${PROTOCOL_UNIT}/merge-equality.test.ts`,
        `${PROTOCOL_UNIT}/merge.property.test.ts`,
      ],
      'rules.ts': [
        `${PROTOCOL_UNIT}/names.test.ts`,
        `${PROTOCOL_UNIT}/rules.test.ts`,
        `${PROTOCOL_UNIT}/views.test.ts`,
        'test/unit/web-locale.test.ts',
        'test/unit/locale-names.test.ts',
      ],
      'views.ts': [`${PROTOCOL_UNIT}/views.test.ts`, `${PROTOCOL_UNIT}/views-order.test.ts`],
      'edits.ts': [`${PROTOCOL_UNIT}/edits.test.ts`, `${PROTOCOL_UNIT}/merge.test.ts`],
      'daily.ts': [`${PROTOCOL_UNIT}/daily.test.ts`, 'test/unit/sdk/daily-domain.test.ts'],
      'docs.ts': [
        `${PROTOCOL_UNIT}/docs.test.ts`,
        `${PROTOCOL_UNIT}/docs-fields.test.ts`,
        `${PROTOCOL_UNIT}/contract.test.ts`,
        `${PROTOCOL_UNIT}/merge.test.ts`,
      ],
      'sync.ts': [
        `${PROTOCOL_UNIT}/sync.test.ts`,
        `${PROTOCOL_UNIT}/sync-wire.test.ts`,
        `${PROTOCOL_UNIT}/contract.test.ts`,
      ],
      'realtime.ts': [
        `${PROTOCOL_UNIT}/realtime.test.ts`,
        `${PROTOCOL_UNIT}/realtime-wire.test.ts`,
        `${PROTOCOL_UNIT}/contract.test.ts`,
      ],
      'inputs.ts': [
        `${PROTOCOL_UNIT}/inputs.test.ts`,
        `${PROTOCOL_UNIT}/names.test.ts`,
        `${PROTOCOL_UNIT}/contract.test.ts`,
      ],
      'locale-names.ts': ['test/unit/locale-names.test.ts'],
    },
  },
};

const folder = process.env.SDK_FOLDER;
const file = process.env.SDK_FILE;
if (folder !== undefined && !(folder in FOLDERS)) {
  throw new Error(`SDK_FOLDER must be one of ${Object.keys(FOLDERS).join(', ')}`);
}

/** The folder's files and their tests: one file (SDK_FILE), or all of them. */
function scope(/** @type {string} */ name) {
  const { files } = FOLDERS[name];
  if (file !== undefined && !(file in files)) {
    throw new Error(`SDK_FILE must be one of ${Object.keys(files).join(', ')}`);
  }
  const chosen = file === undefined ? Object.keys(files) : [file];
  return {
    mutate: chosen.map((f) => `client-sdk/src/${name}/${f}`),
    spec: [...new Set(chosen.flatMap((f) => files[f]))],
  };
}

// The type check of a folder's mutants covers the SDK's sources alone (stryker/tsconfig.sdk.json):
// a mutant that breaks only a test's or the server's types still runs, and its tests judge it.
export default folder
  ? mutationConfig({ name: `sdk-${folder}`, tsconfigFile: 'stryker/tsconfig.sdk.json', ...scope(folder) })
  : mutationConfig({
      name: 'sdk',
      mutate: ['client-sdk/src/**/*.ts', '!client-sdk/src/**/*.d.ts'],
      spec: ['test/unit/sdk/**/*.test.ts', 'test/unit/protocol/**/*.test.ts', 'test/e2e/sdk/**/*.test.ts'],
    });
