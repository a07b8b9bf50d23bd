// One SDK client of the chaos run, in a process of its own (RxDB's open-source build allows 13
// open collections per process: one nine-collection client each). The runner drives it over IPC,
// one request, one answer. It records every live frame its socket delivers (with the time it
// arrived) and every `rejected`, `removed` and `unauthenticated` event.
import crypto from 'node:crypto';
import WebSocket from 'ws';
import { firstValueFrom } from 'rxjs';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import {
  createFamilyClient,
  FamilyClientError,
  type FamilyClient,
  type WebSocketConstructor,
} from '@family-shopping/client';

let client: FamilyClient | undefined;
let address = '';
const frames: { t: number; frame: string }[] = [];
const events: { t: number; type: string; detail?: unknown }[] = [];

const newAddress = () => {
  const b = crypto.randomBytes(3);
  address = `10.${b[0]}.${b[1]}.${b[2]}`;
};

export type ClientCommand =
  | { cmd: 'open'; url: string; email: string; password: string }
  | { cmd: 'login'; email: string; password: string }
  | { cmd: 'register'; email: string; userName: string; password: string; inviteToken: string }
  | { cmd: 'start' | 'stop' | 'status' | 'views' | 'destroy' }
  | { cmd: 'sync'; timeoutMs: number }
  | { cmd: 'frames' | 'events'; from: number }
  | { cmd: 'op'; op: string; args: any };

async function op(c: FamilyClient, name: string, a: any): Promise<unknown> {
  switch (name) {
    case 'createList':
      return c.lists.create({ id: a.id, name: a.name, storeId: a.storeId ?? null });
    case 'renameList':
      return c.lists.update(a.listId, { name: a.name });
    case 'setListStore':
      return c.lists.update(a.listId, { storeId: a.storeId });
    case 'archive':
      return c.lists.archive(a.listId);
    case 'unarchive':
      return c.lists.unarchive(a.listId);
    case 'deleteList':
      return c.lists.delete(a.listId);
    case 'addItem':
      return c.items.add(a.listId, { id: a.id, name: a.name, quantity: a.quantity ?? null });
    case 'renameItem':
      return c.items.update(a.listId, a.itemId, { name: a.name });
    case 'toggle':
      return c.items.toggle(a.listId, a.itemId);
    case 'remove':
      return c.items.remove(a.listId, a.itemId);
    case 'restore':
      return c.items.restore(a.listId, a.itemId);
    case 'createStore':
      return c.stores.create({ id: a.id, name: a.name });
    case 'renameStore':
      return c.stores.update(a.storeId, { name: a.name });
    case 'createRecipe':
      return c.recipes.create({ id: a.id, name: a.name, servings: 2, ingredients: [{ name: 'Flour', quantity: 1 }] });
    case 'renameRecipe':
      return c.recipes.update(a.recipeId, { name: a.name });
    case 'copyToList':
      return c.recipes.copyToList(a.recipeId, { listId: a.listId });
    case 'createProduct':
      return c.products.create({ id: a.id, name: a.name });
    case 'renameProduct':
      return c.products.update(a.productId, { name: a.name });
    case 'createUnit':
      return c.units.create({ id: a.id, name: a.name, abbreviation: a.abbreviation, category: 'Count' });
    default:
      throw new Error(`unknown op ${name}`);
  }
}

/** The client's views, as the REST routes would answer them (see views.ts in the runner). */
async function views(c: FamilyClient): Promise<unknown> {
  const [active, archived] = await Promise.all([
    firstValueFrom(c.lists.summaries$()),
    firstValueFrom(c.lists.summaries$({ archived: true })),
  ]);
  const details: Record<string, unknown> = {};
  for (const l of [...active, ...archived]) details[l.id] = await firstValueFrom(c.lists.detail$(l.id));
  const plain = async (name: 'stores' | 'sections' | 'recipes' | 'ingredients') =>
    (await (c.db as any)[name].find().exec()).map((d: any) => d.toJSON());
  return {
    active,
    archived,
    details,
    products: await firstValueFrom(c.products.search$('', { limit: 200 })),
    units: await firstValueFrom(c.units.all$()),
    stores: await plain('stores'),
    sections: await plain('sections'),
    recipes: await plain('recipes'),
    ingredients: await plain('ingredients'),
  };
}

async function handle(m: ClientCommand): Promise<unknown> {
  if (m.cmd === 'open') {
    newAddress();
    client = await createFamilyClient({
      baseUrl: m.url,
      storage: getRxStorageMemory(),
      databaseName: `chaos-${crypto.randomUUID().slice(0, 8)}`,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      // Each client has an address of its own for the rate limits (the servers trust the header).
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), 'x-forwarded-for': address },
        }),
      retryTime: 300,
      backoff: { baseMs: 100, maxMs: 2000 },
      requestTimeoutMs: 5000,
      heartbeatTimeoutMs: 6000,
    });
    client.on('frame', (e) => frames.push({ t: Date.now(), frame: JSON.stringify(e.frame) }));
    for (const type of ['rejected', 'removed', 'unauthenticated'] as const)
      client.on(type, (e) => events.push({ t: Date.now(), type, detail: 'rows' in e ? e.rows : undefined }));
    // Eight argon2 logins at once on a loaded machine may outlast the request deadline: again.
    const deadline = Date.now() + 100_000;
    for (;;) {
      try {
        await client.auth.login(m.email, m.password);
        return client.auth.session?.user.id;
      } catch (err) {
        if (Date.now() > deadline || (err as { code?: string }).code !== 'network_error') throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }
  const c = client;
  if (!c) throw new Error('not open');
  switch (m.cmd) {
    case 'register':
      newAddress(); // the register limit counts per address
      await c.auth.register({
        email: m.email,
        userName: m.userName,
        password: m.password,
        inviteToken: m.inviteToken,
      });
      await c.start();
      return c.auth.session?.user.id;
    case 'login':
      newAddress();
      await c.auth.login(m.email, m.password);
      await c.start();
      return c.auth.session?.user.id;
    case 'start':
      return c.start();
    case 'stop':
      return c.stop();
    case 'sync': {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), m.timeoutMs)));
      const result = await Promise.race([c.sync().then(() => 'ok' as const), timeout]);
      clearTimeout(timer);
      return result;
    }
    case 'status':
      return {
        state: c.state,
        online: c.online,
        pending: await firstValueFrom(c.pending$),
        signedIn: !!c.auth.session,
      };
    case 'views':
      return views(c);
    case 'frames':
      return frames.slice(m.from);
    case 'events':
      return events.slice(m.from);
    case 'destroy':
      client = undefined;
      return c.destroy();
    case 'op':
      try {
        const result: any = await op(c, m.op, m.args);
        return { ok: true, id: result?.id ?? null, items: result?.items?.map((i: any) => i.id) };
      } catch (err) {
        if (err instanceof FamilyClientError) return { ok: false, code: err.code };
        throw err;
      }
  }
}

process.on('message', (msg: { seq: number } & ClientCommand) => {
  handle(msg).then(
    (result) => process.send!({ seq: msg.seq, ok: true, result: result ?? null }),
    (err: Error) => process.send!({ seq: msg.seq, ok: false, error: String(err?.stack ?? err) }),
  );
});
process.on('disconnect', () => process.exit(0));
