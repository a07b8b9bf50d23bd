// Access tokens: HS256 JWTs with sub, family_id, role, sid, iat, exp, jti. Only HS256 is
// accepted. The secret is made once into a KeyObject (jwtKey): jsonwebtoken given a string tries
// to parse it as a public or private key on every call before falling back to a secret key.
import crypto, { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { newId } from '../db/ids.js';
import type { Actor, Deps, Role } from '../context.js';
import { membershipVersion, type MembershipVersion } from './queries.js';

export interface AccessClaims {
  sub: string;
  family_id: string;
  role: Role;
  /** The session (refresh-token chain) the token was issued to; absent on tokens of before. */
  sid?: string;
  iat: number;
  exp: number;
  jti: string;
}

/** The HMAC key of access tokens, made once from the secret. */
export const jwtKey = (secret: string): KeyObject => crypto.createSecretKey(Buffer.from(secret, 'utf8'));

// A caller holding the secret as a string (tests, benches) gets the key made once per secret.
let lastSecret: string | undefined;
let lastKey: KeyObject | undefined;
function keyOf(secret: KeyObject | string): KeyObject {
  if (secret instanceof KeyObject) return secret;
  if (secret !== lastSecret || !lastKey) {
    lastKey = jwtKey(secret);
    lastSecret = secret;
  }
  return lastKey;
}

export function signAccessToken(
  secret: KeyObject | string,
  input: { userId: string; familyId: string; role: Role; sessionId?: string },
  ttlSeconds: number,
  nowMs = Date.now(),
): string {
  const iat = Math.floor(nowMs / 1000);
  const payload: Record<string, unknown> = { sub: input.userId, family_id: input.familyId, role: input.role };
  if (input.sessionId) payload.sid = input.sessionId;
  return jwt.sign(
    { ...payload, iat, exp: iat + ttlSeconds, jti: newId() },
    keyOf(secret),
    // No `noTimestamp`: jsonwebtoken would delete our iat. With iat in the payload it keeps it.
    { algorithm: 'HS256' },
  );
}

/** Returns the claims, or null for a malformed, tampered, expired or non-HS256 token. */
export function verifyAccessToken(secret: KeyObject | string, token: string, nowMs = Date.now()): AccessClaims | null {
  try {
    const claims = jwt.verify(token, keyOf(secret), {
      algorithms: ['HS256'],
      clockTimestamp: Math.floor(nowMs / 1000),
    }) as Partial<AccessClaims>;
    if (typeof claims.sub !== 'string' || typeof claims.family_id !== 'string' || typeof claims.exp !== 'number') {
      return null;
    }
    if (claims.sid !== undefined && typeof claims.sid !== 'string') return null;
    return claims as AccessClaims;
  } catch {
    return null;
  }
}

/**
 * The actor of a verified token given the membership it names (spec 5.2), or null: no
 * membership (never a member, or removed), or a token issued before this membership began (it
 * belongs to an earlier one that was removed: a person removed and invited back does not revive
 * the tokens of before the removal). The role is the membership's, so a demotion holds at once.
 */
export function tokenActor(
  claims: AccessClaims,
  membership: { role: Role; created_at: Date } | undefined,
): Actor | null {
  if (!membership) return null;
  if (claims.iat < Math.floor(new Date(membership.created_at).getTime() / 1000)) return null;
  const actor: Actor = { userId: claims.sub, familyId: claims.family_id, role: membership.role };
  if (claims.sid) actor.sessionId = claims.sid;
  return actor;
}

/**
 * The membership a token names, with its family's version (`membershipVersion`). On the
 * embedded database it comes from `deps.readCache` while nothing was written since it was read
 * (server/db/read-cache.ts: exact, as this process makes every write), so a request costs no
 * statement; elsewhere it is one statement, every time.
 */
export function tokenMembership(
  deps: Pick<Deps, 'db' | 'readCache'>,
  userId: string,
  familyId: string,
): Promise<MembershipVersion | undefined> {
  const read = () => membershipVersion(deps.db, { userId, familyId });
  return deps.readCache ? deps.readCache.get(`membership ${userId} ${familyId}`, read) : read();
}
