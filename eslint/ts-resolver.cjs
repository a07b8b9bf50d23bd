// The import resolver ESLint's boundary rules use (eslint-module-utils resolver interface v2).
// Our sources import TypeScript files by their `.js` names (NodeNext) and the SDK package by
// its `@family-shopping/source` export condition; this maps both to the files on disk. It is
// ours because eslint-import-resolver-typescript needs unrs-resolver's prebuilt binaries for
// every platform in package-lock.json, which the registry this project installs from lacks
// (npm ci then refuses the lock file).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules, createRequire } = require('node:module');

const root = path.resolve(__dirname, '..');
const SDK = '@family-shopping/client';
const sdkExports = require(path.join(root, 'client-sdk', 'package.json')).exports;

function firstFile(candidates) {
  return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile()) ?? null;
}

function resolveFile(target) {
  const base = target.replace(/\.(c|m)?js$/, '');
  return firstFile([
    target,
    `${base}.ts`,
    `${base}.tsx`,
    `${base}.mts`,
    path.join(target, 'index.ts'),
    path.join(target, 'index.tsx'),
  ]);
}

exports.interfaceVersion = 2;

exports.resolve = function resolve(source, file) {
  if (source.startsWith('node:') || builtinModules.includes(source)) return { found: true, path: null };
  if (source.startsWith('.') || path.isAbsolute(source)) {
    const found = resolveFile(path.resolve(path.dirname(file), source));
    return found ? { found: true, path: found } : { found: false };
  }
  if (source === SDK || source.startsWith(`${SDK}/`)) {
    const entry = sdkExports['.' + source.slice(SDK.length)];
    const target = entry && entry['@family-shopping/source'];
    return target ? { found: true, path: path.join(root, 'client-sdk', target) } : { found: false };
  }
  try {
    return { found: true, path: createRequire(file).resolve(source) };
  } catch {
    // a package that only has an ESM entry or types: external all the same
    return { found: true, path: null };
  }
};
