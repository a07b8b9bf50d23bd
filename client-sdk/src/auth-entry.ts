/**
 * `@family-shopping/client/auth`: accounts without the local database. Signs in, registers and
 * calls the public auth endpoints (invitation, password reset, email confirmation) with plain
 * `fetch`; it imports no RxDB, no replication and no validation rules, so an app's sign-in
 * page can ship it alone (a few KB) and load the full client (`@family-shopping/client`) once
 * there is a session. The session it hands to `onSession` is the one to pass to
 * `createFamilyClient({ session })`.
 */
import { Auth } from './auth.js';
import { problemFrom } from './errors.js';
import { readJson, Transport, type FetchLike } from './transport.js';
import type { Session } from './session.js';

export { Auth, type RegisterInput } from './auth.js';
export { FamilyApiError, type ProblemFieldError } from './errors.js';
export type { Session, Role, SessionChange } from './session.js';
export type { FetchLike } from './transport.js';

export interface AccountClientOptions {
  /** Server origin, e.g. `https://shopping.example.com` (paths start with `/api`). */
  baseUrl: string;
  /** A session the app persisted earlier. */
  session?: Session | null;
  /** Called with every new session (login, register) and with null when it ends. */
  onSession?: (session: Session | null) => void;
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchLike;
  /** A request without a complete answer after this many ms fails as offline (default 15000). */
  requestTimeoutMs?: number;
}

export interface AccountClient {
  /** register, login, logout (no session refresh across tabs: the full client does that). */
  readonly auth: Auth;
  /** A request to an endpoint that needs no session (`GET /api/auth/invite/{token}`,
   *  `POST /api/auth/forgot-password`, …): the JSON body, or FamilyApiError (problem+json;
   *  status 0 `network_error` when offline). */
  publicRequest<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
}

export function createAccountClient(options: AccountClientOptions): AccountClient {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const transport = new Transport(options.baseUrl, fetchImpl, { timeoutMs: options.requestTimeoutMs ?? 15_000 });
  return {
    auth: new Auth(transport, options.session, options.onSession),
    async publicRequest<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      const res = await transport.send(method, path, body);
      if (!res.ok) throw await problemFrom(res);
      return readJson<T>(res);
    },
  };
}
