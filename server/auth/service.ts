// Accounts: registration, login, refresh, logout, the caller's profile. No Koa types here.
import { DEFAULT_LOCALE, type Locale } from '@family-shopping/client/protocol';
import type { Actor, Deps, Role } from '../context.js';
import type { Trx } from '../db/knex.js';
import { newId, sha256 } from '../db/ids.js';
import { familyWrite } from '../db/family-write.js';
import { AppError, badRequest, forbidden, unauthenticated } from '../errors.js';
import {
  createFamilyRow,
  findFamily,
  findFamilyByCode,
  findPendingInviteByToken,
  consumeInvite,
} from '../family/public.js';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './passwords.js';
import { familyRef, issueSession, issueSessionToken, sessionBody, userRecord, type SessionSubject } from './session.js';
import { openSuccessor, sealSuccessor } from './successor.js';
import type { RegisterInput, SessionRecord } from './schemas.js';
import {
  emailTaken,
  familyHasAdmin,
  findRefreshToken,
  findRefreshTokenById,
  findUserByEmail,
  findUserById,
  insertMembership,
  insertUser,
  markRefreshTokenRotated,
  membershipOf,
  readmitUser,
  revokeAllRefreshTokens,
  revokeRefreshToken,
  userNameTaken,
  type MembershipRow,
  type RefreshTokenRow,
  type UserRow,
} from './queries.js';

export const invitationInvalid = () =>
  badRequest('invitation_invalid', 'The invitation is unknown, expired, already used or revoked');
const familyCodeInvalid = () => badRequest('family_code_invalid', 'No family has that code');
const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'Wrong email or password');
const refreshInvalid = () => unauthenticated('The refresh token is invalid, expired or already used');

/** Duplicate checks in the contract's order: user name first, then email. */
async function assertAvailable(trx: Trx, userName: string, email: string): Promise<void> {
  if (await userNameTaken(trx, userName)) throw new AppError(409, 'duplicate_user_name', 'That user name is taken');
  if (await emailTaken(trx, email)) throw new AppError(409, 'duplicate_email', 'That email is already registered');
}

async function joinFamily(
  deps: Deps,
  trx: Trx,
  input: { familyId: string; userName: string; email: string; passwordHash: string; confirmed: boolean; now: Date },
): Promise<{ user: UserRow; role: Role }> {
  const user = await insertUser(trx, {
    id: newId(),
    email: input.email,
    user_name: input.userName,
    password_hash: input.passwordHash,
    email_confirmed_at: input.confirmed ? input.now : null,
    locale: null, // until the user chooses one
    created_at: input.now,
  });
  // The first user of a family without an admin (the default family starts empty) runs it.
  const role: Role = (await familyHasAdmin(trx, input.familyId)) ? 'member' : 'admin';
  await insertMembership(trx, {
    id: newId(),
    family_id: input.familyId,
    user_id: user.id,
    role,
    created_at: input.now,
  });
  return { user, role };
}

/**
 * An account that belongs to no family (its member was removed) comes back through an invite to
 * its address: the link proves the address, so the person sets the user name and password anew
 * (as a password reset would let them) and joins the inviting family. Null when the address has
 * no account, or its account still belongs to a family (then registration answers
 * duplicate_email, revealing nothing about the other family).
 */
async function readmission(
  trx: Trx,
  familyId: string,
  userName: string,
  email: string,
  passwordHash: string,
  now: Date,
): Promise<{ user: UserRow; role: Role } | null> {
  const existing = await findUserByEmail(trx, email);
  if (!existing || (await membershipOf(trx, existing.id))) return null;
  if (await userNameTaken(trx, userName, existing.id))
    throw new AppError(409, 'duplicate_user_name', 'That user name is taken');
  const user = await readmitUser(trx, existing.id, { user_name: userName, password_hash: passwordHash, now });
  const role: Role = (await familyHasAdmin(trx, familyId)) ? 'member' : 'admin';
  await insertMembership(trx, { id: newId(), family_id: familyId, user_id: user.id, role, created_at: now });
  return { user, role };
}

/** What registration knows of the request beyond its body. */
export interface RegisterContext {
  /** The app's language that best matches the request's `Accept-Language`; null: none does. */
  requestLocale: Locale | null;
}

