// The service under test in a process of its own (so its CPU and memory are its own, and the
// load generator or the devices never share its event loop). Driven over IPC by service.ts.
// Run with --expose-gc: `memory` collects garbage before it reads the process's memory.
import crypto from 'node:crypto';
import { startServer, type RunningServer } from '../../server/server.js';
import { familyWrite } from '../../server/db/family-write.js';
import { makeFamily } from '../../test/helpers/factories.js';
import { serve } from './rpc.js';
import { rawItemPull } from './raw-pull.js';
import { now } from './common.js';

let app: RunningServer | undefined;
const need = () => {
  if (!app) throw new Error('not started');
  return app;
};

async function rest(token: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(need().url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function gcTwice() {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setImmediate(r));
  }
}

serve(
  { send: (m) => process.send!(m), on: (e, fn) => process.on(e, fn) },
  {
    async start(args: { env: Record<string, string> }) {
      app = await startServer({ env: args.env });
      return { url: app.url };
    },
    /** A family, its admin, an access token for REST, and a session from a real login. */
    async family() {
      const a = need();
      const family = await makeFamily(a);
      const r = await fetch(`${a.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: family.admin.email, password: family.admin.password }),
      });
      if (r.status !== 200) throw new Error(`login: ${r.status} ${await r.text()}`);
      const session = await r.json();
      return { familyId: family.familyId, userId: family.admin.userId, token: family.admin.token, session };
    },
    rest(args: { token: string; method: string; path: string; body?: unknown }) {
      return rest(args.token, args.method, args.path, args.body);
    },
    /** `n` items on a list, `chunk` rows per family write (one version each), straight into the
     *  table through familyWrite: a fast way to a big family for the pull benchmarks. */
    async seedItems(args: { familyId: string; listId: string; n: number; chunk?: number }) {
      const a = need();
      const chunk = args.chunk ?? 1000;
      for (let i = 0; i < args.n; i += chunk) {
        await familyWrite(a.deps, args.familyId, async (w) => {
          const rows = Array.from({ length: Math.min(chunk, args.n - i) }, (_, k) => ({
            id: crypto.randomUUID(),
            list_id: args.listId,
            name: `Item ${i + k}`,
            quantity: ((i + k) % 7) + 0.5,
            is_approximate: (i + k) % 3 === 0,
            quantity_note: (i + k) % 5 === 0 ? 'ripe ones' : null,
            checked: (i + k) % 4 === 0,
            created_at: w.now,
            ...w.stamp('shopping_list_items'),
          }));
          await w.trx('shopping_list_items').insert(rows);
        });
      }
      return null;
    },
    /** The pull baseline (lib/raw-pull.ts). Returns { ms, rows }. */
    async rawPull(args: { familyId: string; page: number }) {
      return rawItemPull(need().deps.db, args.familyId, args.page);
    },
    /** One family write that emits ListProgress; answers the absolute time of its commit. */
    async emit(args: { familyId: string; listId: string; k: number }) {
      let t0 = 0;
      await familyWrite(need().deps, args.familyId, async (w) => {
        w.emit({ type: 'ListProgress', listId: args.listId, itemCount: args.k, checkedCount: args.k % 3 });
        w.afterCommit(() => {
          t0 = now();
        });
      });
      return t0;
    },
    /** The process's CPU time so far (user + system), µs. */
    cpu() {
      const c = process.cpuUsage();
      return c.user + c.system;
    },
    /** The process's memory after garbage collection. */
    async memory() {
      await gcTwice();
      const m = process.memoryUsage();
      return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
    },
    /** Deletes a family and everything it owns (keeps a PostgreSQL bench database small). */
    async dropFamily(args: { familyId: string }) {
      await need().deps.db('families').where({ id: args.familyId }).del();
      return null;
    },
    async close() {
      await app?.close();
      app = undefined;
      return null;
    },
  },
);
process.send!({ ready: true });
process.on('disconnect', () => process.exit(0));
// A normal exit on SIGTERM (how the benchmark stops it), so `--cpu-prof` writes its profile.
process.on('SIGTERM', () => process.exit(0));
