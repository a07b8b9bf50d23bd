// Self-service of a signed-in user (contract section 7): change the password, change the user
// name and language, confirm the email address. No Koa types here.
import type { Actor, Deps } from '../context.js';
import { newId, randomToken, sha256 } from '../db/ids.js';
import { AppError, badRequest, unauthenticated } from '../errors.js';
import { confirmEmailLink, emailConfirmationEmail } from '../mail/public.js';
import { findFamily } from '../family/public.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { familyRef, userRecord } from './session.js';
import { recipientLocale } from './locale.js';
import type { UpdateMeInput } from './schemas.js';
import {
  findEmailConfirmation,
  findUserById,
  insertEmailConfirmation,
  invalidateOutstandingConfirmations,
  invalidateOutstandingResetTokens,
  markEmailConfirmationUsed,
  markEmailConfirmed,
  revokeRefreshTokensExceptChain,
  updatePasswordHash,
  updateProfile,
  userNameTaken,
  type EmailConfirmationRow,
} from './queries.js';

export const EMAIL_CONFIRMATION_TTL_MS = 24 * 3600_000;
export const EMAIL_CONFIRMED_MESSAGE = 'Your email address is confirmed.';

const duplicateUserName = () => new AppError(409, 'duplicate_user_name', 'That user name is taken');
const confirmationInvalid = () =>
  badRequest('confirmation_invalid', 'The confirmation link is unknown, expired or already used');

async function currentUser(deps: Deps, actor: Actor) {
  const user = await findUserById(deps.db, actor.userId);
  if (!user) throw unauthenticated();
  return user;
}

/**
 * Password change. The current password is checked (400 invalid_credentials: the caller is
 * signed in, so not 401); then every refresh token of the user is revoked but those of the
 * calling session (the `sid` of its access token), and outstanding reset links die with the
 * old password. A token without `sid` (issued before sessions had ids) names no session: then
 * every refresh token is revoked, the caller's too.
 */
export async function changePassword(
  deps: Deps,
  actor: Actor,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const user = await currentUser(deps, actor);
  if (!(await verifyPassword(user.password_hash, input.currentPassword))) {
    throw new AppError(400, 'invalid_credentials', 'The current password is wrong');
  }
  const passwordHash = await hashPassword(input.newPassword); // outside the transaction: slow
  await deps.db.transaction(async (trx) => {
    const now = deps.clock.now();
    await updatePasswordHash(trx, user.id, passwordHash, now);
    await revokeRefreshTokensExceptChain(trx, user.id, actor.sessionId ?? null, now);
    await invalidateOutstandingResetTokens(trx, user.id, now);
  });
}

/**
 * `PATCH /api/me`: a new user name, unique in any letter case (the unique index settles a race:
 * 409 as well), and/or the user's language (null: none chosen). Both or nothing change.
 */
export async function updateMe(deps: Deps, actor: Actor, input: UpdateMeInput) {
  const user = await deps.db.transaction(async (trx) => {
    if (input.userName !== undefined && (await userNameTaken(trx, input.userName, actor.userId))) {
      throw duplicateUserName();
    }
    const patch = {
      ...(input.userName !== undefined ? { user_name: input.userName } : {}),
      ...(input.locale !== undefined ? { locale: input.locale } : {}),
    };
    await updateProfile(trx, actor.userId, patch, deps.clock.now());
    return findUserById(trx, actor.userId);
  });
  const family = await findFamily(deps.db, actor.familyId);
  if (!user || !family) throw unauthenticated();
  return { user: userRecord(user), family: familyRef(family), role: actor.role };
}

/**
 * Sends a confirmation link to an unconfirmed address ('sent'); a confirmed one gets no mail
 * ('already'). A new link invalidates the earlier ones.
 */
export async function requestEmailConfirmation(deps: Deps, actor: Actor): Promise<'sent' | 'already'> {
  const user = await currentUser(deps, actor);
  if (user.email_confirmed_at) return 'already';
  const now = deps.clock.now();
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + EMAIL_CONFIRMATION_TTL_MS);
  await deps.db.transaction(async (trx) => {
    await invalidateOutstandingConfirmations(trx, user.id, now);
    await insertEmailConfirmation(trx, {
      id: newId(),
      user_id: user.id,
      email: user.email,
      token_hash: sha256(token),
      created_at: now,
      expires_at: expiresAt,
    });
  });
  const locale = await recipientLocale(deps.db, user);
  void deps.mailer?.sendInBackground((base) =>
    emailConfirmationEmail({
      to: user.email,
      userName: user.user_name,
      link: confirmEmailLink(base, token),
      expiresAt,
      validHours: EMAIL_CONFIRMATION_TTL_MS / 3600_000,
      locale,
    }),
  );
  return 'sent';
}

const usable = (row: EmailConfirmationRow | undefined, now: Date): row is EmailConfirmationRow =>
  !!row && !row.used_at && !row.invalidated_at && row.expires_at.getTime() > now.getTime();

/** Public: the link's token confirms the address it was sent to, once. */
export async function confirmEmail(deps: Deps, token: string): Promise<{ message: string }> {
  const tokenHash = sha256(token);
  await deps.db.transaction(async (trx) => {
    const now = deps.clock.now();
    const row = await findEmailConfirmation(trx, tokenHash, true); // single use, even under a race
    if (!usable(row, now)) throw confirmationInvalid();
    const user = await findUserById(trx, row.user_id);
    // The link confirms the address it was sent to, not whatever the account holds now.
    if (!user || user.email !== row.email) throw confirmationInvalid();
    await markEmailConfirmed(trx, user.id, now);
    await markEmailConfirmationUsed(trx, row.id, now);
    await invalidateOutstandingConfirmations(trx, user.id, now);
  });
  return { message: EMAIL_CONFIRMED_MESSAGE };
}
