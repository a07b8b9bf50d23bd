// SQL of accounts: users, memberships (as seen by auth), refresh tokens, password reset tokens,
// email confirmation tokens.
// Every function takes the handle to use (the transaction inside a write: never deps.db there).
import { prepared, type Db, type Trx } from '../db/knex.js';
import type { Role } from '../context.js';
import type { Locale } from '@family-shopping/client/protocol';

type Q = Db | Trx;

export interface UserRow {
  id: string;
  email: string;
  user_name: string;
  password_hash: string;
  email_confirmed_at: Date | null;
  /** The language the user chose (null: none). */
  locale: Locale | null;
  created_at: Date;
}

export interface MembershipRow {
  family_id: string;
  family_name: string;
  family_locale: Locale;
  role: Role;
  created_at: Date;
}

export const findUserByEmail = (q: Q, email: string) =>
  q('users').where({ email }).first() as Promise<UserRow | undefined>;

export const findUserById = (q: Q, id: string) => q('users').where({ id }).first() as Promise<UserRow | undefined>;

/** Is the user name (any case) used by an account, other than `exceptUserId`'s? */
export async function userNameTaken(q: Q, userName: string, exceptUserId?: string): Promise<boolean> {
  const query = q('users').whereRaw('lower(user_name) = lower(?)', [userName]);
  if (exceptUserId) query.whereNot({ id: exceptUserId });
  return !!(await query.first('id'));
}

/** Re-admission of an account without a family: the invite proves the address, the person
 *  chooses the user name and password anew (as after a password reset). */
export async function readmitUser(
  q: Q,
  userId: string,
  values: { user_name: string; password_hash: string; now: Date },
): Promise<UserRow> {
  const [row] = (await q('users')
    .where({ id: userId })
    .update({
      user_name: values.user_name,
      password_hash: values.password_hash,
      email_confirmed_at: values.now,
      updated_at: values.now,
    })
    .returning([
      'id',
      'email',
      'user_name',
      'password_hash',
      'email_confirmed_at',
      'locale',
      'created_at',
    ])) as UserRow[];
  return row!;
}

export async function emailTaken(q: Q, email: string): Promise<boolean> {
  return !!(await q('users').where({ email }).first('id'));
}

export async function insertUser(q: Q, row: Omit<UserRow, 'created_at'> & { created_at: Date }): Promise<UserRow> {
  await q('users').insert({ ...row, updated_at: row.created_at });
  return row;
}

export const membershipOf = (q: Q, userId: string) =>
  q('family_memberships as m')
    .join('families as f', 'f.id', 'm.family_id')
    .where('m.user_id', userId)
    .first('m.family_id', 'f.name as family_name', 'f.locale as family_locale', 'm.role', 'm.created_at') as Promise<
    MembershipRow | undefined
  >;

export async function familyHasAdmin(q: Q, familyId: string): Promise<boolean> {
  return !!(await q('family_memberships').where({ family_id: familyId, role: 'admin' }).first('id'));
}

export async function insertMembership(
  q: Q,
  row: { id: string; family_id: string; user_id: string; role: Role; created_at: Date },
): Promise<void> {
  await q('family_memberships').insert(row);
}

/** Changes the fields given (a user name, a language or none: null). */
export async function updateProfile(
  q: Q,
  userId: string,
  patch: { user_name?: string; locale?: Locale | null },
  now: Date,
): Promise<void> {
  await q('users')
    .where({ id: userId })
    .update({ ...patch, updated_at: now });
}

/** Confirms the address, once: false when it was confirmed already. */
export async function markEmailConfirmed(q: Q, userId: string, now: Date): Promise<boolean> {
  const rows = await q('users')
    .where({ id: userId })
    .whereNull('email_confirmed_at')
    .update({ email_confirmed_at: now, updated_at: now })
    .returning('id');
  return rows.length > 0;
}

export async function updatePasswordHash(q: Q, userId: string, passwordHash: string, now: Date): Promise<void> {
  await q('users').where({ id: userId }).update({ password_hash: passwordHash, updated_at: now });
}

// Refresh tokens.
export interface RefreshTokenRow {
  id: string;
  chain_id: string;
  user_id: string;
  family_id: string;
  token_hash: string;
  expires_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
  successor_id: string | null;
  successor_sealed: string | null;
}

export async function insertRefreshToken(
  q: Q,
  row: {
    id: string;
    chain_id: string;
    user_id: string;
    family_id: string;
    token_hash: string;
    created_at: Date;
    expires_at: Date;
  },
): Promise<void> {
  await q('refresh_tokens').insert(row);
}

/** The token a hash names; `forUpdate` locks its row until the transaction ends (rotation). */
export const findRefreshToken = (q: Q, tokenHash: string, forUpdate = false) => {
  const query = q('refresh_tokens').where({ token_hash: tokenHash });
  return (forUpdate ? query.forUpdate().first() : query.first()) as Promise<RefreshTokenRow | undefined>;
};

export const findRefreshTokenById = (q: Q, id: string) =>
  q('refresh_tokens').where({ id }).first() as Promise<RefreshTokenRow | undefined>;

/** Marks a token rotated, naming its successor (and keeping it sealed for the reuse grace). */
export async function markRefreshTokenRotated(
  q: Q,
  id: string,
  successor: { id: string; sealed: string | null },
  now: Date,
): Promise<void> {
  await q('refresh_tokens')
    .where({ id })
    .update({ rotated_at: now, successor_id: successor.id, successor_sealed: successor.sealed });
}

