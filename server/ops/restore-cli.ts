// `npm run restore -- FILE`: loads a backup (npm run backup) into an empty database — a new
// DATA_DIR, or a new PostgreSQL database — with every row exactly as it was. Run it with the
// service stopped; the next start migrates the restored database if the backup is older.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { cliSetup, describeTarget, fail, runCli, withDb } from './cli.js';
import { connectControl } from './control.js';
import { OpsError, restoreSnapshot } from './snapshot.js';

const USAGE = 'Usage: npm run restore -- FILE   (loads a backup made by npm run backup into an empty database)';

const args = process.argv.slice(2);
if (args.length !== 1 || args[0]!.startsWith('-')) fail(USAGE, args[0] === '--help' || args[0] === '-h' ? 0 : 2);
const file = path.resolve(args[0]!);
const { target } = cliSetup();

/** The backup's lines, gunzipped when the file is compressed. */
function lines(): AsyncIterable<string> {
  const fd = fs.openSync(file, 'r');
  const magic = Buffer.alloc(2);
  fs.readSync(fd, magic, 0, 2, 0);
  fs.closeSync(fd);
  let input: Readable = fs.createReadStream(file);
  if (magic[0] === 0x1f && magic[1] === 0x8b) input = input.pipe(zlib.createGunzip());
  return readline.createInterface({ input, crlfDelay: Infinity });
}

runCli('Restore', async () => {
  if (!fs.existsSync(file)) fail(`No such file: ${file}`);
  if (target.kind === 'pglite' && target.dataDir) {
    const socket = await connectControl(target.dataDir, { command: 'status' });
    if (socket) {
      socket.destroy();
      throw new OpsError(
        `The service is running on ${target.dataDir}. Stop it, and restore into an empty DATA_DIR (then start the service on it).`,
      );
    }
  }
  const started = Date.now();
  const counts = await withDb(target, (db) => restoreSnapshot(db, lines()), { create: true });
  const rows = Object.values(counts).reduce((a, b) => a + b, 0);
  process.stdout.write(
    `Restored ${rows} rows in ${Object.keys(counts).length} tables into ${describeTarget(target)} ` +
      `(${((Date.now() - started) / 1000).toFixed(1)} s).\n`,
  );
});
