// The chaos scenario (issue 25 item 3): two families of SDK clients, each client behind a
// fault-injecting proxy, two service instances on PostgreSQL + Redis; a seeded random schedule
// of domain calls, REST writes, network faults, member removals and re-invitations, an instance
// killed with SIGKILL and restarted, Redis restarted. Then every fault is healed and the run
// checks what a user could observe:
// 1. every client is signed in;
// 2. every client's views equal the REST views (lists, list details, stores and their sections,
//    recipes, products, units);
// 3. every acknowledged write is on the server: each record a client wrote locally (its push is
//    accepted by the end: pending 0, no `rejected`) or REST acknowledged with a 2xx is there,
//    with the last name its only writer gave it, unless it or its list was deleted;
// 4. no live frame names a record of the other family, and no frame reaches a removed member's
//    client more than 5 s after the removal answered (until it joined again).
import { isDeepStrictEqual } from 'node:util';
import { SCHEMA_VERSION } from '@family-shopping/client/protocol';
import { FaultProxy, type FaultKind } from './proxy.js';
import { forkClient, prng, rest, type ClientProcess, type Prng } from './harness.js';
import type { Cluster } from './cluster.js';
import { sleep } from '../helpers/wait.js';

const PASSWORD = 'chaos correct horse';

export interface Options {
  seed: number;
  minutes: number;
  clients: number;
}

interface Actor {
  index: number;
  family: number;
  email: string;
  userName: string;
  userId: string;
  admin: boolean;
  proc: ClientProcess;
  proxy: FaultProxy;
  /** Ops run one after another per client, so "the last write" is well defined. */
  chain: Promise<unknown>;
  removed: boolean;
  /** [removal answered, joined again] */
  removals: { at: number; until: number | null }[];
  ops: number;
}

type Kind = 'list' | 'item' | 'store' | 'recipe' | 'product' | 'unit';
interface Rec {
  kind: Kind;
  id: string;
  family: number;
  writer: string;
  name: string | null;
  listId?: string;
  deleted: boolean;
}

export interface Figures {
  seed: number;
  minutes: number;
  clients: number;
  operations: Record<string, number>;
  faults: Record<string, number>;
  restWrites: number;
  removals: number;
  instanceKills: number;
  redisRestarts: number;
  framesSeen: number;
  rejectedRows: Record<string, number>;
  convergenceMs: number;
  failures: string[];
}

