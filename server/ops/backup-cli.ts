// `npm run backup -- FILE`: a consistent snapshot of the whole database, gzip-compressed, while
// the service runs. Embedded database: the running service takes it (control socket); with no
// service running, this process opens the database itself. PostgreSQL: this process, in one
// REPEATABLE READ transaction. The file is written beside FILE and renamed once complete, owner-
// only (it holds password hashes and the token secret).
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { cliSetup, describeTarget, fail, runCli, withDb } from './cli.js';
import { connectControl } from './control.js';
import { OpsError, writeSnapshot } from './snapshot.js';

const USAGE = 'Usage: npm run backup -- FILE   (writes a gzip-compressed snapshot of the whole database to FILE)';

const args = process.argv.slice(2);
if (args.length !== 1 || args[0]!.startsWith('-')) fail(USAGE, args[0] === '--help' || args[0] === '-h' ? 0 : 2);
const file = path.resolve(args[0]!);
const { target } = cliSetup();

/** Passes bytes through, remembering the first and the last line (whether the snapshot ended). */
class Watch extends Transform {
  first = '';
  tail = '';
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void) {
    const text = chunk.toString('utf8');
    if (this.first.length < 4096 && !this.first.includes('\n')) this.first += text.slice(0, 4096);
    this.tail = (this.tail + text).slice(-4096);
    done(null, chunk);
  }
  ended(): boolean {
    const lines = this.tail.trimEnd().split('\n');
    try {
      return (JSON.parse(lines[lines.length - 1]!) as { end?: unknown }).end === true;
    } catch {
      return false;
    }
  }
}

runCli('Backup', async () => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  const out = fs.createWriteStream(partial, { mode: 0o600 });
  await once(out, 'open');
  let from: string;
  try {
    const socket =
      target.kind === 'pglite' && target.dataDir ? await connectControl(target.dataDir, { command: 'backup' }) : null;
    if (socket) {
      from = 'the running service';
      const watch = new Watch();
      await pipeline(socket, watch, zlib.createGzip(), out);
      if (!watch.ended()) {
        let message = 'the service stopped sending before the end; see its log';
        try {
          message = (JSON.parse(watch.first.split('\n')[0]!) as { error?: string }).error ?? message;
        } catch {
          // the first line was not an error line
        }
        throw new OpsError(`Backup failed: ${message}.`);
      }
    } else {
      from = describeTarget(target);
      const gzip = zlib.createGzip();
      const done = pipeline(gzip, out);
      await withDb(target, (db) =>
        writeSnapshot(db, target.kind, async (line) => {
          if (!gzip.write(`${line}\n`)) await once(gzip, 'drain');
        }),
      );
      gzip.end();
      await done;
    }
  } catch (err) {
    out.destroy();
    fs.rmSync(partial, { force: true });
    throw err;
  }
  fs.renameSync(partial, file);
  const size = fs.statSync(file).size;
  process.stdout.write(`Backup of ${from} written to ${file} (${(size / 1024).toFixed(0)} KiB).\n`);
});
