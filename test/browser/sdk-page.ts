// In-page part of the SDK browser tests: bundled (esbuild IIFE) and injected into a page of the
// app's origin. It imports the package as an app does and exposes it, with a few helpers the
// tests call through page.evaluate, as `window.h`.
import * as sdk from '@family-shopping/client';

type Client = sdk.FamilyClient;

const SESSION_KEY = 'test-app-session';

const h = {
  sdk,
  client: null as Client | null,
  events: [] as sdk.FamilyClientEvent[],
  /** The client's last pending$ value. */
  pending: 0,
  /** Opens a client the way an app would: default storage, the session it persisted. */
  async open(options: Partial<sdk.FamilyClientOptions> = {}): Promise<void> {
    const saved = localStorage.getItem(SESSION_KEY);
    const client = await sdk.createFamilyClient({
      baseUrl: location.origin,
      session: saved ? (JSON.parse(saved) as sdk.Session) : null,
      onSession: (s) => {
        if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
        else localStorage.removeItem(SESSION_KEY);
      },
      ...options,
    });
    h.client = client;
    h.events = [];
    client.events$.subscribe((e) => h.events.push(e));
    h.pending = 0;
    client.pending$.subscribe((n) => (h.pending = n));
  },
  get c(): Client {
    if (!h.client) throw new Error('no client open');
    return h.client;
  },
  /** Inserts an item as an app would (a local write), returns its id. */
  async addItem(listId: string, name: string): Promise<string> {
    const doc = sdk.newDoc('items', { listId, name });
    await h.c.db.items.insert(doc);
    return doc.id;
  },
  /** Names of the list's items in the local database (not removed), sorted. */
  async itemNames(listId: string): Promise<string[]> {
    const docs = await h.c.db.items.find({ selector: { listId, removedAt: null } }).exec();
    return docs.map((d) => d.name).sort();
  },
  status() {
    const c = h.c;
    return { state: c.state, online: c.online, signedIn: !!c.auth.session };
  },
  async error(fn: () => Promise<unknown>): Promise<{ name: string; code?: string; message: string } | null> {
    try {
      await fn();
      return null;
    } catch (err) {
      const e = err as { name: string; code?: string; message: string };
      return { name: e.name, code: e.code, message: e.message };
    }
  },
};

export type Harness = typeof h;
(globalThis as unknown as { h: Harness }).h = h;
