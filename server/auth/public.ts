// The front door of server/auth: what other features may use. Import it as
// '../auth/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { issueResetToken } from './password-reset.js';
export {
  MEMBERSHIP_VERSION_SQL,
  findUserByEmail,
  membershipForToken,
  membershipOf,
  revokeAllRefreshTokens,
  withVersionText,
  type MembershipVersion,
} from './queries.js';
export {
  Email,
  FamilyName,
  FamilyRecord,
  InviteBody,
  InviteCodeRecord,
  InviteParams,
  InviteRecord,
  MemberParams,
  MemberRecord,
  RoleBody,
  UpdateFamilyBody,
  type UpdateFamilyInput,
} from './schemas.js';
export { jwtKey, tokenActor, tokenMembership, verifyAccessToken, type AccessClaims } from './tokens.js';
