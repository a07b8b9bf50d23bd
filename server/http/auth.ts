// Authentication of REST requests: a Bearer access token whose signature and expiry hold and
// whose user is still a member of the family stamped in the token (spec 5.2). The role is read
// from the membership, so a demotion takes effect at once. Tokens older than the membership
// (issued to an earlier membership that was removed) are refused.
import type { Context } from 'koa';
import type { Actor, Deps } from '../context.js';
import { verifyAccessToken } from '../auth/tokens.js';
import { membershipForToken } from '../auth/queries.js';
import { forbidden, unauthenticated } from '../errors.js';

export async function resolveActor(deps: Pick<Deps, 'db' | 'jwtKey' | 'clock'>, token: string): Promise<Actor | null> {
  const claims = verifyAccessToken(deps.jwtKey, token, deps.clock.now().getTime());
  if (!claims) return null;
  const membership = await membershipForToken(deps.db, claims.sub, claims.family_id);
  if (!membership) return null;
  // A token issued before this membership began belongs to an earlier one that was removed: a
  // person removed and invited back does not revive the tokens of before the removal.
  if (claims.iat < Math.floor(new Date(membership.created_at).getTime() / 1000)) return null;
  const actor: Actor = { userId: claims.sub, familyId: claims.family_id, role: membership.role };
  if (claims.sid) actor.sessionId = claims.sid;
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
  const actor = await resolveActor(deps, token);
  if (!actor) throw unauthenticated('The access token is invalid or expired');
  if (level === 'admin' && actor.role !== 'admin') throw forbidden('Only a family admin can do this');
  return actor;
}
