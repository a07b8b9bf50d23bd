// One real app per test run, started on port 0 and shared; every test makes its own family, so
// tests never share state and can run in any order.
import { startServer, type RunningServer, type StartOptions } from '../../server/server.js';
import { testEnv } from './env.js';

let shared: Promise<RunningServer> | undefined;

export function testApp(): Promise<RunningServer> {
  shared ??= startServer({ env: testEnv() });
  return shared;
}

/** A separate app with its own options (closed by the caller). */
export function startTestApp(options: StartOptions & { envOverrides?: Record<string, string | undefined> } = {}) {
  return startServer({ ...options, env: testEnv(options.envOverrides) });
}

export async function closeSharedApp(): Promise<void> {
  const s = shared;
  // Forgotten before it is awaited: a start that failed is not kept, so the next run (Stryker
  // runs the suite once per mutant in one process) starts the app anew instead of failing again.
  shared = undefined;
  if (s) await (await s).close();
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** Speaks HTTP to a running app, as a REST client would. */
export async function request<T = any>(
  app: { url: string },
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(app.url + path, { method, headers, body: body as BodyInit | undefined });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