export async function runScenario(cluster: Cluster, o: Options, log: (s: string) => void): Promise<Figures> {
  const rnd: Prng = prng(o.seed);
  const { instances } = cluster;
  const figures: Figures = {
    seed: o.seed,
    minutes: o.minutes,
    clients: o.clients,
    operations: {},
    faults: {},
    restWrites: 0,
    removals: 0,
    instanceKills: 0,
    redisRestarts: 0,
    framesSeen: 0,
    rejectedRows: {},
    convergenceMs: 0,
    failures: [],
  };
  const count = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);
  const recs = new Map<string, Rec>();
  const familyIds: string[] = [];
  const adminTokens: string[] = [];
  const actors: Actor[] = [];
  const tag = `${o.seed.toString(36)}${Date.now().toString(36).slice(-4)}`;

  // --- families and clients ----------------------------------------------------------------
  const must = async (method: string, path: string, init: { token?: string; body?: unknown } = {}) => {
    for (let i = 0; ; i++) {
      const r = await rest(instances, method, path, init);
      if (r.status >= 200 && r.status < 300) return r.body;
      // A registration whose answer was lost (a loaded machine, an instance killed) did happen:
      // its retry is refused as a duplicate, and the account signs in instead.
      if (i > 0 && r.status === 409 && path === '/api/auth/register') {
        const { email, password } = init.body as { email: string; password: string };
        return must('POST', '/api/auth/login', { body: { email, password } });
      }
      if (i >= 20) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      await sleep(500);
    }
  };
  const perFamily = [Math.ceil(o.clients / 2), Math.floor(o.clients / 2)];
  for (let f = 0; f < 2; f++) {
    for (let k = 0; k < perFamily[f]!; k++) {
      const index = actors.length;
      const email = `chaos-${tag}-${index}@example.com`;
      const userName = `chaos-${tag}-${index}`;
      const session =
        k === 0
          ? await must('POST', '/api/auth/register', {
              body: { email, userName, password: PASSWORD, newFamilyName: `Chaos ${f}` },
            })
          : await must('POST', '/api/auth/register', {
              body: { email, userName, password: PASSWORD, familyCode: (await familyCode(f)) as string },
            });
      if (k === 0) {
        familyIds.push(session.family.id);
        adminTokens.push(session.accessToken);
      }
      const home = instances[index % 2]!;
      const other = instances[(index + 1) % 2]!;
      const proxy = new FaultProxy(() => [home.port, other.port]);
      actors.push({
        index,
        family: f,
        email,
        userName,
        userId: session.user.id,
        admin: k === 0,
        proc: forkClient(),
        proxy,
        chain: Promise.resolve(),
        removed: false,
        removals: [],
        ops: 0,
      });
    }
  }
  // The clients sign in and start all at once.
  await Promise.all(
    actors.map(async (a) => {
      const url = await a.proxy.listen();
      await a.proc.call('open', { url, email: a.email, password: PASSWORD }, 120_000);
      await a.proc.call('start');
    }),
  );
  async function familyCode(f: number) {
    return (await must('GET', '/api/family', { token: adminTokens[f] })).inviteCode;
  }
  /** REST as the family's admin, signing in again when the token has expired. */
  async function adminRest(f: number, method: string, path: string, body?: unknown) {
    let r = await rest(instances, method, path, { token: adminTokens[f], body });
    if (r.status === 401) {
      const a = actors.find((x) => x.family === f && x.admin)!;
      const s = await rest(instances, 'POST', '/api/auth/login', { body: { email: a.email, password: PASSWORD } });
      if (s.status === 200) adminTokens[f] = s.body.accessToken;
      r = await rest(instances, method, path, { token: adminTokens[f], body });
    }
    return r;
  }
  log(`[chaos] ${actors.length} clients in 2 families (${perFamily.join(' + ')}), each behind its own proxy`);

  // --- one domain call on a client -------------------------------------------------------
  const live = (f: number, kind: Kind) =>
    [...recs.values()].filter((r) => r.family === f && r.kind === kind && !r.deleted);
  const own = (a: Actor, kind: Kind) => live(a.family, kind).filter((r) => r.writer === `client ${a.index}`);
  let nameSeq = 0;
  const name = (what: string, a: { index: number } | string) =>
    `${what} ${typeof a === 'string' ? a : `c${a.index}`}-${++nameSeq}`;

  function domainCall(a: Actor): void {
    const writer = `client ${a.index}`;
    const kind = rnd.weighted({
      createList: 2,
      renameList: 1,
      archive: 0.6,
      unarchive: 0.6,
      deleteList: 0.2,
      addItem: 6,
      renameItem: 2,
      toggle: 3,
      remove: 1,
      restore: 1,
      createStore: 0.4,
      renameStore: 0.4,
      setListStore: 0.4,
      createRecipe: 0.4,
      renameRecipe: 0.4,
      copyToList: 0.4,
      createProduct: 0.4,
      renameProduct: 0.3,
      createUnit: 0.2,
    });
    let args: Record<string, unknown> | null = null;
    let after: ((res: any) => void) | null = null;
    const create = (k: Kind, extra: Partial<Rec> = {}, fields: Record<string, unknown> = {}) => {
      const id = rnd.uuid();
      const n = name(k, a);
      args = { id, name: n, ...fields };
      after = () => recs.set(id, { kind: k, id, family: a.family, writer, name: n, deleted: false, ...extra });
    };
    const rename = (k: Kind, key: string) => {
      const r = rnd.pick(own(a, k));
      if (!r) return;
      const n = name(k, a);
      args = { [key]: r.id, name: n, ...(r.listId ? { listId: r.listId } : {}) };
      after = () => (r.name = n);
    };
    const anyItem = () => {
      const item = rnd.pick(live(a.family, 'item').filter((i) => !recs.get(i.listId!)?.deleted));
      if (item) args = { listId: item.listId, itemId: item.id };
    };
    switch (kind) {
      case 'createList':
        create('list', {}, { storeId: rnd.next() < 0.3 ? (rnd.pick(live(a.family, 'store'))?.id ?? null) : null });
        break;
      case 'renameList':
        rename('list', 'listId');
        break;
      case 'archive':
      case 'unarchive': {
        const l = rnd.pick(live(a.family, 'list'));
        if (l) args = { listId: l.id };
        break;
      }
      case 'deleteList': {
        const l = rnd.pick(own(a, 'list'));
        if (!l) break;
        args = { listId: l.id };
        l.deleted = true; // deleted from now on, whatever the push's fate
        for (const i of live(a.family, 'item')) if (i.listId === l.id) i.deleted = true;
        break;
      }
      case 'addItem': {
        const l = rnd.pick(live(a.family, 'list'));
        if (l) create('item', { listId: l.id }, { listId: l.id, quantity: rnd.next() < 0.5 ? rnd.int(1, 5) : null });
        break;
      }
      case 'renameItem':
        rename('item', 'itemId');
        break;
      case 'toggle':
      case 'remove':
      case 'restore':
        anyItem();
        break;
      case 'createStore':
        create('store');
        break;
      case 'renameStore':
        rename('store', 'storeId');
        break;
      case 'setListStore': {
        const l = rnd.pick(live(a.family, 'list'));
        const s = rnd.pick(live(a.family, 'store'));
        if (l && s) args = { listId: l.id, storeId: s.id };
        break;
      }
      case 'createRecipe':
        create('recipe');
        break;
      case 'renameRecipe':
        rename('recipe', 'recipeId');
        break;
      case 'copyToList': {
        const r = rnd.pick(live(a.family, 'recipe'));
        const l = rnd.pick(live(a.family, 'list'));
        if (!r || !l) break;
        args = { recipeId: r.id, listId: l.id };
        after = (res) => {
          for (const id of res.items ?? [])
            recs.set(id, { kind: 'item', id, family: a.family, writer, name: null, listId: l.id, deleted: false });
        };
        break;
      }
      case 'createProduct':
        create('product');
        break;
      case 'renameProduct':
        rename('product', 'productId');
        break;
      case 'createUnit': {
        const id = rnd.uuid();
        const n = name('unit', a);
        args = { id, name: n, abbreviation: `u${tag}${nameSeq}` };
        after = () => recs.set(id, { kind: 'unit', id, family: a.family, writer, name: n, deleted: false });
        break;
      }
    }
    if (!args) return;
    const callArgs: Record<string, unknown> = args;
    const done: ((res: any) => void) | null = after;
    a.chain = a.chain.then(async () => {
      const res = await a.proc.call('op', { op: kind, args: callArgs });
      if (res.ok) {
        a.ops++;
        count(figures.operations, kind);
        done?.(res);
      } else count(figures.operations, `refused locally: ${res.code}`);
    });
  }

  // --- REST writes by a family's admin -------------------------------------------------
  async function restWrite(f: number): Promise<void> {
    const writer = `rest ${f}`;
    const l = rnd.pick(live(f, 'list'));
    if (!l || rnd.next() < 0.3) {
      const id = rnd.uuid();
      const n = name('list', writer);
      const r = await adminRest(f, 'POST', '/api/lists', { id, name: n });
      if (r.status === 201 || r.status === 200) {
        recs.set(id, { kind: 'list', id, family: f, writer, name: n, deleted: false });
        figures.restWrites++;
      }
      return;
    }
    const id = rnd.uuid();
    const n = name('item', writer);
    const r = await adminRest(f, 'POST', `/api/lists/${l.id}/items`, { id, name: n });
    if (r.status === 201 || r.status === 200) {
      recs.set(id, { kind: 'item', id, family: f, writer, name: n, listId: l.id, deleted: false });
      figures.restWrites++;
    }
  }

  // --- member removal and re-invitation ------------------------------------------------
  async function remove(a: Actor): Promise<void> {
    const r = await adminRest(a.family, 'DELETE', `/api/family/members/${a.userId}`);
    if (r.status !== 204) return;
    a.removed = true;
    a.removals.push({ at: Date.now(), until: null });
    figures.removals++;
    log(`[chaos] ${(Date.now() - t0) / 1000}s: client ${a.index} removed from family ${a.family}`);
  }
  async function removeOne(now: number): Promise<void> {
    const candidate = rnd.pick(actors.filter((a) => !a.admin && !a.removed));
    if (!candidate) return;
    await remove(candidate);
    if (candidate.removed) pendingRejoin.push({ actor: candidate, at: now + rnd.int(6000, 15000) });
  }
  async function reinvite(a: Actor): Promise<boolean> {
    const before = cluster.smtp.to(a.email).length;
    const inv = await adminRest(a.family, 'POST', '/api/family/invites', { email: a.email });
    const failed = (why: string) => {
      log(`[chaos] ${(Date.now() - t0) / 1000}s: client ${a.index} not joined yet (${why}): again later`);
      return false;
    };
    if (inv.status === 409 && inv.body?.code === 'already_member') {
      // Its registration went through but the answer was lost on the way: it signs in.
      try {
        await a.proc.call('login', { email: a.email, password: PASSWORD });
      } catch (err) {
        return failed(`login after a lost registration answer: ${String(err).split('\n')[0]!}`);
      }
      return joined();
    }
    if (inv.status !== 201) return failed(`invite: ${inv.status} ${JSON.stringify(inv.body)}`);
    const mail = await cluster.smtp.waitFor(a.email, before + 1, 15_000).catch(() => null);
    const token = mail && /\/invite\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
    if (!token) return failed(mail ? 'no link in the mail' : 'no mail');
    try {
      await a.proc.call('register', { email: a.email, userName: a.userName, password: PASSWORD, inviteToken: token });
    } catch (err) {
      return failed(String(err).split('\n')[0]!); // e.g. its network is down
    }
    return joined();
    function joined() {
      a.removed = false;
      a.removals[a.removals.length - 1]!.until = Date.now();
      log(`[chaos] ${(Date.now() - t0) / 1000}s: client ${a.index} joined family ${a.family} again`);
      return true;
    }
  }

  // --- faults -----------------------------------------------------------------------------
  const heals: Promise<void>[] = [];
  function networkFault(a: Actor): void {
    if (a.proxy.faulty) return;
    const kind = rnd.weighted<FaultKind>({ delay: 3, drop: 1.5, reset: 2, partition: 2, halfOpen: 1.5 });
    count(figures.faults, kind);
    const delay = rnd.int(100, 1500);
    // partitions are the offline stretches: longer
    const lasts = kind === 'partition' ? rnd.int(3000, 15000) : rnd.int(1000, 6000);
    a.proxy.inject(kind, delay);
    heals.push(sleep(lasts).then(() => a.proxy.heal()));
  }

  async function killInstance(): Promise<void> {
    const victim = instances[rnd.int(0, 1)]!;
    if (!victim.running || !instances.every((i) => i.running)) return;
    count(figures.faults, 'instance SIGKILL');
    figures.instanceKills++;
    log(`[chaos] ${(Date.now() - t0) / 1000}s: SIGKILL ${victim.name}`);
    await victim.kill();
    await sleep(rnd.int(2000, 6000));
    await victim.start();
    log(`[chaos] ${(Date.now() - t0) / 1000}s: ${victim.name} started again`);
  }

  async function restartRedis(): Promise<void> {
    count(figures.faults, 'redis restart');
    figures.redisRestarts++;
    log(`[chaos] ${(Date.now() - t0) / 1000}s: redis-server killed`);
    await cluster.redis.stop();
    // A removal while Redis is down: the other instance learns of it from its own membership
    // check only (contract §13: sockets closed within 5 s all the same).
    const wait = sleep(rnd.int(3000, 8000));
    await removeOne(Date.now());
    await wait;
    await cluster.redis.start();
    log(`[chaos] ${(Date.now() - t0) / 1000}s: redis-server started again`);
  }

  // --- the schedule ------------------------------------------------------------------------
  const t0 = Date.now();
  const end = t0 + o.minutes * 60_000;
  const background: Promise<unknown>[] = [];
  let nextKill = t0 + 0.3 * (end - t0);
  let nextRedis = t0 + 0.6 * (end - t0);
  let nextRemoval = t0 + 0.15 * (end - t0);
  const period = Math.min(end - t0, 180_000); // process faults recur every 3 minutes of a long run
  const pendingRejoin: { actor: Actor; at: number; busy?: boolean }[] = [];
  let busyProcessFault: Promise<void> | null = null;

  while (Date.now() < end) {
    await sleep(rnd.int(50, 250));
    const now = Date.now();
    if (!busyProcessFault && now >= nextKill) {
      nextKill += period;
      busyProcessFault = killInstance().finally(() => (busyProcessFault = null));
      background.push(busyProcessFault);
    } else if (!busyProcessFault && now >= nextRedis) {
      nextRedis += period;
      busyProcessFault = restartRedis().finally(() => (busyProcessFault = null));
      background.push(busyProcessFault);
    }
    if (now >= nextRemoval) {
      nextRemoval += Math.max(20_000, (end - t0) / 3);
      await removeOne(now);
    }
    for (const p of pendingRejoin.filter((x) => x.at <= now && !x.busy)) {
      p.busy = true;
      background.push(
        reinvite(p.actor).then((ok) => {
          p.busy = false;
          if (ok) pendingRejoin.splice(pendingRejoin.indexOf(p), 1);
          else p.at = Date.now() + 5000; // again in 5 s
        }),
      );
    }
    const roll = rnd.next();
    if (roll < 0.08) networkFault(rnd.pick(actors)!);
    else if (roll < 0.12) background.push(restWrite(rnd.int(0, 1)));
    else domainCall(rnd.pick(actors)!);
  }
  log(`[chaos] schedule over after ${Math.round((Date.now() - t0) / 1000)} s: healing every fault`);

  // --- heal -----------------------------------------------------------------------------
  await Promise.allSettled(background);
  for (const a of actors) a.proxy.heal();
  await Promise.allSettled(heals);
  for (const a of actors) a.proxy.heal();
  for (const i of instances) if (!i.running) await i.start();
  const lastFault = Date.now();
  for (const a of actors) await a.chain.catch((e) => figures.failures.push(`client ${a.index}: ${String(e)}`));
  for (const p of pendingRejoin) {
    const deadline = Date.now() + 60_000;
    while (!(await reinvite(p.actor)) && Date.now() < deadline) await sleep(1000);
  }

  // --- convergence ----------------------------------------------------------------------
  const convergeBy = lastFault + Math.max(90_000, o.minutes * 10_000);
  let diffs: string[] = [];
  for (;;) {
    await Promise.all(actors.map((a) => a.proc.call('sync', { timeoutMs: 15_000 }, 30_000).catch(() => 'timeout')));
    diffs = await compareViews();
    if (diffs.length === 0) break;
    if (Date.now() > convergeBy) break;
    await sleep(1000);
  }
  figures.convergenceMs = Date.now() - lastFault;
  figures.failures.push(...diffs);
  log(`[chaos] ${diffs.length ? 'NOT converged' : 'converged'} ${figures.convergenceMs} ms after the last fault`);

  async function compareViews(): Promise<string[]> {
    const out: string[] = [];
    const restViews = [await restViewsOf(0), await restViewsOf(1)];
    for (const a of actors) {
      const status = await a.proc.call('status');
      if (!status.signedIn) out.push(`client ${a.index}: not signed in`);
      if (status.pending !== 0) out.push(`client ${a.index}: ${status.pending} changes still pending`);
      const mine = project(await a.proc.call('views'));
      const theirs = restViews[a.family]!;
      for (const key of Object.keys(theirs)) {
        const [x, y] = [(mine as any)[key], (theirs as any)[key]];
        if (isDeepStrictEqual(x, y)) continue;
        out.push(`client ${a.index}: ${key} differs from REST:\n${differences(x, y, key)}`);
      }
    }
    return out;
  }

  async function restViewsOf(f: number) {
    const get = async (path: string) => {
      const r = await adminRest(f, 'GET', path);
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
      return r.body;
    };
    const active = await get('/api/lists');
    const archived = await get('/api/lists?archived=true');
    const details: Record<string, unknown> = {};
    for (const l of [...active, ...archived]) details[l.id] = await get(`/api/lists/${l.id}`);
    const stores = await get('/api/stores');
    const sections: unknown[] = [];
    for (const s of stores) sections.push(...(await get(`/api/stores/${s.id}/sections`)));
    const recipes = await get('/api/recipes');
    return {
      active,
      archived,
      details,
      products: await get('/api/products?limit=200'),
      units: await get('/api/units'),
      stores: byId(stores.map((s: any) => ({ id: s.id, name: s.name, updatedAt: s.updatedAt }))),
      sections: byId(sections.map((s: any) => ({ id: s.id, storeId: s.storeId, name: s.name, position: s.position }))),
      recipes: byId(
        recipes.map((r: any) => ({ id: r.id, name: r.name, servings: r.servings, ingredientCount: r.ingredientCount })),
      ),
    };
  }

  // --- acknowledged writes ---------------------------------------------------------------
  const rejected = new Set<string>();
  const frames: { actor: Actor; t: number; frame: string }[] = [];
  for (const a of actors) {
    for (const e of await a.proc.call<any[]>('events', { from: 0 })) {
      if (e.type === 'rejected')
        for (const row of e.detail ?? []) {
          rejected.add(row.id);
          count(figures.rejectedRows, String(row.code));
        }
    }
    for (const f of await a.proc.call<any[]>('frames', { from: 0 })) frames.push({ actor: a, ...f });
  }
  figures.framesSeen = frames.length;
  for (const f of [0, 1]) {
    const server = await serverDocs(f);
    for (const r of recs.values()) {
      if (r.family !== f || r.deleted) continue;
      if (r.listId && recs.get(r.listId)?.deleted) continue;
      if (rejected.has(r.id)) {
        figures.failures.push(`${r.kind} ${r.id} of ${r.writer}: its push was rejected`);
        continue;
      }
      const doc = server.get(r.id);
      if (!doc || doc._deleted)
        figures.failures.push(`${r.kind} ${r.id} (${r.name}) written by ${r.writer}: missing on the server`);
      else if (r.name !== null && doc.name !== r.name)
        figures.failures.push(`${r.kind} ${r.id} written by ${r.writer}: name "${doc.name}", last written "${r.name}"`);
    }
  }

  // --- isolation --------------------------------------------------------------------------
  const idsOf = [new Set<string>([familyIds[0]!]), new Set<string>([familyIds[1]!])];
  for (const r of recs.values()) idsOf[r.family]!.add(r.id);
  for (const a of actors) idsOf[a.family]!.add(a.userId);
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  for (const { actor, t, frame } of frames) {
    const foreign = idsOf[1 - actor.family]!;
    const leak = (frame.match(UUID) ?? []).find((id) => foreign.has(id));
    if (leak)
      figures.failures.push(
        `client ${actor.index} (family ${actor.family}) received a frame naming ${leak} of the other family: ${frame.slice(0, 200)}`,
      );
    for (const w of actor.removals) {
      if (t > w.at + 5000 && (w.until === null || t < w.until))
        figures.failures.push(
          `client ${actor.index} received a frame ${t - w.at} ms after its removal: ${frame.slice(0, 200)}`,
        );
    }
  }

  for (const a of actors) {
    await a.proc.close();
    await a.proxy.close();
  }
  return figures;

  async function serverDocs(f: number): Promise<Map<string, any>> {
    const out = new Map<string, any>();
    for (const collection of ['lists', 'items', 'stores', 'recipes', 'products', 'units']) {
      let checkpoint: unknown;
      for (;;) {
        const q = `schema=${SCHEMA_VERSION}&limit=1000${checkpoint ? `&checkpoint=${encodeURIComponent(JSON.stringify(checkpoint))}` : ''}`;
        const r = await adminRest(f, 'GET', `/api/sync/${collection}/pull?${q}`);
        if (r.status !== 200) throw new Error(`pull ${collection}: ${r.status} ${JSON.stringify(r.body)}`);
        for (const d of r.body.documents) out.set(d.id, d);
        if (r.body.documents.length < 1000) break;
        checkpoint = r.body.checkpoint;
      }
    }
    return out;
  }
}

