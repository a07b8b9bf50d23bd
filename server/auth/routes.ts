// HTTP of accounts (contracts sections 3 and 7): register, login, refresh, logout, invite lookup,
// forgot/reset password, email confirmation, /me and its self-service. Rate-limited endpoints name their bucket (http/ratelimit.ts).
import type { ApiRouter } from '../http/route.js';
import type { Deps } from '../context.js';
import { invitationNotFound, lookupInvite } from '../family/public.js';
import { dummyPasswordHash } from './passwords.js';
import { login, logout, me, refresh, register } from './service.js';
import { forgotPassword, resetPassword } from './password-reset.js';
import { changePassword, confirmEmail, requestEmailConfirmation, updateMe } from './account.js';
import { requestLocale } from '../http/locale.js';
import {
  ChangePasswordBody,
  ConfirmEmailBody,
  ForgotPasswordBody,
  InviteLookup,
  InviteTokenParams,
  LoginBody,
  Me,
  Message,
  RefreshBody,
  RegisterBody,
  ResetPasswordBody,
  Session,
  UpdateMeBody,
} from './schemas.js';

const problem = (description: string) => ({ description });

export function registerAuthRoutes(api: ApiRouter, deps: Deps): void {
  void dummyPasswordHash(); // ready before the first login with an unknown email

  api.add(
    {
      method: 'post',
      path: '/auth/register',
      summary: 'Create an account: with an invite token, a family code, or a new family',
      tag: 'auth',
      access: 'public',
      rateLimit: 'register',
      body: RegisterBody,
      responses: {
        201: { description: 'Session', schema: Session },
        400: problem('validation_failed, invitation_invalid, family_code_invalid'),
        403: problem('forbidden: new families are disabled'),
        409: problem('duplicate_user_name, duplicate_email'),
        429: problem('rate_limited'),
      },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = await register(deps, body, { requestLocale: requestLocale(ctx) });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/login',
      summary: 'Sign in with email and password',
      tag: 'auth',
      access: 'public',
      rateLimit: 'login',
      body: LoginBody,
      responses: {
        200: { description: 'Session', schema: Session },
        401: problem('invalid_credentials'),
        429: problem('rate_limited'),
      },
    },
    async (ctx, { body }) => {
      ctx.body = await login(deps, body);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/refresh',
      summary: 'Exchange a refresh token for a new session (the old refresh token stops working)',
      tag: 'auth',
      access: 'public',
      body: RefreshBody,
      responses: { 200: { description: 'Session', schema: Session }, 401: problem('unauthenticated') },
    },
    async (ctx, { body }) => {
      ctx.body = await refresh(deps, body.refreshToken);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/logout',
      summary: 'Revoke a refresh token',
      tag: 'auth',
      access: 'public',
      body: RefreshBody,
      responses: { 204: { description: 'Revoked (also when it was unknown)' } },
    },
    async (ctx, { body }) => {
      await logout(deps, body.refreshToken);
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'get',
      path: '/auth/invite/:token',
      summary: 'Look up a pending invitation by its link token',
      tag: 'auth',
      access: 'public',
      params: InviteTokenParams,
      notFound: invitationNotFound,
      responses: { 200: { description: 'Invitation', schema: InviteLookup }, 404: problem('invitation_invalid') },
    },
    async (ctx, { params }) => {
      ctx.body = await lookupInvite(deps, params.token);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/forgot-password',
      summary: 'Email a password reset link (same answer whatever the email)',
      tag: 'auth',
      access: 'public',
      rateLimit: 'forgotPassword',
      body: ForgotPasswordBody,
      responses: { 200: { description: 'Always the same message', schema: Message }, 429: problem('rate_limited') },
    },
    async (ctx, { body }) => {
      ctx.body = await forgotPassword(deps, body.email);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/reset-password',
      summary: 'Set a new password with a reset link token',
      tag: 'auth',
      access: 'public',
      rateLimit: 'resetPassword',
      body: ResetPasswordBody,
      responses: {
        200: { description: 'Changed', schema: Message },
        400: problem('reset_token_invalid, validation_failed'),
        429: problem('rate_limited'),
      },
    },
    async (ctx, { body }) => {
      ctx.body = await resetPassword(deps, body);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/me',
      summary: 'The caller: user, family and role',
      tag: 'auth',
      access: 'member',
      responses: { 200: { description: 'Profile', schema: Me }, 401: problem('unauthenticated') },
    },
    async (ctx, { actor }) => {
      ctx.body = await me(deps, actor);
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/me',
      summary: "Change the caller's user name (unique in any letter case) and/or language (null: none chosen)",
      tag: 'auth',
      access: 'member',
      body: UpdateMeBody,
      responses: {
        200: { description: 'Profile', schema: Me },
        400: problem('validation_failed'),
        401: problem('unauthenticated'),
        409: problem('duplicate_user_name'),
      },
    },
    async (ctx, { actor, body }) => {
      ctx.body = await updateMe(deps, actor, body);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/me/password',
      summary: "Change the caller's password; every other session of the user is signed out",
      tag: 'auth',
      access: 'member',
      rateLimit: 'changePassword',
      body: ChangePasswordBody,
      responses: {
        204: { description: 'Changed' },
        400: problem('invalid_credentials (wrong current password), validation_failed'),
        401: problem('unauthenticated'),
        429: problem('rate_limited'),
      },
    },
    async (ctx, { actor, body }) => {
      await changePassword(deps, actor, body);
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'post',
      path: '/me/email-confirmation',
      summary: 'Email a link that confirms the address (202), unless it is confirmed already (200)',
      tag: 'auth',
      access: 'member',
      rateLimit: 'emailConfirmation',
      responses: {
        200: { description: 'Already confirmed: no mail', schema: Message },
        202: { description: 'A confirmation link is on its way', schema: Message },
        401: problem('unauthenticated'),
        429: problem('rate_limited'),
      },
    },
    async (ctx, { actor }) => {
      const outcome = await requestEmailConfirmation(deps, actor);
      ctx.status = outcome === 'sent' ? 202 : 200;
      ctx.body = {
        message: outcome === 'sent' ? 'A confirmation link is on its way.' : 'Your email address is already confirmed.',
      };
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/confirm-email',
      summary: 'Confirm an email address with the token of a confirmation link',
      tag: 'auth',
      access: 'public',
      rateLimit: 'confirmEmail',
      body: ConfirmEmailBody,
      responses: {
        200: { description: 'Confirmed', schema: Message },
        400: problem('confirmation_invalid, validation_failed'),
        429: problem('rate_limited'),
      },
    },
    async (ctx, { body }) => {
      ctx.body = await confirmEmail(deps, body.token);
    },
  );
}
