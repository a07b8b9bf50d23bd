// The service under test, in a child process (service-child.ts), with the calls the benchmarks
// need: a family with a real session, REST as its admin, seeding, the raw pull baseline, a
// family write that emits an event, and the process's memory.
import path from 'node:path';
import { BENCH_DIR, serviceEnv } from './common.js';
import { forkRemote, type Remote } from './rpc.js';
import type { Session } from '@family-shopping/client';

export interface BenchFamily {
  familyId: string;
  userId: string;
  /** Access token for REST calls (1 h). */
  token: string;
  /** A session from POST /api/auth/login, for SDK devices. */
  session: Session;
}

export class Service {
  private constructor(
    readonly remote: Remote,
    readonly url: string,
  ) {}

  /** `execArgv`: extra Node flags of the service process (e.g. `--cpu-prof`). */
  static async start(env: Record<string, string | undefined> = {}, execArgv: string[] = []): Promise<Service> {
    const remote = await forkRemote('service', path.join(BENCH_DIR, 'lib', 'service-child.ts'), process.env, execArgv);
    const { url } = await remote.call<{ url: string }>('start', { env: serviceEnv(env) });
    return new Service(remote, url);
  }

  family(): Promise<BenchFamily> {
    return this.remote.call('family');
  }

  rest<T = any>(f: BenchFamily, method: string, path: string, body?: unknown): Promise<T> {
    return this.remote.call('rest', { token: f.token, method, path, body });
  }

  seedItems(f: BenchFamily, listId: string, n: number, chunk?: number): Promise<void> {
    return this.remote.call('seedItems', { familyId: f.familyId, listId, n, chunk });
  }

  rawPull(f: BenchFamily, page: number): Promise<{ ms: number; rows: number }> {
    return this.remote.call('rawPull', { familyId: f.familyId, page });
  }

  emit(f: BenchFamily, listId: string, k: number): Promise<number> {
    return this.remote.call('emit', { familyId: f.familyId, listId, k });
  }

  dropFamily(f: BenchFamily): Promise<void> {
    return this.remote.call('dropFamily', { familyId: f.familyId });
  }

  /** The service process's CPU time so far (user + system), µs. */
  cpu(): Promise<number> {
    return this.remote.call('cpu');
  }

  memory(): Promise<{ rss: number; heapUsed: number; external: number; arrayBuffers: number }> {
    return this.remote.call('memory');
  }

  async close(): Promise<void> {
    await this.remote.call('close').catch(() => undefined);
    await this.remote.close();
  }
}
