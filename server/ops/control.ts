// The control socket of a service that holds the embedded database (PGlite in DATA_DIR). PGlite
// is one connection inside the service's process, and its directory must never be opened by a
// second process while the service runs; so `npm run backup` and `npm run admin` ask the running
// service, over a Unix socket beside the database, to do the work on its own connection.
//
// The socket lives in a directory only the service's user may enter (0700), the socket itself
// 0600: whoever can use it could read the data directory anyway. Protocol: one JSON line from the
// client, `{"command":"backup"}` or `{"command":"admin","args":[…]}`; the answer is the snapshot's
// lines (server/ops/snapshot.ts), or one JSON line `{code, stdout, stderr}`, or
// `{"error":"…"}`; then the service closes the connection.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import type { Deps } from '../context.js';
import { errorFields } from '../log.js';
import { runAdmin, type AdminResult } from './admin.js';
import { writeSnapshot } from './snapshot.js';

/** Where the control socket of the embedded database in `dataDir` is. */
export const controlSocketPath = (dataDir: string) => path.join(`${dataDir}.control`, 'socket');

const Request = z.discriminatedUnion('command', [
  z.object({ command: z.literal('backup') }),
  z.object({ command: z.literal('admin'), args: z.array(z.string().max(4096)).max(16) }),
  z.object({ command: z.literal('status') }),
]);
export type ControlRequest = z.infer<typeof Request>;

const MAX_REQUEST = 64 * 1024;

export interface ControlSocket {
  path: string;
  close(): Promise<void>;
}

/** Writes a line, waiting while the socket's buffer is full; fails once the client has gone. */
function lineWriter(socket: net.Socket) {
  return async (line: string) => {
    if (socket.destroyed) throw new Error('the client went away');
    if (socket.write(`${line}\n`)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        socket.off('drain', done);
        socket.off('close', gone);
        if (err) reject(err);
        else resolve();
      };
      const gone = () => done(new Error('the client went away'));
      socket.once('drain', () => done());
      socket.once('close', gone);
    });
  };
}

/**
 * Opens the control socket of a running service (server/server.ts, embedded database in a
 * directory only). The caller holds the data directory's lock, so a socket file left by a
 * crashed process is stale and replaced.
 */
export async function openControlSocket(
  dataDir: string,
  options: { deps: Deps; baseUrl: () => Promise<string> },
): Promise<ControlSocket> {
  const { deps } = options;
  const file = controlSocketPath(dataDir);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  fs.rmSync(file, { force: true });
  const sockets = new Set<net.Socket>();

  const serve = async (socket: net.Socket, text: string) => {
    let request: ControlRequest;
    try {
      request = Request.parse(JSON.parse(text));
    } catch {
      socket.end(`${JSON.stringify({ error: 'unknown request' })}\n`);
      return;
    }
    if (request.command === 'status') {
      socket.end(`${JSON.stringify({ running: true, pid: process.pid })}\n`);
    } else if (request.command === 'admin') {
      let result: AdminResult;
      try {
        result = await runAdmin({ deps, baseUrl: await options.baseUrl() }, request.args);
      } catch (err) {
        deps.log.error({ err: errorFields(err) }, 'admin command failed');
        result = { code: 1, stdout: '', stderr: 'The command failed; the service log has the details.\n' };
      }
      socket.end(`${JSON.stringify(result)}\n`);
    } else {
      try {
        const counts = await writeSnapshot(deps.db, 'pglite', lineWriter(socket));
        deps.log.info({ tables: Object.keys(counts).length }, 'backup taken through the control socket');
        socket.end();
      } catch (err) {
        deps.log.error({ err: errorFields(err) }, 'backup failed');
        socket.destroy(); // no end line: the client knows the file is incomplete
      }
    }
  };

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) {
        if (buffered.length > MAX_REQUEST) socket.destroy();
        return;
      }
      socket.off('data', onData);
      void serve(socket, buffered.slice(0, newline));
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(file, 0o600);

  return {
    path: file,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }); // closing the server removes the socket file
    },
  };
}

/**
 * Connects to the control socket of the service running on `dataDir` and sends a request; null
 * when no service answers there.
 */
export async function connectControl(dataDir: string, request: ControlRequest): Promise<net.Socket | null> {
  const file = controlSocketPath(dataDir);
  if (!fs.existsSync(file)) return null;
  return new Promise((resolve, reject) => {
    const socket = net.connect(file);
    socket.once('connect', () => {
      socket.off('error', onError);
      socket.write(`${JSON.stringify(request)}\n`);
      resolve(socket);
    });
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(null);
      else reject(err);
    };
    socket.once('error', onError);
  });
}
