// Request/answer messaging between a benchmark and the processes and worker threads it
// drives (services, peers, devices), plus the events they send on their own (arrivals).
import { fork, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { EventEmitter } from 'node:events';
import { ROOT } from './common.js';

type Handler = (args: any) => unknown;
interface Port {
  send(msg: unknown): void;
  on(event: 'message', fn: (msg: any) => void): void;
}

/** The driven side: answers `{ seq, cmd, args }` with `{ seq, ok, result | error }`. */
export function serve(port: Port, handlers: Record<string, Handler>): void {
  port.on('message', (msg: { seq?: number; cmd?: string; args?: unknown }) => {
    if (typeof msg?.seq !== 'number' || typeof msg.cmd !== 'string') return;
    const handler = handlers[msg.cmd];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown command ${msg.cmd}`);
        return handler(msg.args);
      })
      .then(
        (result) => port.send({ seq: msg.seq, ok: true, result: result ?? null }),
        (err: Error) => port.send({ seq: msg.seq, ok: false, error: String(err?.stack ?? err) }),
      );
  });
}

/** The driving side of one process or worker. Messages without a seq are emitted as 'event'. */
export class Remote extends EventEmitter {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private exited = false;

  constructor(
    readonly name: string,
    private readonly port: Port,
    private readonly stop: () => Promise<void>,
  ) {
    super();
    port.on('message', (msg: any) => {
      if (typeof msg?.seq === 'number' && this.waiting.has(msg.seq)) {
        const w = this.waiting.get(msg.seq)!;
        this.waiting.delete(msg.seq);
        if (msg.ok) w.resolve(msg.result);
        else w.reject(new Error(`${this.name}: ${msg.error}`));
      } else {
        this.emit('event', msg);
      }
    });
  }

  call<T = any>(cmd: string, args?: unknown, timeoutMs = 600_000): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`${this.name} has exited`));
    const seq = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(seq);
        reject(new Error(`${this.name}: ${cmd} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(seq, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.port.send({ seq, cmd, args });
    });
  }

  /** Called by the owner when the process or thread is gone. */
  exitedWith(why: string): void {
    if (this.exited) return;
    this.exited = true;
    for (const w of this.waiting.values()) w.reject(new Error(`${this.name} exited (${why})`));
    this.waiting.clear();
  }

  close(): Promise<void> {
    return this.stop();
  }
}

/** Forks `script` (TypeScript, run through tsx with the source condition) as a process. */
export async function forkRemote(
  name: string,
  script: string,
  env: Record<string, string | undefined>,
  execArgv: string[] = [],
): Promise<Remote> {
  const child: ChildProcess = fork(script, [], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    execArgv: ['--conditions=@family-shopping/source', '--import', 'tsx', '--expose-gc', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port: Port = { send: (m) => child.send(m as any), on: (e, fn) => child.on(e, fn) };
  const remote = new Remote(name, port, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(t);
  });
  child.once('exit', (code, signal) => remote.exitedWith(`${code ?? signal}`));
  // Answers 'ready' once its handlers are in place.
  await new Promise<void>((resolve, reject) => {
    const onMsg = (m: any) => {
      if (m?.ready) {
        child.off('message', onMsg);
        resolve();
      }
    };
    child.on('message', onMsg);
    child.once('exit', (code) => reject(new Error(`${name} exited at start (${code})`)));
  });
  return remote;
}

/** Starts a worker thread on a bundled ES module (see bundle.ts), `workerData` passed as is. */
export async function workerRemote(name: string, file: string, workerData: unknown): Promise<Remote> {
  const worker = new Worker(file, { workerData, stdout: false, stderr: false });
  const port: Port = { send: (m) => worker.postMessage(m), on: (e, fn) => worker.on(e, fn) };
  const remote = new Remote(name, port, async () => {
    await worker.terminate();
  });
  worker.once('exit', (code) => remote.exitedWith(String(code)));
  worker.on('error', (err) => {
    console.error(`${name}: ${err?.stack ?? err}`);
    remote.exitedWith('error');
  });
  await new Promise<void>((resolve, reject) => {
    const onMsg = (m: any) => {
      if (m?.ready) {
        worker.off('message', onMsg);
        resolve();
      }
    };
    worker.on('message', onMsg);
    worker.once('error', reject);
  });
  return remote;
}

/** Starts `count` remotes, `batch` at a time. */
export async function startMany<T>(count: number, start: (i: number) => Promise<T>, batch = 8): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += batch) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, k) => start(i + k)))));
  }
  return out;
}
