// The parent's side of device.ts: fork it (with tsx), send commands, await answers.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ClientOptions } from './helpers.js';

export interface Device {
  call<T = any>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  /** Destroys the device's client and ends the process. */
  close(): Promise<void>;
}

export async function openDevice(
  app: { url: string },
  user: { email: string; password: string },
  options: ClientOptions = {},
): Promise<Device> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./device.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  child.on('message', (m: { seq: number; ok: boolean; result?: unknown; error?: string }) => {
    const p = pending.get(m.seq);
    pending.delete(m.seq);
    if (m.ok) p?.resolve(m.result);
    else p?.reject(new Error(`device: ${m.error}`));
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`device exited with ${code}`));
    pending.clear();
  });
  const device: Device = {
    call(cmd, args = {}) {
      return new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ seq: id, cmd, ...args });
      });
    },
    async close() {
      if (child.exitCode !== null || !child.connected) return;
      await device.call('destroy').catch(() => undefined);
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      await exited;
    },
  };
  try {
    await device.call('open', { url: app.url, email: user.email, password: user.password, options });
  } catch (err) {
    child.kill();
    throw err;
  }
  return device;
}
