// SQL of the family administration: the family row, memberships, invites.
import type { Db, Trx } from '../db/knex.js';
import type { Role } from '../context.js';
import type { Locale } from '@family-shopping/client/protocol';
import { effectiveGlobalProducts, type EffectiveProductRow } from '../catalog/public.js';

type Q = Db | Trx;

export interface FamilyRow {
  id: string;
  name: string;
  invite_code: string;
  locale: Locale;
}

const familyColumns = ['id', 'name', 'invite_code', 'locale'];

export const findFamily = (q: Q, id: string) =>
  q('families').where({ id }).first(familyColumns) as Promise<FamilyRow | undefined>;

export const findFamilyByCode = (q: Q, code: string) =>
  q('families').where({ invite_code: code }).first(familyColumns) as Promise<FamilyRow | undefined>;

/** Changes the fields given: the name, the language. */
export async function updateFamilyRow(
  q: Q,
  familyId: string,
  patch: { name?: string; locale?: Locale },
  now: Date,
): Promise<void> {
  await q('families')
    .where({ id: familyId })
    .update({ ...patch, updated_at: now });
}

export async function setInviteCode(q: Q, familyId: string, code: string, now: Date): Promise<void> {
  await q('families').where({ id: familyId }).update({ invite_code: code, updated_at: now });
}

export interface MemberRow {
  user_id: string;
  user_name: string;
  email: string;
  role: Role;
  created_at: Date;
}

const memberColumns = ['m.user_id', 'u.user_name', 'u.email', 'm.role', 'm.created_at'];

export const listMembers = (q: Q, familyId: string) =>
  q('family_memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.family_id', familyId)
    .orderBy([{ column: 'm.created_at' }, { column: 'm.user_id' }])
    .select(memberColumns) as Promise<MemberRow[]>;

