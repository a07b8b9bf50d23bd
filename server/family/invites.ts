// Emailed invitations: single-use links built from APP_BASE_URL, valid 7 days; only the SHA-256 of
// a token is stored, the raw token exists only in the email. Admin operations go through
// familyWrite; mails are sent after commit and never fail the request. An invitation speaks its
// sender's language: the sender's own, else the family's (api-contract §12).
import type { Actor, Deps } from '../context.js';
import { newId, randomToken, sha256 } from '../db/ids.js';
import { familyWrite } from '../db/family-write.js';
import { AppError, conflict, notFound } from '../errors.js';
import { inviteEmail, inviteLink, mailLocale, type MailInput } from '../mail/public.js';
import {
  findFamily,
  findInvite,
  findMemberByEmail,
  findOpenInvite,
  findPendingInviteByToken,
  findSender,
  insertInvite,
  listPendingInvites,
  revokeInvite as revokeInviteRow,
  revokeOpenInvitesTo,
  rotateInvite,
  type InviteRow,
} from './queries.js';

/** The public lookup's answer for any link that is not a pending invitation. */
export const invitationNotFound = () =>
  new AppError(404, 'invitation_invalid', 'The invitation is unknown, expired, already used or revoked');

export const INVITE_TTL_MS = 7 * 24 * 3600_000;

export function inviteRecord(row: InviteRow) {
  return {
    id: row.id,
    email: row.email,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}

function send(deps: Deps, message: MailInput) {
  void deps.mailer?.sendInBackground(message);
}

async function composeInvite(
  w: { trx: Parameters<typeof findFamily>[0] },
  actor: Actor,
  row: InviteRow,
  token: string,
): Promise<MailInput> {
  const family = await findFamily(w.trx, actor.familyId);
  const sender = await findSender(w.trx, actor.userId);
  return (base) =>
    inviteEmail({
      to: row.email,
      familyName: family?.name ?? 'your family',
      inviterName: sender?.user_name ?? null,
      link: inviteLink(base, token),
      expiresAt: row.expires_at,
      locale: mailLocale(sender?.locale, family?.locale),
    });
}

export async function listInvites(deps: Deps, actor: Actor) {
  return (await listPendingInvites(deps.db, actor.familyId, deps.clock.now())).map(inviteRecord);
}

/** Issues an invite; a pending invite to the same email is revoked and replaced. */
export async function issueInvite(deps: Deps, actor: Actor, email: string) {
  const { record, mail } = await familyWrite(deps, actor.familyId, async (w) => {
    if (await findMemberByEmail(w.trx, actor.familyId, email)) {
      throw conflict('already_member', 'That email already belongs to a member of your family');
    }
    await revokeOpenInvitesTo(w.trx, actor.familyId, email, w.now);
    const token = randomToken(32);
    const row = await insertInvite(w.trx, {
      id: newId(),
      family_id: actor.familyId,
      email,
      token_hash: sha256(token),
      invited_by_user_id: actor.userId,
      created_at: w.now,
      expires_at: new Date(w.now.getTime() + INVITE_TTL_MS),
    });
    return { record: inviteRecord(row), mail: await composeInvite(w, actor, row, token) };
  });
  send(deps, mail);
  return record;
}

/** New token (the old link stops working), renewed expiry, new email. */
export async function resendInvite(deps: Deps, actor: Actor, id: string) {
  const { record, mail } = await familyWrite(deps, actor.familyId, async (w) => {
    const open = await findOpenInvite(w.trx, actor.familyId, id);
    if (!open) throw notFound('No open invitation with that id');
    const token = randomToken(32);
    const row = await rotateInvite(w.trx, open.id, sha256(token), new Date(w.now.getTime() + INVITE_TTL_MS));
    return { record: inviteRecord(row), mail: await composeInvite(w, actor, row, token) };
  });
  send(deps, mail);
  return record;
}

/** Revokes an invite that is not consumed (again: still 204). Unknown or consumed: 404. */
export async function revokeInvite(deps: Deps, actor: Actor, id: string): Promise<void> {
  await familyWrite(deps, actor.familyId, async (w) => {
    const row = await findInvite(w.trx, actor.familyId, id);
    if (!row || row.consumed_at) throw notFound('No open invitation with that id');
    await revokeInviteRow(w.trx, row.id, w.now);
  });
}

/** Public lookup by link token: the invited email, the family's name and the expiry. */
export async function lookupInvite(deps: Deps, token: string) {
  const row = await findPendingInviteByToken(deps.db, sha256(token), deps.clock.now());
  if (!row) throw invitationNotFound();
  return { email: row.email, familyName: row.family_name, expiresAt: row.expires_at.toISOString() };
}
