// A separate app for account tests: real SMTP sink, movable clock, captured logs, and a client
// address per request (TRUST_PROXY=true + X-Forwarded-For) so the rate limits of the public
// endpoints never trip across tests. Shares the suite's database handle.
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { testApp, startTestApp, request, type HttpResult, type RequestOptions } from '../../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.js';
import type { RunningServer } from '../../../server/server.js';
import type { Clock } from '../../../server/context.js';

export class MovableClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export const randomIp = () => `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;
export const uniq = () => crypto.randomBytes(5).toString('hex');

export interface AccountsApp {
  app: RunningServer;
  smtp: SmtpSink;
  clock: MovableClock;
  /** Every log line the app wrote (level trace and up). */
  logs: string[];
  /** HTTP as a client at a fresh address (unless headers name one). */
  req<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

export async function startAccountsApp(envOverrides: Record<string, string> = {}): Promise<AccountsApp> {
  const shared = await testApp();
  const smtp = await startSmtpSink();
  const clock = new MovableClock();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = await startTestApp({
    db: shared.deps.db,
    clock,
    logger: pino({ level: 'trace' }, sink),
    envOverrides: { TRUST_PROXY: 'true', SMTP_URL: smtp.url, ...envOverrides },
  });
  return {
    app,
    smtp,
    clock,
    logs,
    req: (method, path, options = {}) =>
      request(app, method, path, {
        ...options,
        headers: { 'x-forwarded-for': randomIp(), ...(options.headers ?? {}) },
      }),
    async close() {
      await app.close();
      await smtp.close();
    },
  };
}

export const PASSWORD = 'a long enough password';

export interface Registered {
  status: number;
  body: any;
  email: string;
  userName: string;
  password: string;
}

/** Registers through the API; `how` is one of inviteToken / familyCode / newFamilyName. */
export async function register(
  a: AccountsApp,
  how: { inviteToken?: string; familyCode?: string; newFamilyName?: string },
  over: { email?: string; userName?: string; password?: string } = {},
): Promise<Registered> {
  const email = over.email ?? `u-${uniq()}@example.test`;
  const userName = over.userName ?? `user-${uniq()}`;
  const password = over.password ?? PASSWORD;
  const res = await a.req('POST', '/api/auth/register', { body: { email, userName, password, ...how } });
  return { status: res.status, body: res.body, email, userName, password };
}

/** A new family through the API, with its admin's session. */
export async function newFamily(a: AccountsApp) {
  const r = await register(a, { newFamilyName: `Fam ${uniq()}` });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { ...r, token: r.body.accessToken as string, familyId: r.body.family.id as string };
}

export function decodeJwt(token: string): { header: any; payload: any } {
  const [h, p] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h!, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(p!, 'base64url').toString()),
  };
}

/** A fresh access token at the app's current (possibly moved) time, as a refresh would give. */
export async function relogin(a: AccountsApp, email: string, password = PASSWORD): Promise<string> {
  const res = await a.req('POST', '/api/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return res.body.accessToken as string;
}
