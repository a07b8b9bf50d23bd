// Forgotten passwords: an emailed single-use link valid for 15 minutes, only for users whose
// email is confirmed. forgot-password answers the same whatever the email. The mail speaks the
// user's language (`recipientLocale`).
import type { Deps } from '../context.js';
import { newId, randomToken, sha256 } from '../db/ids.js';
import { badRequest } from '../errors.js';
import { passwordResetEmail, resetLink } from '../mail/public.js';
import { recipientLocale } from './locale.js';
import { hashPassword } from './passwords.js';
import {
  findResetToken,
  findUserByEmail,
  findUserById,
  insertResetToken,
  invalidateOutstandingResetTokens,
  markResetTokenUsed,
  revokeAllRefreshTokens,
  updatePasswordHash,
  type ResetTokenRow,
} from './queries.js';

export const RESET_TOKEN_TTL_MS = 15 * 60_000;

export const FORGOT_PASSWORD_MESSAGE =
  'If that email belongs to an account with a confirmed email, a link to reset the password is on its way.';
export const RESET_PASSWORD_MESSAGE = 'Your password has been changed. Sign in with the new one.';

const resetTokenInvalid = () => badRequest('reset_token_invalid', 'The reset link is unknown, expired or already used');

export async function forgotPassword(deps: Deps, email: string): Promise<{ message: string }> {
  const user = await findUserByEmail(deps.db, email);
  if (user && user.email_confirmed_at) {
    const { token, expiresAt } = await issueResetToken(deps, user.id, RESET_TOKEN_TTL_MS);
    const locale = await recipientLocale(deps.db, user);
    void deps.mailer?.sendInBackground((base) =>
      passwordResetEmail({
        to: user.email,
        userName: user.user_name,
        link: resetLink(base, token),
        expiresAt,
        validMinutes: RESET_TOKEN_TTL_MS / 60_000,
        locale,
      }),
    );
  }
  return { message: FORGOT_PASSWORD_MESSAGE };
}

/**
 * A new single-use reset token for a user (the only one: earlier ones stop working). Also used by
 * `npm run admin -- reset-link` for installs without email (server/ops/admin.ts).
 */
export async function issueResetToken(
  deps: Pick<Deps, 'db' | 'clock'>,
  userId: string,
  ttlMs: number,
): Promise<{ token: string; expiresAt: Date }> {
  const now = deps.clock.now();
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + ttlMs);
  await deps.db.transaction(async (trx) => {
    await invalidateOutstandingResetTokens(trx, userId, now);
    await insertResetToken(trx, {
      id: newId(),
      user_id: userId,
      token_hash: sha256(token),
      created_at: now,
      expires_at: expiresAt,
    });
  });
  return { token, expiresAt };
}

const usable = (row: ResetTokenRow | undefined, now: Date): row is ResetTokenRow =>
  !!row && !row.used_at && !row.invalidated_at && row.expires_at.getTime() > now.getTime();

export async function resetPassword(
  deps: Deps,
  input: { token: string; newPassword: string },
): Promise<{ message: string }> {
  const tokenHash = sha256(input.token);
  if (!usable(await findResetToken(deps.db, tokenHash), deps.clock.now())) throw resetTokenInvalid();
  const passwordHash = await hashPassword(input.newPassword);
  await deps.db.transaction(async (trx) => {
    const now = deps.clock.now();
    const row = await findResetToken(trx, tokenHash, true); // single use, even under a race
    if (!usable(row, now)) throw resetTokenInvalid();
    const user = await findUserById(trx, row.user_id);
    if (!user) throw resetTokenInvalid();
    await updatePasswordHash(trx, user.id, passwordHash, now);
    await markResetTokenUsed(trx, row.id, now);
    await invalidateOutstandingResetTokens(trx, user.id, now);
    // Whoever held a session with the old password is signed out at the next refresh.
    await revokeAllRefreshTokens(trx, user.id, now);
  });
  return { message: RESET_PASSWORD_MESSAGE };
}