/**
 * Registration. Order of checks (contract 3): body validation (route) → the invite token, family
 * code or new-family permission → duplicate user name → duplicate email. A new family speaks
 * its creator's language: a new user has chosen none yet, so the language of the request (its
 * `Accept-Language`), else English (docs/api.md "Languages").
 */
export async function register(
  deps: Deps,
  input: RegisterInput,
  context: RegisterContext = { requestLocale: null },
): Promise<SessionRecord> {
  // Hash outside any transaction: it is the slow part and must not hold the family lock.
  const passwordHash = await hashPassword(input.password);

  if (input.inviteToken !== undefined) {
    const tokenHash = sha256(input.inviteToken);
    const found = await findPendingInviteByToken(deps.db, tokenHash, deps.clock.now());
    if (!found) throw invitationInvalid();
    return familyWrite(deps, found.family_id, async (w) => {
      // Re-read under a row lock: two registrations racing for one invite, one wins.
      const invite = await findPendingInviteByToken(w.trx, tokenHash, w.now, true);
      if (!invite) throw invitationInvalid();
      // The invite's email is bound to the account; a differing client email is ignored.
      let joined = await readmission(w.trx, invite.family_id, input.userName, invite.email, passwordHash, w.now);
      if (!joined) {
        await assertAvailable(w.trx, input.userName, invite.email);
        joined = await joinFamily(deps, w.trx, {
          familyId: invite.family_id,
          userName: input.userName,
          email: invite.email,
          passwordHash,
          confirmed: true, // the invite link proves the address
          now: w.now,
        });
      }
      const { user, role } = joined;
      await consumeInvite(w.trx, invite.id, user.id, w.now);
      w.emit({ type: 'MemberJoined', userId: user.id, role });
      const family = { id: invite.family_id, name: invite.family_name, locale: invite.family_locale };
      return issueSession(deps, w.trx, { user, family, role });
    });
  }

  if (input.familyCode !== undefined) {
    const code = input.familyCode;
    const found = await findFamilyByCode(deps.db, code);
    if (!found) throw familyCodeInvalid();
    return familyWrite(deps, found.id, async (w) => {
      const family = await findFamily(w.trx, found.id);
      if (!family || family.invite_code !== code) throw familyCodeInvalid(); // rotated meanwhile
      await assertAvailable(w.trx, input.userName, input.email);
      const { user, role } = await joinFamily(deps, w.trx, {
        familyId: family.id,
        userName: input.userName,
        email: input.email,
        passwordHash,
        confirmed: false, // a family code does not prove the email belongs to this person
        now: w.now,
      });
      w.emit({ type: 'MemberJoined', userId: user.id, role });
      return issueSession(deps, w.trx, { user, family, role });
    });
  }

  if (!deps.config.ALLOW_NEW_FAMILIES) throw forbidden('Creating new families is disabled on this server');
  const familyName = input.newFamilyName!;
  // A brand-new family: nobody else can be writing it, so one plain transaction creates the
  // family (with its counter row), the user and the admin membership together.
  return deps.db.transaction(async (trx) => {
    await assertAvailable(trx, input.userName, input.email);
    const now = deps.clock.now();
    const family = await createFamilyRow(trx, { name: familyName, locale: context.requestLocale ?? DEFAULT_LOCALE });
    const { user, role } = await joinFamily(deps, trx, {
      familyId: family.id,
      userName: input.userName,
      email: input.email,
      passwordHash,
      confirmed: false,
      now,
    });
    return issueSession(deps, trx, { user, family, role });
  });
}

/** Unknown email and wrong password answer alike and cost the same argon2 work. */
export async function login(deps: Deps, input: { email: string; password: string }): Promise<SessionRecord> {
  const user = await findUserByEmail(deps.db, input.email);
  const ok = user ? await verifyPassword(user.password_hash, input.password) : await verifyAgainstDummy(input.password);
  if (!user || !ok) throw invalidCredentials();
  const membership = await membershipOf(deps.db, user.id);
  if (!membership)
    throw forbidden('This account is no longer a member of a family; a family admin can invite it again');
  return deps.db.transaction((trx) =>
    issueSession(deps, trx, {
      user,
      family: membershipFamily(membership),
      role: membership.role,
    }),
  );
}

/**
 * Rotation: every refresh token works once. Presented again less than REFRESH_REUSE_GRACE after
 * its rotation it answers the same successor (two tabs, or a retried request, refreshing at
 * once); later, it was copied (or the client is confused): every refresh token of that user is
 * revoked. The token's row is locked for the whole decision, so of two concurrent refreshes one
 * rotates and the other waits and then answers the successor the first one stored.
 */
