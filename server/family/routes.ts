// HTTP of the family administration (contract section 3): family, code, members, invites.
import type { ApiRouter } from '../http/route.js';
import type { Deps } from '../context.js';
import {
  FamilyRecord,
  InviteBody,
  InviteCodeRecord,
  InviteParams,
  InviteRecord,
  MemberParams,
  MemberRecord,
  RoleBody,
  UpdateFamilyBody,
} from '../auth/public.js';
import { changeRole, getFamily, getMembers, removeMember, rotateFamilyCode, updateFamily } from './service.js';
import { issueInvite, listInvites, resendInvite, revokeInvite } from './invites.js';
import { exportFamily, FamilyDocument } from './export.js';
import { DOCUMENT_REFS, importFamily, ImportResult } from './import.js';

const problem = (description: string) => ({ description });

export function registerFamilyRoutes(api: ApiRouter, deps: Deps): void {
  api.add(
    {
      method: 'get',
      path: '/family',
      summary: "The caller's family with its shareable code",
      tag: 'family',
      access: 'member',
      responses: { 200: { description: 'Family', schema: FamilyRecord } },
    },
    async (ctx, { actor }) => {
      ctx.body = await getFamily(deps, actor);
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/family',
      summary:
        "Rename the family (names are trimmed, 1 to 100 characters, not unique) and/or set its language (one of the app's languages)",
      tag: 'family',
      access: 'admin',
      body: UpdateFamilyBody,
      responses: {
        200: { description: 'Family', schema: FamilyRecord },
        400: problem('validation_failed'),
        403: problem('forbidden'),
      },
    },
    async (ctx, { actor, body }) => {
      ctx.body = await updateFamily(deps, actor, body);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/family/invite-code',
      summary: 'Replace the family code with a new random one',
      tag: 'family',
      access: 'admin',
      responses: { 200: { description: 'New code', schema: InviteCodeRecord }, 403: problem('forbidden') },
    },
    async (ctx, { actor }) => {
      ctx.body = await rotateFamilyCode(deps, actor);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/family/members',
      summary: 'Members of the family',
      tag: 'family',
      access: 'member',
      responses: { 200: { description: 'Members', schema: MemberRecord.array() } },
    },
    async (ctx, { actor }) => {
      ctx.body = await getMembers(deps, actor);
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/family/members/:userId',
      summary: "Change a member's role",
      tag: 'family',
      access: 'admin',
      params: MemberParams,
      body: RoleBody,
      responses: {
        200: { description: 'Member', schema: MemberRecord },
        403: problem('forbidden'),
        404: problem('not_found'),
        409: problem('last_admin'),
      },
    },
    async (ctx, { actor, params, body }) => {
      ctx.body = await changeRole(deps, actor, params.userId, body.role);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/family/members/:userId',
      summary: 'Remove a member (their tokens stop working at once)',
      tag: 'family',
      access: 'admin',
      params: MemberParams,
      responses: {
        204: { description: 'Removed' },
        403: problem('forbidden'),
        404: problem('not_found'),
        409: problem('last_admin'),
      },
    },
    async (ctx, { actor, params }) => {
      await removeMember(deps, actor, params.userId);
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'get',
      path: '/family/invites',
      summary: 'Pending invitations',
      tag: 'family',
      access: 'admin',
      responses: {
        200: { description: 'Pending invitations', schema: InviteRecord.array() },
        403: problem('forbidden'),
      },
    },
    async (ctx, { actor }) => {
      ctx.body = await listInvites(deps, actor);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/family/invites',
      summary: 'Invite someone by email (replaces a pending invite to the same email)',
      tag: 'family',
      access: 'admin',
      body: InviteBody,
      responses: {
        201: { description: 'Invitation', schema: InviteRecord },
        403: problem('forbidden'),
        409: problem('already_member'),
      },
    },
    async (ctx, { actor, body }) => {
      ctx.status = 201;
      ctx.body = await issueInvite(deps, actor, body.email);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/family/invites/:id/resend',
      summary: 'Send the invitation again with a new link (the old link stops working)',
      tag: 'family',
      access: 'admin',
      params: InviteParams,
      responses: {
        200: { description: 'Invitation', schema: InviteRecord },
        403: problem('forbidden'),
        404: problem('not_found'),
      },
    },
    async (ctx, { actor, params }) => {
      ctx.body = await resendInvite(deps, actor, params.id);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/family/invites/:id',
      summary: 'Revoke an invitation',
      tag: 'family',
      access: 'admin',
      params: InviteParams,
      responses: { 204: { description: 'Revoked' }, 403: problem('forbidden'), 404: problem('not_found') },
    },
    async (ctx, { actor, params }) => {
      await revokeInvite(deps, actor, params.id);
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'get',
      path: '/family/export',
      summary:
        "The family's own records as one document (stores, sections, lists, items, recipes, ingredients, family products and overrides, family units, section memory); no users, tokens or secrets",
      tag: 'family',
      access: 'admin',
      responses: { 200: { description: 'Family export', schema: FamilyDocument }, 403: problem('forbidden') },
    },
    async (ctx, { actor }) => {
      ctx.body = await exportFamily(deps, actor);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/family/import',
      summary:
        'Write a family export into this family, which must have no stores, lists, recipes or catalog entries yet (body up to 20 MiB; ids taken elsewhere are replaced)',
      tag: 'family',
      access: 'admin',
      body: FamilyDocument,
      bodyRefs: IMPORT_BODY_REFS,
      responses: {
        200: { description: 'Records imported, by collection', schema: ImportResult },
        400: {
          description:
            'Problem: `validation_failed`, or a reference to a record the document does not hold: `store_not_found`, `section_not_found`, `list_not_found`, `recipe_not_found`, `unit_not_found`, `product_not_found`',
          codes: [
            'validation_failed',
            'store_not_found',
            'section_not_found',
            'list_not_found',
            'recipe_not_found',
            'unit_not_found',
            'product_not_found',
          ],
        },
        403: problem('forbidden'),
        409: problem('family_not_empty'),
      },
    },
    async (ctx, { actor, body }) => {
      ctx.body = await importFamily(deps, actor, body);
    },
  );
}

/** The document's references (the isolation matrix puts another family's ids there: 400). */
const IMPORT_BODY_REFS = DOCUMENT_REFS.map(([collection, field]) => `${collection}.0.${field}`);
