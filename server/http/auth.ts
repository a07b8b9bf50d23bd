// Authentication of REST requests: a Bearer access token whose signature and expiry hold and
// whose user is still a member of the family stamped in the token (spec 5.2). The role is read
// from the membership, so a demotion takes effect at once. Tokens older than the membership
// (issued to an earlier membership that was removed) are refused.
import type { Context } from 'koa';
import type { Actor, Deps } from '../context.js';
import {
  tokenActor,
  tokenMembership,
  verifyAccessToken,
  type AccessClaims,
  membershipForToken,
} from '../auth/public.js';
import { forbidden, invalidToken, unauthenticated } from '../errors.js';

export async function resolveActor(
  deps: Pick<Deps, 'db' | 'jwtKey' | 'clock' | 'readCache'>,
  token: string,
): Promise<Actor | null> {
  const claims = verifyAccessToken(deps.jwtKey, token, deps.clock.now().getTime());
  if (!claims) return null;
  return tokenActor(claims, await membershipOf(deps, claims));
}

/** The membership a token names. PGlite: remembered until the next write (exact); PostgreSQL:
 *  one statement, every request. */
function membershipOf(deps: Pick<Deps, 'db' | 'readCache'>, claims: AccessClaims): Promise<TokenMembership> {
  return deps.readCache
    ? tokenMembership(deps, claims.sub, claims.family_id)
    : membershipForToken(deps.db, claims.sub, claims.family_id);
}

/** A membership row as `tokenActor` judges it (undefined: the token names no membership). */
export type TokenMembership = Parameters<typeof tokenActor>[1];

/**
 * The one judgement of a verified token's membership (spec 5.2), for `authenticate` and for a
 * route whose membership is read with its data (`ApiRouter.memberRead`): the caller, or the
 * refusal (401 `unauthenticated`) when the token names no membership or one younger than it.
 */
export function memberOrRefuse(claims: AccessClaims, membership: TokenMembership): Actor {
  const actor = tokenActor(claims, membership);
  if (!actor) throw invalidToken();
  return actor;
}

export function bearerToken(ctx: Context): string | null {
  const header = ctx.get('authorization');
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

export async function authenticate(deps: Deps, ctx: Context, level: 'member' | 'admin'): Promise<Actor> {
  const token = bearerToken(ctx);
  if (!token) throw unauthenticated();
  const claims = verifyAccessToken(deps.jwtKey, token, deps.clock.now().getTime());
  if (!claims) throw invalidToken();
  const actor = memberOrRefuse(claims, await membershipOf(deps, claims));
  if (level === 'admin' && actor.role !== 'admin') throw forbidden('Only a family admin can do this');
  return actor;
}

/**
 * The first half of `authenticate` for a route whose membership is read in the statement of its
 * data (`ApiRouter.memberRead`): the token's signature and expiry. The route layer then judges
 * the membership the handler read with `memberOrRefuse`, as `authenticate` does.
 */
export function verifiedClaims(deps: Pick<Deps, 'jwtKey' | 'clock'>, ctx: Context): AccessClaims {
  const token = bearerToken(ctx);
  if (!token) throw unauthenticated();
  const claims = verifyAccessToken(deps.jwtKey, token, deps.clock.now().getTime());
  if (!claims) throw invalidToken();
  return claims;
}
