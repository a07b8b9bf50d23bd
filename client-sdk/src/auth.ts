/**
 * Accounts and the session: register, login, logout, and access-token refresh. Refresh tokens
 * work once (reuse revokes every session of the user), so refreshes are single-flight: one
 * request at a time, every caller waiting for it shares its result; in browsers also across
 * tabs (tabs.ts: the session is shared, a refresh runs under a Web Lock and first adopts what
 * another tab stored).
 */
import { FamilyApiError, problemFrom } from './errors.js';
import {
  isExpired,
  tokenTimes,
  type Session,
  type SessionChange,
  type SessionShare,
  type SharedSessionRecord,
} from './session.js';
import { readJson, type Transport } from './transport.js';

export interface RegisterInput {
  email: string;
  userName: string;
  password: string;
  /** Exactly one of the three: an invitation token, the family's code, or a new family's name. */
  inviteToken?: string;
  familyCode?: string;
  newFamilyName?: string;
}

export class Auth {
  private current: Session | null;
  /** When the current session was obtained here or stored by the tab it came from. */
  private currentAt = 0;
  /** The store of the last change (tabs): awaited before a refresh releases its lock. */
  private publishing: Promise<void> = Promise.resolve();
  private refreshing: Promise<Session | null> | null = null;
  /** This device's clock minus the server's, measured on the last token received fresh (its
   *  `iat` is the server's "now"); 0 until then. A device clock that is off by minutes would
   *  otherwise find every new token already due, or refresh far too late. */
  private clockOffsetMs = 0;
  private readonly listeners = new Set<(session: Session | null, why: SessionChange) => void>();

  constructor(
    private readonly transport: Transport,
    initial: Session | null | undefined,
    private readonly onSession?: (session: Session | null) => void,
    private readonly tabs?: SessionShare,
  ) {
    this.current = initial ?? null;
  }

  /** A session change another tab stored (tabs only): taken when it is newer than ours. */
  adopt(record: SharedSessionRecord): boolean {
    if (record.at <= this.currentAt) return false;
    if (record.session === null) {
      if (!this.current) return false;
      this.set(null, record.why, record.at);
      return true;
    }
    if (this.current && record.session.refreshToken === this.current.refreshToken) {
      this.currentAt = record.at;
      return false;
    }
    this.measureClock(record.session);
    this.set(record.session, this.current ? 'refreshed' : 'signed_in', record.at);
    return true;
  }

  /** The server's clock as this device estimates it (ms). */
  serverNow(): number {
    return Date.now() - this.clockOffsetMs;
  }

  /** The current session, or null when signed out. */
  get session(): Session | null {
    return this.current;
  }

  async register(input: RegisterInput): Promise<Session> {
    return this.signIn('/api/auth/register', input);
  }

  async login(email: string, password: string): Promise<Session> {
    return this.signIn('/api/auth/login', { email, password });
  }

  /** Revokes the refresh token on the server (best effort: offline, the session is still
   * dropped here) and forgets the session. */
  async logout(): Promise<void> {
    const s = this.current;
    if (!s) return;
    this.set(null, 'signed_out');
    try {
      await this.transport.send('POST', '/api/auth/logout', { refreshToken: s.refreshToken });
    } catch {
      // offline: the refresh token expires on its own
    }
  }

  /** Forget the session without telling the server (e.g. removed from the family). */
  clear(why: SessionChange = 'signed_out'): void {
    if (this.current) this.set(null, why);
  }

  /**
   * A new access token. `stale` is the token a request was refused with: when the session
   * already holds a newer one (another caller refreshed meanwhile), that one is returned
   * without a new refresh. Resolves to null when the server refuses the refresh token (the
   * session is then dropped: `expired`); throws FamilyApiError when it could not answer
   * (offline, 5xx, 429), keeping the session.
   */
  async refresh(stale?: string): Promise<Session | null> {
    const s = this.current;
    if (!s) return null;
    if (stale !== undefined && s.accessToken !== stale) return s;
    this.refreshing ??= this.doRefresh(s).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** The access token to send now: refreshed first when it has already expired. */
  async accessToken(): Promise<string | null> {
    const s = this.current;
    if (!s) return null;
    if (isExpired(s.accessToken, this.serverNow())) return (await this.refresh(s.accessToken))?.accessToken ?? null;
    return s.accessToken;
  }

  /** Internal: follow session changes (the client re-authenticates its socket, stops on expiry). */
  subscribe(listener: (session: Session | null, why: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async signIn(path: string, body: unknown): Promise<Session> {
    const res = await this.transport.send('POST', path, body);
    if (!res.ok) throw await problemFrom(res);
    const session = await readJson<Session>(res);
    this.measureClock(session);
    this.set(session, 'signed_in');
    return session;
  }

  private async doRefresh(s: Session): Promise<Session | null> {
    const tabs = this.tabs;
    if (!tabs) return this.refreshOverHttp(s);
    return tabs.exclusive(async () => {
      if (this.current !== s) return this.current; // another tab's session arrived meanwhile
      // Another tab may have rotated the refresh token since this one got it: refreshing with
      // it would be reuse (every session revoked). Take what that tab stored instead.
      const stored = await tabs.readSession();
      if (stored && this.adopt(stored)) return this.current;
      const next = await this.refreshOverHttp(s);
      await this.publishing; // stored before the next tab looks
      return next;
    });
  }

  private async refreshOverHttp(s: Session): Promise<Session | null> {
    const res = await this.transport.send('POST', '/api/auth/refresh', { refreshToken: s.refreshToken });
    // Signed out or in again while the refresh was under way: that newer state stands.
    if (this.current !== s) return this.current;
    if (res.ok) {
      const next = await readJson<Session>(res);
      if (this.current !== s) return this.current;
      this.measureClock(next);
      this.set(next, 'refreshed');
      return next;
    }
    const problem = await problemFrom(res);
    if (problem.transient) throw problem;
    // 401 (unknown, expired, reused or revoked refresh token), 403 (no longer in a family),
    // 400: this session is over.
    this.set(null, 'expired');
    return null;
  }

  /** A token just issued: its `iat` is the server's time now (to the second). */
  private measureClock(session: Session): void {
    const t = tokenTimes(session.accessToken);
    if (t) this.clockOffsetMs = Date.now() - t.issuedAt;
  }

  /** `storedAt`: the change came from another tab (already stored and announced). */
  private set(session: Session | null, why: SessionChange, storedAt?: number): void {
    this.current = session;
    this.currentAt = storedAt ?? Math.max(Date.now(), this.currentAt + 1);
    if (this.tabs && storedAt === undefined) {
      const record: SharedSessionRecord = { session, why, at: this.currentAt };
      this.publishing = this.tabs.writeSession(record).catch(() => undefined);
    }
    // Persist first: a rotated refresh token must be stored before it is used.
    try {
      this.onSession?.(session);
    } finally {
      for (const l of [...this.listeners]) l(session, why);
    }
  }
}

/** Throws the FamilyApiError a caller without a session gets. */
export function notSignedIn(): FamilyApiError {
  return new FamilyApiError(401, 'unauthenticated', 'Unauthorized', 'Not signed in');
}