/** Revokes every refresh token of the user but those of one session (chain); all when null. */
export async function revokeRefreshTokensExceptChain(
  q: Q,
  userId: string,
  chainId: string | null,
  now: Date,
): Promise<void> {
  const query = q('refresh_tokens').where({ user_id: userId }).whereNull('revoked_at');
  if (chainId) query.whereNot({ chain_id: chainId });
  await query.update({ revoked_at: now });
}

export async function revokeRefreshToken(q: Q, tokenHash: string, now: Date): Promise<void> {
  await q('refresh_tokens').where({ token_hash: tokenHash }).whereNull('revoked_at').update({ revoked_at: now });
}

export async function revokeAllRefreshTokens(q: Q, userId: string, now: Date): Promise<void> {
  await q('refresh_tokens').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now });
}

// Password reset tokens.
export interface ResetTokenRow {
  id: string;
  user_id: string;
  expires_at: Date;
  used_at: Date | null;
  invalidated_at: Date | null;
}

export async function invalidateOutstandingResetTokens(q: Q, userId: string, now: Date): Promise<void> {
  await q('password_reset_tokens')
    .where({ user_id: userId })
    .whereNull('used_at')
    .whereNull('invalidated_at')
    .update({ invalidated_at: now });
}

export async function insertResetToken(
  q: Q,
  row: { id: string; user_id: string; token_hash: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await q('password_reset_tokens').insert(row);
}

export const findResetToken = (q: Q, tokenHash: string, forUpdate = false) => {
  const query = q('password_reset_tokens').where({ token_hash: tokenHash });
  return (forUpdate ? query.forUpdate().first() : query.first()) as Promise<ResetTokenRow | undefined>;
};

export async function markResetTokenUsed(q: Q, id: string, now: Date): Promise<void> {
  await q('password_reset_tokens').where({ id }).update({ used_at: now });
}

// Email confirmation tokens.
export interface EmailConfirmationRow {
  id: string;
  user_id: string;
  email: string;
  expires_at: Date;
  used_at: Date | null;
  invalidated_at: Date | null;
}

export async function invalidateOutstandingConfirmations(q: Q, userId: string, now: Date): Promise<void> {
  await q('email_confirmation_tokens')
    .where({ user_id: userId })
    .whereNull('used_at')
    .whereNull('invalidated_at')
    .update({ invalidated_at: now });
}

export async function insertEmailConfirmation(
  q: Q,
  row: { id: string; user_id: string; email: string; token_hash: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await q('email_confirmation_tokens').insert(row);
}

export const findEmailConfirmation = (q: Q, tokenHash: string, forUpdate = false) => {
  const query = q('email_confirmation_tokens').where({ token_hash: tokenHash });
  return (forUpdate ? query.forUpdate().first() : query.first()) as Promise<EmailConfirmationRow | undefined>;
};

export async function markEmailConfirmationUsed(q: Q, id: string, now: Date): Promise<void> {
  await q('email_confirmation_tokens').where({ id }).update({ used_at: now });
}

const MEMBERSHIP_SQL = 'SELECT role, created_at FROM family_memberships WHERE user_id = ? AND family_id = ? LIMIT 1';

/** The membership an access token names (server/http/auth.ts). One statement per request, sent
 *  as fixed text (no query builder on this hot path): every authenticated request pays it. */
export async function membershipForToken(
  db: Db,
  userId: string,
  familyId: string,
): Promise<{ role: Role; created_at: Date } | undefined> {
  const { rows } = (await db.raw(MEMBERSHIP_SQL, [userId, familyId]).options(prepared('auth_membership'))) as {
    rows: Array<{ role: Role; created_at: Date }>;
  };
  return rows[0];
}

export interface MembershipVersion {
  /** The membership the token names (server/auth/tokens.ts `tokenActor` judges it). */
  role: Role;
  created_at: Date;
  /** The family's version (its counter) in the statement's snapshot; null without a counter. */
  version: string | null;
}

/** The membership check with the family's version; bindings `:userId`, `:familyId`. Also the
 *  first half of the list detail's statement (server/lists/queries.ts `listDetailForToken`). */
export const MEMBERSHIP_VERSION_SQL = `SELECT m.role, m.created_at, c.version
   FROM family_memberships m LEFT JOIN family_counters c ON c.family_id = m.family_id
   WHERE m.user_id = :userId AND m.family_id = :familyId
   LIMIT 1`;

/** The version as text (PGlite and pg both give int8 as text; this makes it explicit). */
export const withVersionText = <T extends { version: string | number | null }>(row: T | undefined) =>
  row && { ...row, version: row.version === null ? null : String(row.version) };

/** The membership check of an authenticated request (spec 5.2) with the family's version: is a
 *  copy of a detail built at some version still the family's data? Undefined without a
 *  membership. */
export async function membershipVersion(
  db: Q,
  input: { userId: string; familyId: string },
): Promise<MembershipVersion | undefined> {
  const { rows } = (await db.raw(MEMBERSHIP_VERSION_SQL, input).options(prepared('lists_membership_version'))) as {
    rows: MembershipVersion[];
  };
  return withVersionText(rows[0]);
}
