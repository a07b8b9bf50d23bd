// Sessions: an HS256 access token (family_id stamped at issuance) plus an opaque refresh token
// (256 random bits; only its SHA-256 is stored).
import type { Deps, Role } from '../context.js';
import type { Db, Trx } from '../db/knex.js';
import { newId, randomToken, sha256 } from '../db/ids.js';
import { signAccessToken } from './tokens.js';
import { insertRefreshToken, type UserRow } from './queries.js';
import type { SessionRecord } from './schemas.js';

export function userRecord(user: Pick<UserRow, 'id' | 'email' | 'user_name' | 'email_confirmed_at'>) {
  return { id: user.id, email: user.email, userName: user.user_name, emailConfirmed: user.email_confirmed_at !== null };
}

/** Issues a session; writes the refresh token through `q` (the caller's transaction, if any). */
export async function issueSession(
  deps: Pick<Deps, 'config' | 'clock' | 'jwtSecret'>,
  q: Db | Trx,
  input: { user: Pick<UserRow, 'id' | 'email' | 'user_name' | 'email_confirmed_at'>; family: { id: string; name: string }; role: Role },
): Promise<SessionRecord> {
  const now = deps.clock.now();
  const ttl = deps.config.accessTokenTtlSeconds;
  const accessToken = signAccessToken(
    deps.jwtSecret,
    { userId: input.user.id, familyId: input.family.id, role: input.role },
    ttl,
    now.getTime(),
  );
  const refreshToken = randomToken(32);
  await insertRefreshToken(q, {
    id: newId(),
    user_id: input.user.id,
    family_id: input.family.id,
    token_hash: sha256(refreshToken),
    created_at: now,
    expires_at: new Date(now.getTime() + deps.config.refreshTokenTtlSeconds * 1000),
  });
  return {
    accessToken,
    refreshToken,
    expiresIn: ttl,
    user: userRecord(input.user),
    family: { id: input.family.id, name: input.family.name },
    role: input.role,
  };
}