export const findMember = (q: Q, familyId: string, userId: string) =>
  q('family_memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where({ 'm.family_id': familyId, 'm.user_id': userId })
    .first(memberColumns) as Promise<MemberRow | undefined>;

export const findMemberByEmail = (q: Q, familyId: string, email: string) =>
  q('family_memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where({ 'm.family_id': familyId, 'u.email': email })
    .first(memberColumns) as Promise<MemberRow | undefined>;

export async function countAdmins(q: Q, familyId: string): Promise<number> {
  const row = (await q('family_memberships')
    .where({ family_id: familyId, role: 'admin' })
    .count({ n: '*' })
    .first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

export async function setRole(q: Q, familyId: string, userId: string, role: Role): Promise<void> {
  await q('family_memberships').where({ family_id: familyId, user_id: userId }).update({ role });
}

export async function deleteMembership(q: Q, familyId: string, userId: string): Promise<void> {
  await q('family_memberships').where({ family_id: familyId, user_id: userId }).del();
}

/** The name and chosen language of a user (an invitation's sender). */
export const findSender = (q: Q, userId: string) =>
  q('users').where({ id: userId }).first('user_name', 'locale') as Promise<
    { user_name: string; locale: Locale | null } | undefined
  >;

// Invites. "Pending" = not consumed, not revoked, not expired (expiry compared with the app clock).
export interface InviteRow {
  id: string;
  family_id: string;
  email: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
  revoked_at: Date | null;
}

export async function insertInvite(
  q: Q,
  row: {
    id: string;
    family_id: string;
    email: string;
    token_hash: string;
    invited_by_user_id: string | null;
    created_at: Date;
    expires_at: Date;
  },
): Promise<InviteRow> {
  const [inserted] = await q('invites').insert(row).returning('*');
  return inserted as InviteRow;
}

export const listPendingInvites = (q: Q, familyId: string, now: Date) =>
  q('invites')
    .where({ family_id: familyId })
    .whereNull('consumed_at')
    .whereNull('revoked_at')
    .where('expires_at', '>', now)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('*') as Promise<InviteRow[]>;

/** An invite of the family that can still be resent or revoked (not consumed, not revoked). */
export const findOpenInvite = (q: Q, familyId: string, id: string) =>
  q('invites').where({ family_id: familyId, id }).whereNull('consumed_at').whereNull('revoked_at').first() as Promise<
    InviteRow | undefined
  >;

export const findInvite = (q: Q, familyId: string, id: string) =>
  q('invites').where({ family_id: familyId, id }).first() as Promise<InviteRow | undefined>;

export async function revokeOpenInvitesTo(q: Q, familyId: string, email: string, now: Date): Promise<void> {
  await q('invites')
    .where({ family_id: familyId, email })
    .whereNull('consumed_at')
    .whereNull('revoked_at')
    .update({ revoked_at: now });
}

export async function rotateInvite(q: Q, id: string, tokenHash: string, expiresAt: Date): Promise<InviteRow> {
  const [row] = await q('invites')
    .where({ id })
    .update({ token_hash: tokenHash, expires_at: expiresAt })
    .returning('*');
  return row as InviteRow;
}

export async function revokeInvite(q: Q, id: string, now: Date): Promise<void> {
  await q('invites').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
}

/** The pending invite a link token names, with its family's name (any family: the token is the key). */
export async function findPendingInviteByToken(
  q: Q,
  tokenHash: string,
  now: Date,
  forUpdate = false,
): Promise<(InviteRow & { family_name: string; family_locale: Locale }) | undefined> {
  const query = q('invites as i')
    .join('families as f', 'f.id', 'i.family_id')
    .where('i.token_hash', tokenHash)
    .whereNull('i.consumed_at')
    .whereNull('i.revoked_at')
    .where('i.expires_at', '>', now)
    .first('i.*', 'f.name as family_name', 'f.locale as family_locale');
  return (await (forUpdate ? query.forUpdate('i') : query)) as
    (InviteRow & { family_name: string; family_locale: Locale }) | undefined;
}

export async function consumeInvite(q: Q, id: string, userId: string, now: Date): Promise<void> {
  await q('invites').where({ id }).update({ consumed_at: now, consumed_by_user_id: userId });
}

/** A new family with its version counter row (starting at 0). */
export async function insertFamily(q: Q, row: FamilyRow): Promise<void> {
  await q('families').insert(row);
  await q('family_counters').insert({ family_id: row.id, version: 0 });
}

// Family export and import (server/family/export.ts, import.ts): the family's own rows of the
// replicated tables, read and checked as a whole.

/** Live rows of one of the family's replicated tables (`FAMILY_TABLE` and the family catalog
 *  tables), oldest first. */
export const liveFamilyRows = (q: Q, table: string, familyId: string) =>
  q(table)
    .where({ family_id: familyId, deleted: false })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('*') as Promise<Array<Record<string, unknown>>>;

/** The family's live overrides: each global product as the effective catalog shows it
 *  (`effectiveGlobalProducts`: the override, else the name in the family's locale, else English)
 *  and the override as stored (`override_*`: null follows the global product). */
export const liveOverrides = (q: Q, familyId: string) =>
  effectiveGlobalProducts(q, familyId)
    .whereNotNull('o.id')
    .orderBy([{ column: 'p.created_at' }, { column: 'p.id' }])
    .select(
      'o.name as override_name',
      'o.unit_category_flags as override_flags',
      'o.category as override_category',
    ) as Promise<
    Array<
      EffectiveProductRow & {
        override_name: string | null;
        override_flags: number | null;
        override_category: string | null;
      }
    >
  >;

/** Whether the family has a live store, list, recipe, family product, override or family unit. */
export async function familyHasData(q: Q, familyId: string): Promise<boolean> {
  for (const table of [
    'stores',
    'shopping_lists',
    'recipes',
    'family_products',
    'family_product_overrides',
    'family_units_of_measure',
  ]) {
    if (await q(table).where({ family_id: familyId, deleted: false }).first('id')) return true;
  }
  return false;
}

/** Which of these ids a row of `table` holds, in any family and any state (tombstones too). */
export async function idsInUse(q: Q, table: string, ids: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = (await q(table)
      .whereIn('id', ids.slice(i, i + 5000))
      .select('id')) as Array<{ id: string }>;
    for (const r of rows) out.add(String(r.id));
  }
  return out;
}

/** Lowercased abbreviations of the global units. */
export async function globalUnitAbbreviations(q: Q): Promise<Set<string>> {
  const rows = (await q('units_of_measure').select('abbreviation')) as Array<{ abbreviation: string }>;
  return new Set(rows.map((r) => r.abbreviation.toLowerCase()));
}

/** Ids of the family's members. */
export async function memberIds(q: Q, familyId: string): Promise<Set<string>> {
  const rows = (await q('family_memberships').where({ family_id: familyId }).select('user_id')) as Array<{
    user_id: string;
  }>;
  return new Set(rows.map((r) => String(r.user_id)));
}