const byId = (xs: any[]) => [...xs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** The client's raw docs in the shapes the REST projections above take. */
function project(v: any) {
  const counts = new Map<string, number>();
  for (const i of v.ingredients) counts.set(i.recipeId, (counts.get(i.recipeId) ?? 0) + 1);
  return {
    active: v.active,
    archived: v.archived,
    details: v.details,
    products: v.products,
    units: v.units,
    stores: byId(v.stores.map((s: any) => ({ id: s.id, name: s.name, updatedAt: s.updatedAt }))),
    sections: byId(v.sections.map((s: any) => ({ id: s.id, storeId: s.storeId, name: s.name, position: s.position }))),
    recipes: byId(
      v.recipes.map((r: any) => ({
        id: r.id,
        name: r.name,
        servings: r.servings,
        ingredientCount: counts.get(r.id) ?? 0,
      })),
    ),
  };
}

/** Where two views differ: up to 6 paths, each with both sides' values. */
function differences(sdk: unknown, restView: unknown, root: string): string {
  const out: string[] = [];
  const show = (v: unknown) => {
    const s = JSON.stringify(v);
    return s === undefined ? 'absent' : s.length > 400 ? `${s.slice(0, 400)}…` : s;
  };
  const walk = (x: any, y: any, path: string) => {
    if (out.length >= 6 || isDeepStrictEqual(x, y)) return;
    if (x && y && typeof x === 'object' && typeof y === 'object' && Array.isArray(x) === Array.isArray(y)) {
      if (Array.isArray(x) && x.length !== y.length) {
        const ids = (xs: any[]) => xs.map((e) => e?.id ?? JSON.stringify(e).slice(0, 60));
        out.push(`  ${path}: ${x.length} entries in the SDK ${show(ids(x))}, ${y.length} in REST ${show(ids(y))}`);
        return;
      }
      for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) walk(x[k], y[k], `${path}.${k}`);
      return;
    }
    out.push(`  ${path}: sdk ${show(x)}\n    rest ${show(y)}`);
  };
  walk(sdk, restView, root);
  return out.join('\n');
}
