// The runner's side of client.ts (fork it with tsx, send commands, await answers), REST calls
// to whichever instance is up, and a seeded PRNG.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Instance } from './cluster.js';

/** mulberry32: small, fast, good enough to replay a schedule from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T | undefined => (xs.length ? xs[Math.floor(next() * xs.length)] : undefined),
    weighted: <T extends string>(weights: Record<T, number>): T => {
      const entries = Object.entries(weights) as [T, number][];
      let r = next() * entries.reduce((s, [, w]) => s + w, 0);
      for (const [k, w] of entries) if ((r -= w) < 0) return k;
      return entries[entries.length - 1]![0];
    },
    uuid: () => {
      const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
      hex[12] = '4';
      hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
      const h = hex.join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
}
export type Prng = ReturnType<typeof prng>;

export interface ClientProcess {
  call<T = any>(cmd: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export function forkClient(): ClientProcess {
  const child: ChildProcess = fork(fileURLToPath(new URL('./client.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--conditions=@family-shopping/source'],
    env: { ...process.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (m: { seq: number; ok: boolean; result?: unknown; error?: string }) => {
    const p = pending.get(m.seq);
    pending.delete(m.seq);
    if (m.ok) p?.resolve(m.result);
    else p?.reject(new Error(`client: ${m.error}`));
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`client process exited with ${code}`));
    pending.clear();
  });
  const proc: ClientProcess = {
    call(cmd, args = {}, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`client: ${cmd} unanswered after ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (v) => (clearTimeout(timer), resolve(v as never)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        child.send({ seq: id, cmd, ...args });
      });
    },
    async close() {
      if (child.exitCode !== null || !child.connected) return;
      await proc.call('destroy', {}, 10_000).catch(() => undefined);
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  return proc;
}

export interface RestResult {
  status: number;
  body: any;
}

let addressSeq = 0;

/** A REST call to the first instance that answers (a load balancer's view), with its own client
 *  address (the servers trust X-Forwarded-For) so the run's logins and registrations never meet
 *  the per-address limits. status 0: no instance answered. */
export async function rest(
  instances: readonly Instance[],
  method: string,
  path: string,
  { token, body }: { token?: string; body?: unknown } = {},
): Promise<RestResult> {
  const n = ++addressSeq;
  for (const instance of instances.filter((i) => i.running)) {
    try {
      const res = await fetch(`${instance.url}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          'x-forwarded-for': `172.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(8000),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    } catch {
      // this instance is down or did not answer: the other one
    }
  }
  return { status: 0, body: undefined };
}
