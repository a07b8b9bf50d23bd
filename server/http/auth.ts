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
  // PGlite: remembered until the next write (exact); PostgreSQL: one statement, every request.
  const membership = deps.readCache
    ? await tokenMembership(deps, claims.sub, claims.family_id)
    : await membershipForToken(deps.db, claims.sub, claims.family_id);
  return tokenActor(claims, membership);
}

export function bearerToken(ctx: Context): string | null {
  const header = ctx.get('authorization');
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

export async function authenticate(deps: Deps, ctx: Context, level: 'member' | 'admin'): Promise<Actor> {
  const token = bearerToken(ctx);
  if (!token) throw unauthenticated();
  const actor = await resolveActor(deps, token);
  if (!actor) throw invalidToken();
  if (level === 'admin' && actor.role !== 'admin') throw forbidden('Only a family admin can do this');
  return actor;
}

/**
 * The first half of `authenticate` for a route whose handler checks the membership itself, in
 * the statement of its read (`RouteSpec.membershipInRead`): the token's signature and expiry.
 * The handler then judges the membership with `tokenActor` and refuses as `authenticate` does.
 */
export function verifiedClaims(deps: Pick<Deps, 'jwtKey' | 'clock'>, ctx: Context): AccessClaims {
  const token = bearerToken(ctx);
  if (!token) throw unauthenticated();
  const claims = verifyAccessToken(deps.jwtKey, token, deps.clock.now().getTime());
  if (!claims) throw invalidToken();
  return claims;
}
