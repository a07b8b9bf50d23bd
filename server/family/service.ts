// Family administration: the family record, its shareable code, members and roles. Every change
// goes through familyWrite, whose lock on the family's counter row also serialises the
// last-admin checks.
import type { Actor, Deps, Role } from '../context.js';
import { randomInviteCode } from '../db/ids.js';
import { familyWrite } from '../db/family-write.js';
import { conflict, notFound } from '../errors.js';
import { revokeAllRefreshTokens, type UpdateFamilyInput } from '../auth/public.js';
import { onFamilyLocaleChanged } from '../catalog/public.js';
import {
  countAdmins,
  deleteMembership,
  findFamily,
  findMember,
  listMembers,
  setInviteCode,
  setRole,
  updateFamilyRow,
  type FamilyRow,
  type MemberRow,
} from './queries.js';

export function memberRecord(row: MemberRow) {
  return {
    userId: row.user_id,
    userName: row.user_name,
    email: row.email,
    role: row.role,
    joinedAt: row.created_at.toISOString(),
  };
}

const lastAdmin = () => conflict('last_admin', 'A family needs at least one admin; make someone else admin first');

const familyRecord = (family: FamilyRow) => ({
  id: family.id,
  name: family.name,
  inviteCode: family.invite_code,
  locale: family.locale,
});

export async function getFamily(deps: Deps, actor: Actor) {
  const family = await findFamily(deps.db, actor.familyId);
  if (!family) throw notFound();
  return familyRecord(family);
}

/** Renames the family and/or sets its language (admin). Names are not unique; the family code
 *  stays. A versioned family write, as every change of the family is. */
export async function updateFamily(deps: Deps, actor: Actor, input: UpdateFamilyInput) {
  return familyWrite(deps, actor.familyId, async (w) => {
    const patch = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.locale !== undefined ? { locale: input.locale } : {}),
    };
    const before = input.locale !== undefined ? await findFamily(w.trx, actor.familyId) : undefined;
    await updateFamilyRow(w.trx, actor.familyId, patch, w.now);
    // Every global product's effective name follows the locale: devices pull them anew.
    if (before && before.locale !== input.locale) onFamilyLocaleChanged(w);
    const family = await findFamily(w.trx, actor.familyId);
    if (!family) throw notFound();
    return familyRecord(family);
  });
}

/** A new random code; the old one stops working at once. */
export async function rotateFamilyCode(deps: Deps, actor: Actor): Promise<{ inviteCode: string }> {
  return familyWrite(deps, actor.familyId, async (w) => {
    const inviteCode = randomInviteCode();
    await setInviteCode(w.trx, actor.familyId, inviteCode, w.now);
    return { inviteCode };
  });
}

export async function getMembers(deps: Deps, actor: Actor) {
  return (await listMembers(deps.db, actor.familyId)).map(memberRecord);
}

export async function changeRole(deps: Deps, actor: Actor, userId: string, role: Role) {
  return familyWrite(deps, actor.familyId, async (w) => {
    const member = await findMember(w.trx, actor.familyId, userId);
    if (!member) throw notFound('No such member in your family');
    if (member.role === role) return memberRecord(member);
    if (member.role === 'admin' && (await countAdmins(w.trx, actor.familyId)) <= 1) throw lastAdmin();
    await setRole(w.trx, actor.familyId, userId, role);
    w.emit({ type: 'MemberRoleChanged', userId, role });
    return memberRecord({ ...member, role });
  });
}

/**
 * Removal: the membership goes (so the member's access tokens fail from the next request on,
 * see http/auth.ts), their refresh tokens are revoked, and MemberRemoved tells the live channel
 * to close their connections (4403). The user account stays (it is referenced by list history).
 */
export async function removeMember(deps: Deps, actor: Actor, userId: string): Promise<void> {
  await familyWrite(deps, actor.familyId, async (w) => {
    const member = await findMember(w.trx, actor.familyId, userId);
    if (!member) throw notFound('No such member in your family');
    if (member.role === 'admin' && (await countAdmins(w.trx, actor.familyId)) <= 1) throw lastAdmin();
    await deleteMembership(w.trx, actor.familyId, userId);
    await revokeAllRefreshTokens(w.trx, userId, w.now);
    w.emit({ type: 'MemberRemoved', userId });
  });
}
