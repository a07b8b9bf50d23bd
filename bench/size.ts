// `npm run size`: what the SDK costs a browser app. Bundles a minimal app (createFamilyClient
// with the default IndexedDB storage, as docs/sdk.md's quick start does) with esbuild, minified,
// and prints the minified and gzipped sizes of SDK + rxdb + Dexie storage + rxjs (+ zod), with
// the share of each package. Budget: 100 KiB gzipped; exits 1 above it. For scale it also
// bundles, in the same run, the floor any RxDB app with IndexedDB pays: RxDB with the Dexie
// storage, replication, local documents and one live query, without the SDK.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET_GZIP = 100 * 1024;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const entry = `
import { createFamilyClient } from '@family-shopping/client';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
const client = await createFamilyClient({ baseUrl: location.origin, storage: getRxStorageDexie() });
client.lists.summaries$().subscribe((lists) => console.log(lists));
await client.start();
`;

const result = await build({
  stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'minimal-app.ts' },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  // The package as an app resolves it: the same modules its dist holds, compiled from source.
  conditions: ['@family-shopping/source'],
  write: false,
  metafile: true,
  logLevel: 'error',
  define: { 'process.env.NODE_ENV': '"production"' },
});

const floorEntry = `
import { addRxPlugin, createRxDatabase } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { RxDBLocalDocumentsPlugin } from 'rxdb/plugins/local-documents';
addRxPlugin(RxDBLocalDocumentsPlugin);
const db = await createRxDatabase({ name: 'x', storage: getRxStorageDexie(), multiInstance: true, localDocuments: true });
await db.addCollections({ a: { schema: { version: 0, primaryKey: 'id', type: 'object', properties: { id: { type: 'string', maxLength: 36 } } } } });
replicateRxCollection({ collection: db.a, replicationIdentifier: 'x', pull: { handler: async () => ({ documents: [], checkpoint: null }) } });
db.a.find().$.subscribe((docs) => console.log(docs));
`;
const floor = await build({
  stdin: { contents: floorEntry, resolveDir: root, loader: 'ts', sourcefile: 'rxdb-floor.ts' },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  write: false,
  logLevel: 'error',
});
const floorBytes = floor.outputFiles[0]!.contents;

const out = result.outputFiles[0]!;
const minified = out.contents.byteLength;
const gzipped = gzipSync(out.contents, { level: 9 }).byteLength;

const byPackage = new Map<string, number>();
for (const [file, info] of Object.entries(result.metafile.outputs[Object.keys(result.metafile.outputs)[0]!]!.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  const name = m ? m[1]! : file.startsWith('client-sdk/') ? '@family-shopping/client' : file;
  byPackage.set(name, (byPackage.get(name) ?? 0) + info.bytesInOutput);
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log('| package | minified (in bundle) |');
console.log('|---|---:|');
for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1])) {
  if (bytes > 0) console.log(`| ${name} | ${kib(bytes)} |`);
}
console.log(`| **total** | **${kib(minified)}** minified, **${kib(gzipped)}** gzipped |`);
const floorGzip = gzipSync(floorBytes, { level: 9 }).byteLength;
console.log(
  `\nfloor (RxDB + Dexie storage + replication + local documents, no SDK): ${kib(floorBytes.byteLength)} minified, ${kib(floorGzip)} gzipped`,
);
console.log(`the SDK's own share (SDK, protocol, zod/mini, the rest of rxjs): ${kib(gzipped - floorGzip)} gzipped`);
const ok = gzipped <= BUDGET_GZIP;
console.log(
  `\nbudget ${kib(BUDGET_GZIP)} gzipped: ${ok ? 'within' : 'OVER'} (${((gzipped / BUDGET_GZIP) * 100).toFixed(0)} %)`,
);
process.exit(ok ? 0 : 1);
