// Access tokens: HS256 JWTs with sub, family_id, role, iat, exp, jti. Only HS256 is accepted.
import jwt from 'jsonwebtoken';
import { newId } from '../db/ids.js';
import type { Role } from '../context.js';

export interface AccessClaims {
  sub: string;
  family_id: string;
  role: Role;
  iat: number;
  exp: number;
  jti: string;
}

export function signAccessToken(
  secret: string,
  input: { userId: string; familyId: string; role: Role },
  ttlSeconds: number,
  nowMs = Date.now(),
): string {
  const iat = Math.floor(nowMs / 1000);
  return jwt.sign(
    { sub: input.userId, family_id: input.familyId, role: input.role, iat, exp: iat + ttlSeconds, jti: newId() },
    secret,
    // No `noTimestamp`: jsonwebtoken would delete our iat. With iat in the payload it keeps it.
    { algorithm: 'HS256' },
  );
}

/** Returns the claims, or null for a malformed, tampered, expired or non-HS256 token. */
export function verifyAccessToken(secret: string, token: string, nowMs = Date.now()): AccessClaims | null {
  try {
    const claims = jwt.verify(token, secret, {
      algorithms: ['HS256'],
      clockTimestamp: Math.floor(nowMs / 1000),
    }) as Partial<AccessClaims>;
    if (typeof claims.sub !== 'string' || typeof claims.family_id !== 'string' || typeof claims.exp !== 'number') {
      return null;
    }
    return claims as AccessClaims;
  } catch {
    return null;
  }
}
