// The front door of server/family: what other features may use. Import it as
// '../family/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { createFamilyRow } from './create.js';
export { invitationNotFound, lookupInvite } from './invites.js';
export { consumeInvite, findFamily, findFamilyByCode, findPendingInviteByToken } from './queries.js';
export { changeRole } from './service.js';
