/** The session body of register, login and refresh (api-contract §3), and token timing. */
import type { Locale } from './protocol/index.js';

export type Role = 'admin' | 'member';

/** Why the session changed: `signed_in` (register/login), `refreshed`, `signed_out` (logout
 * or a removal from the family), `expired` (the refresh token was refused). */
export type SessionChange = 'signed_in' | 'refreshed' | 'signed_out' | 'expired';

/** A session change as stored and announced between tabs: `at` orders changes (one clock). */
export interface SharedSessionRecord {
  session: Session | null;
  why: SessionChange;
  at: number;
}

/** Where the tabs of an origin share the session (tabs.ts); what Auth needs of it. */
export interface SessionShare {
  /** Runs `fn` while no other tab runs a refresh. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** The session as last stored by any tab; null: none stored. */
  readSession(): Promise<SharedSessionRecord | null>;
  /** Stores the session for every tab and announces it. */
  writeSession(record: SharedSessionRecord): Promise<void>;
}

export interface Session {
  accessToken: string;
  refreshToken: string;
  /** Access token lifetime in seconds, as answered by the server. */
  expiresIn: number;
  /** `locale`: the language the user chose (`PATCH /api/me`); null: none, follow the browser. */
  user: { id: string; email: string; userName: string; emailConfirmed: boolean; locale: Locale | null };
  /** `locale`: the family's language (`PATCH /api/family`, admin): its default sections' and
   *  catalog's names. As of the session's last refresh. */
  family: { id: string; name: string; locale: Locale };
  role: Role;
}

/** `iat`/`exp` of a JWT in milliseconds, read without verifying it (the server verifies). */
export function tokenTimes(token: string): { issuedAt: number; expiresAt: number } | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const base64 = part
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(part.length / 4) * 4, '=');
    const claims = JSON.parse(atob(base64)) as { iat?: unknown; exp?: unknown };
    if (typeof claims.exp !== 'number') return null;
    const issuedAt = typeof claims.iat === 'number' ? claims.iat * 1000 : claims.exp * 1000;
    return { issuedAt, expiresAt: claims.exp * 1000 };
  } catch {
    return null;
  }
}

/**
 * When to refresh an access token ahead of its expiry: a quarter of its lifetime before it
 * expires, at most one minute before (15 min tokens: at 14 min). Returns ms from `now`
 * (0 when already due), or null when the token carries no readable expiry.
 */
export function refreshDelay(token: string, now = Date.now()): number | null {
  const t = tokenTimes(token);
  if (!t) return null;
  const lifetime = Math.max(0, t.expiresAt - t.issuedAt);
  const margin = Math.min(60_000, lifetime / 4);
  return Math.max(0, t.expiresAt - margin - now);
}

/** True when the token has passed its `exp` (by this device's clock). */
export function isExpired(token: string, now = Date.now()): boolean {
  const t = tokenTimes(token);
  return !!t && t.expiresAt <= now;
}