export async function refresh(deps: Deps, refreshToken: string): Promise<SessionRecord> {
  const tokenHash = sha256(refreshToken);
  const outcome = await deps.db.transaction(async (trx): Promise<SessionRecord | 'invalid' | 'revoke'> => {
    const now = deps.clock.now();
    const row = await findRefreshToken(trx, tokenHash, true);
    if (!row || row.revoked_at) return 'invalid';
    if (row.rotated_at) return answerAgain(deps, trx, row, refreshToken, now);
    if (row.expires_at.getTime() <= now.getTime()) return 'invalid';
    const subject = await sessionSubject(trx, row);
    if (!subject) return revokeAll(trx, row.user_id, now);
    const { session, refreshTokenId } = await issueSessionToken(deps, trx, { ...subject, chainId: row.chain_id });
    const sealed = deps.config.refreshReuseGraceMs > 0 ? sealSuccessor(refreshToken, session.refreshToken) : null;
    await markRefreshTokenRotated(trx, row.id, { id: refreshTokenId, sealed }, now);
    return session;
  });
  if (outcome === 'invalid' || outcome === 'revoke') throw refreshInvalid();
  return outcome;
}

/** Signs the user out everywhere (committed with the refresh's transaction), then answers 401. */
async function revokeAll(trx: Trx, userId: string, now: Date): Promise<'revoke'> {
  await revokeAllRefreshTokens(trx, userId, now);
  return 'revoke';
}

/** The user, family and current role a refresh token may still speak for (null: no longer). */
async function sessionSubject(trx: Trx, row: RefreshTokenRow): Promise<SessionSubject | null> {
  const membership = await membershipOf(trx, row.user_id);
  const user = await findUserById(trx, row.user_id);
  if (!user || !membership || membership.family_id !== row.family_id) return null;
  return { user, family: membershipFamily(membership), role: membership.role };
}

const membershipFamily = (m: MembershipRow) => ({ id: m.family_id, name: m.family_name, locale: m.family_locale });

/** A rotated token presented again: within the grace, the same successor; later, reuse. */
async function answerAgain(
  deps: Deps,
  trx: Trx,
  row: RefreshTokenRow,
  refreshToken: string,
  now: Date,
): Promise<SessionRecord | 'invalid' | 'revoke'> {
  const grace = deps.config.refreshReuseGraceMs;
  const age = now.getTime() - row.rotated_at!.getTime();
  if (grace <= 0 || age >= grace || !row.successor_id || !row.successor_sealed) {
    deps.log.warn({ userId: row.user_id }, 'refresh token reused; all refresh tokens of the user revoked');
    return revokeAll(trx, row.user_id, now);
  }
  const successor = await findRefreshTokenById(trx, row.successor_id);
  // The successor was signed out meanwhile (logout, password change): nothing to answer, and
  // no sign of theft either.
  if (!successor || successor.revoked_at || successor.expires_at.getTime() <= now.getTime()) return 'invalid';
  const raw = openSuccessor(refreshToken, row.successor_sealed);
  if (!raw || sha256(raw) !== successor.token_hash) return 'invalid';
  const subject = await sessionSubject(trx, successor);
  if (!subject) return revokeAll(trx, row.user_id, now);
  return sessionBody(deps, subject, { token: raw, chainId: successor.chain_id });
}

/** Revokes the refresh token; answers the same whether or not it was known. */
export async function logout(deps: Deps, refreshToken: string): Promise<void> {
  await revokeRefreshToken(deps.db, sha256(refreshToken), deps.clock.now());
}

/** `GET /api/me`. On the embedded database the user and family records come from
 *  `deps.readCache` while nothing was written since they were read (server/db/read-cache.ts). */
export async function me(deps: Deps, actor: Actor) {
  const read = async () => {
    const user = await findUserById(deps.db, actor.userId);
    const family = await findFamily(deps.db, actor.familyId);
    return user && family ? { user: userRecord(user), family: familyRef(family) } : undefined;
  };
  const found = deps.readCache ? await deps.readCache.get(`me ${actor.userId} ${actor.familyId}`, read) : await read();
  if (!found) throw unauthenticated();
  return { user: { ...found.user }, family: { ...found.family }, role: actor.role };
}
