#!/usr/bin/env bash
# The SDK as an outside app gets it: `npm pack` of client-sdk, installed into a fresh app in a
# temp dir (with rxdb and rxjs, its peer dependencies, from the registry), then
#   1. imported in Node (ESM) and type-checked with its declarations,
#   2. bundled for a browser with esbuild, checking that the bundle holds exactly one copy of
#      each dependency (rxdb, rxjs, zod, dexie).
# Run from the repo root after `npm run build` (CI runs it after npm ci, which builds).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/fs-pack-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

cd "$ROOT"
[ -f client-sdk/dist/index.js ] || npm run build -w @family-shopping/client
TARBALL="$(cd client-sdk && npm pack --silent --pack-destination "$WORK" | tail -n 1)"
echo "[pack-check] packed $TARBALL ($(du -k "$WORK/$TARBALL" | cut -f1) KiB)"

RXDB_VERSION="$(node -p "require('$ROOT/node_modules/rxdb/package.json').version")"
RXJS_VERSION="$(node -p "require('$ROOT/node_modules/rxjs/package.json').version")"
ESBUILD_VERSION="$(node -p "require('$ROOT/node_modules/esbuild/package.json').version")"
TS_VERSION="$(node -p "require('$ROOT/node_modules/typescript/package.json').version")"

mkdir -p "$WORK/app"
cd "$WORK/app"
cat > package.json <<JSON
{ "name": "outside-app", "private": true, "type": "module",
  "dependencies": { "@family-shopping/client": "file:../$TARBALL", "rxdb": "$RXDB_VERSION", "rxjs": "$RXJS_VERSION" },
  "devDependencies": { "esbuild": "$ESBUILD_VERSION", "typescript": "$TS_VERSION" } }
JSON
npm install --no-audit --no-fund --loglevel=error >/dev/null
echo "[pack-check] installed into a fresh app"

cat > node-check.mjs <<'JS'
import { createFamilyClient, FamilyClientError } from '@family-shopping/client';
import { SCHEMA_VERSION, COLLECTIONS } from '@family-shopping/client/protocol';
if (typeof createFamilyClient !== 'function' || typeof FamilyClientError !== 'function') throw new Error('exports missing');
if (SCHEMA_VERSION < 1 || COLLECTIONS.length !== 9) throw new Error('protocol exports wrong');
console.log('[pack-check] Node ESM import ok');
JS
node node-check.mjs

cat > app.ts <<'TS'
import { createFamilyClient, type FamilyClient } from '@family-shopping/client';
import { docSchemas, type ListDoc } from '@family-shopping/client/protocol';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
export async function open(): Promise<FamilyClient> {
  const client = await createFamilyClient({ baseUrl: location.origin, storage: getRxStorageDexie() });
  const first: ListDoc | undefined = undefined;
  console.log(docSchemas.lists, first);
  return client;
}
TS
cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler", "strict": true,
  "skipLibCheck": true, "noEmit": true, "lib": ["ES2022", "DOM"] }, "include": ["app.ts"] }
JSON
npx tsc -p tsconfig.json
echo "[pack-check] types ok"

npx esbuild app.ts --bundle --minify --format=esm --platform=browser --outfile=out.js --metafile=meta.json --log-level=error
node -e '
const meta = require("./meta.json");
const inputs = Object.keys(meta.inputs);
const roots = new Map();
for (const f of inputs) {
  const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(f);
  if (!m) continue;
  const set = roots.get(m[2]) ?? new Set(); set.add(m[1]); roots.set(m[2], set);
}
let bad = 0;
for (const name of ["rxdb", "rxjs", "dexie", "@family-shopping/client"]) {
  const copies = roots.get(name)?.size ?? 0;
  console.log(`[pack-check] ${name}: ${copies} cop${copies === 1 ? "y" : "ies"} in the bundle`);
  if (copies !== 1) bad++;
}
for (const [name, set] of roots) if (set.size > 1) { console.log(`[pack-check] ${name} bundled ${set.size} times: ${[...set].join(", ")}`); bad++; }
if (bad) process.exit(1);
'
echo "[pack-check] ok: $(gzip -c out.js | wc -c | awk "{printf \"%.1f KiB gzipped\", \$1/1024}")"
