// Sessions: an HS256 access token (family_id and the session id `sid` stamped at issuance) plus
// an opaque refresh token (256 random bits; only its SHA-256 is stored). A session is a chain of
// refresh tokens: login or registration starts one (its id is the `sid`), every rotation adds
// the next token to the same chain.
import type { Locale } from '@family-shopping/client/protocol';
import type { Deps, Role } from '../context.js';
import type { Db, Trx } from '../db/knex.js';
import { newId, randomToken, sha256 } from '../db/ids.js';
import { signAccessToken } from './tokens.js';
import { insertRefreshToken, type UserRow } from './queries.js';
import type { SessionRecord } from './schemas.js';

type SessionDeps = Pick<Deps, 'config' | 'clock' | 'jwtKey'>;

type SessionUser = Pick<UserRow, 'id' | 'email' | 'user_name' | 'email_confirmed_at' | 'locale'>;
type SessionFamily = { id: string; name: string; locale: Locale };

export interface SessionSubject {
  user: SessionUser;
  family: SessionFamily;
  role: Role;
}

/** The `user` of the session body and of `/api/me`. */
export function userRecord(user: SessionUser) {
  return {
    id: user.id,
    email: user.email,
    userName: user.user_name,
    emailConfirmed: user.email_confirmed_at !== null,
    locale: user.locale ?? null,
  };
}

/** The `family` of the session body and of `/api/me`. */
export const familyRef = (family: SessionFamily) => ({ id: family.id, name: family.name, locale: family.locale });

/** The session body for a refresh token already stored: a fresh access token of its chain. */
export function sessionBody(
  deps: SessionDeps,
  input: SessionSubject,
  refresh: { token: string; chainId: string },
): SessionRecord {
  const ttl = deps.config.accessTokenTtlSeconds;
  const accessToken = signAccessToken(
    deps.jwtKey,
    { userId: input.user.id, familyId: input.family.id, role: input.role, sessionId: refresh.chainId },
    ttl,
    deps.clock.now().getTime(),
  );
  return {
    accessToken,
    refreshToken: refresh.token,
    expiresIn: ttl,
    user: userRecord(input.user),
    family: familyRef(input.family),
    role: input.role,
  };
}

/**
 * Issues a session; writes the refresh token through `q` (the caller's transaction, if any).
 * Without `chainId` it starts a new session (chain); a rotation passes the chain it continues.
 */
export async function issueSessionToken(
  deps: SessionDeps,
  q: Db | Trx,
  input: SessionSubject & { chainId?: string },
): Promise<{ session: SessionRecord; refreshTokenId: string }> {
  const now = deps.clock.now();
  const refreshToken = randomToken(32);
  const id = newId();
  const chainId = input.chainId ?? id;
  await insertRefreshToken(q, {
    id,
    chain_id: chainId,
    user_id: input.user.id,
    family_id: input.family.id,
    token_hash: sha256(refreshToken),
    created_at: now,
    expires_at: new Date(now.getTime() + deps.config.refreshTokenTtlSeconds * 1000),
  });
  return { session: sessionBody(deps, input, { token: refreshToken, chainId }), refreshTokenId: id };
}

/** A new session (login, registration). */
export async function issueSession(deps: SessionDeps, q: Db | Trx, input: SessionSubject): Promise<SessionRecord> {
  return (await issueSessionToken(deps, q, input)).session;
}
