// Request and response shapes of the auth and family endpoints (zod). Input limits keep huge
// strings out: email ≤ 254, userName ≤ 100, password 8..1024, family names ≤ 100. Each field rule
// is defined once here and imported wherever the field is taken (registration, self-service).
import { z } from 'zod';
import { LIMITS, LOCALES, nameRule } from '@family-shopping/client/protocol';

/** Trimmed, lower-cased email (emails compare case-insensitively and are stored normalised). */
// `format: email` is the OpenAPI document's form of the `z.email()` check after the pipe.
export const Email = z.string().trim().toLowerCase().max(254).meta({ format: 'email' }).pipe(z.email());
export const Password = z.string().min(8, 'must be at least 8 characters').max(1024);
/** A user name: the name rule of every name (api-contract §13), 1 to 100 characters. */
export const UserName = nameRule(LIMITS.userName);
export const FAMILY_NAME_MAX = LIMITS.familyName;
/** A family's name: the name rule (api-contract §13), 1 to 100 characters, not unique. */
export const FamilyName = nameRule(FAMILY_NAME_MAX);
/** One of the app's languages (api-contract §12): `en`, `de`, `fr`, `es`, `pt-BR`. */
export const LocaleTag = z.enum(LOCALES);
/** Opaque tokens from links and sessions (base64url, 43 characters when we make them). */
export const OpaqueToken = z.string().min(1).max(512);

export const RegisterBody = z
  .object({
    email: Email,
    userName: UserName,
    password: Password,
    inviteToken: OpaqueToken.optional(),
    familyCode: z.string().trim().min(1).max(64).optional(),
    newFamilyName: z.optional(FamilyName),
  })
  .superRefine((b, ctx) => {
    const given = [b.inviteToken, b.familyCode, b.newFamilyName].filter((v) => v !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['inviteToken'],
        message: 'Give exactly one of inviteToken, familyCode or newFamilyName',
      });
    }
  });
export type RegisterInput = z.output<typeof RegisterBody>;

export const LoginBody = z.object({ email: Email, password: z.string().min(1).max(1024) });
export const RefreshBody = z.object({ refreshToken: OpaqueToken });
export const ForgotPasswordBody = z.object({ email: Email });
export const ResetPasswordBody = z.object({ token: OpaqueToken, newPassword: Password });
export const InviteTokenParams = z.object({ token: OpaqueToken });

// Self-service (contract section 7).
export const ChangePasswordBody = z.object({ currentPassword: z.string().min(1).max(1024), newPassword: Password });
/** At least one of the fields, else 400 (an empty edit is a client's mistake). */
const someField = <T extends object>(b: T) => Object.values(b).some((v) => v !== undefined);
export const UpdateMeBody = z
  .object({
    userName: z.optional(UserName),
    /** The user's language; null: none chosen (the app follows the browser). */
    locale: LocaleTag.nullable().optional(),
  })
  .refine(someField, { message: 'Give userName or locale' });
export type UpdateMeInput = z.output<typeof UpdateMeBody>;
export const UpdateFamilyBody = z
  .object({ name: z.optional(FamilyName), locale: LocaleTag.optional() })
  .refine(someField, { message: 'Give name or locale' });
export type UpdateFamilyInput = z.output<typeof UpdateFamilyBody>;
export const ConfirmEmailBody = z.object({ token: OpaqueToken });

export const RoleSchema = z.enum(['admin', 'member']);

export const UserRecord = z.object({
  id: z.string(),
  email: z.string(),
  userName: z.string(),
  emailConfirmed: z.boolean(),
  /** The language the user chose; null: none (the app follows the browser). */
  locale: LocaleTag.nullable(),
});
export const FamilyRef = z.object({ id: z.string(), name: z.string(), locale: LocaleTag });
export const Session = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.number().int(),
  user: UserRecord,
  family: FamilyRef,
  role: RoleSchema,
});
export type SessionRecord = z.output<typeof Session>;
export const Me = z.object({ user: UserRecord, family: FamilyRef, role: RoleSchema });
export const Message = z.object({ message: z.string() });
export const InviteLookup = z.object({ email: z.string(), familyName: z.string(), expiresAt: z.string() });

// Family endpoints.
export const FamilyRecord = z.object({ id: z.string(), name: z.string(), inviteCode: z.string(), locale: LocaleTag });
export const InviteCodeRecord = z.object({ inviteCode: z.string() });
export const MemberRecord = z.object({
  userId: z.string(),
  userName: z.string(),
  email: z.string(),
  role: RoleSchema,
  joinedAt: z.string(),
});
export const InviteRecord = z.object({
  id: z.string(),
  email: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export const MemberParams = z.object({ userId: z.guid() });
export const InviteParams = z.object({ id: z.guid() });
export const RoleBody = z.object({ role: RoleSchema });
export const InviteBody = z.object({ email: Email });
