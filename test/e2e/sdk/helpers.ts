// Helpers of the SDK end-to-end tests: an app of their own (TRUST_PROXY, so every client gets its
// own address for the login rate limit), SDK clients on RxDB memory storage with the `ws`
// WebSocket, bounded waits on observable conditions, and a recorder of client events.
import crypto from 'node:crypto';
import { expect } from 'chai';
import WebSocket from 'ws';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { request, startTestApp } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import type { TestUser } from '../../helpers/factories.js';
import {
  createFamilyClient,
  FamilyApiError,
  FamilyClientError,
  type FamilyClient,
  type FamilyClientEvent,
  type FamilyClientOptions,
  type Session,
  type FetchLike,
  type WebSocketConstructor,
} from '@family-shopping/client';

/** An app for one test file. `TRUST_PROXY`: each client sends its own X-Forwarded-For, so
 *  logins of many clients do not share one address's rate limit. */
export function startSdkApp(envOverrides: Record<string, string> = {}): Promise<RunningServer> {
  return startTestApp({ envOverrides: { TRUST_PROXY: 'true', ...envOverrides } });
}

/** fetch with a client address of its own (the app trusts X-Forwarded-For). */
export function fetchAs(address = randomAddress()): FetchLike {
  return (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-forwarded-for': address } });
}

function randomAddress(): string {
  const b = crypto.randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

export type ClientOptions = Partial<FamilyClientOptions>;

/** A client of the app with test-friendly retry timings (no polling: RxDB has no interval). */
export async function newClient(app: { url: string }, options: ClientOptions = {}): Promise<FamilyClient> {
  return createFamilyClient({
    baseUrl: app.url,
    storage: getRxStorageMemory(),
    databaseName: `sdk-${crypto.randomUUID().slice(0, 8)}`,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    fetch: fetchAs(),
    retryTime: 200,
    backoff: { baseMs: 50, maxMs: 1000 },
    ...options,
  });
}

/** A client signed in as `user` through the SDK's login. */
export async function signedInClient(
  app: { url: string },
  user: TestUser,
  options: ClientOptions = {},
): Promise<FamilyClient> {
  const client = await newClient(app, options);
  try {
    await client.auth.login(user.email, user.password);
  } catch (err) {
    await client.destroy();
    throw err;
  }
  return client;
}

export { waitFor } from '../../helpers/wait.js';

/** Records a client's events in order. */
export function recordEvents(client: FamilyClient): FamilyClientEvent[] {
  const events: FamilyClientEvent[] = [];
  client.events$.subscribe((e) => events.push(e));
  return events;
}

export const has = (events: FamilyClientEvent[], type: FamilyClientEvent['type']) =>
  events.some((e) => e.type === type);

/** The local doc with this id, as plain JSON (undefined when absent or deleted). */
export async function localDoc(
  client: FamilyClient,
  collection: keyof FamilyClient['db']['collections'],
  id: string,
): Promise<any> {
  const doc = (await (client.db as any)[collection].findByIds([id]).exec()).get(id);
  return doc ? doc.toJSON() : undefined;
}

/** A session from POST /api/auth/login (what an app would have persisted). */
export async function loginSession(app: { url: string }, user: { email: string; password: string }): Promise<Session> {
  const res = await fetchAs()(`${app.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return (await res.json()) as Session;
}

/** The same JWT with a damaged signature: well-formed, unexpired, refused by the server. */
export function tamperedToken(token: string): string {
  const [h, p, sig] = token.split('.') as [string, string, string];
  const i = Math.floor(sig.length / 2);
  return `${h}.${p}.${sig.slice(0, i)}${sig[i] === 'A' ? 'B' : 'A'}${sig.slice(i + 1)}`;
}

/** REST calls as a user (`token`) that must succeed: resolve to the JSON body, fail the test otherwise. */
export function restAs(app: { url: string }, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const r = await request(app, method, path, { token, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
}

/** What a test opens and the suite fixture ends after it: a client (destroyed), a proxy or a
 *  device (closed). */
export type Closable = { destroy(): Promise<unknown> } | { close(): Promise<unknown> };

export interface SdkSuite {
  /** The file's app (startSdkApp): started before its first test, closed after its last. */
  readonly app: RunningServer;
  /** Ends `resource` after the current test (the last one opened first) and returns it. */
  track<T extends Closable>(resource: T): T;
}

/** The fixture most SDK test files share; call it once at the top of the file's describe. */
export function sdkSuite(envOverrides: Record<string, string> = {}): SdkSuite {
  let app: RunningServer | undefined;
  const opened: Closable[] = [];
  const endOpened = async () => {
    for (const r of opened.splice(0).reverse()) await ('destroy' in r ? r.destroy() : r.close());
  };
  before(async () => {
    app = await startSdkApp(envOverrides);
  });
  afterEach(endOpened);
  after(async () => {
    await endOpened();
    await app?.close();
  });
  return {
    get app(): RunningServer {
      if (!app) throw new Error('sdkSuite: the app starts in the before hook; use it inside hooks and tests');
      return app;
    },
    track(resource) {
      opened.push(resource);
      return resource;
    },
  };
}

/** The FamilyApiError `p` was refused with (a server's answer, or `network_error`); fails when it resolves. */
export async function apiError(p: Promise<unknown>): Promise<FamilyApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(FamilyApiError);
    return err as FamilyApiError;
  }
  throw new Error('expected a FamilyApiError');
}

/** The error a domain call was refused with offline (a `FamilyClientError`); fails when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<FamilyClientError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(FamilyClientError);
    return err as FamilyClientError;
  }
  throw new Error('expected a rejection');
}

/** The client started until it is in sync with the server, then stopped: offline from then on,
 *  with the family's data as the server had it. */
export async function syncThenOffline(client: FamilyClient): Promise<void> {
  await client.start();
  await client.awaitInSync();
  await client.stop();
}
