// The front door of server/sync: what other features may use. Import it as
// '../sync/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { familyDoc, isFamilyCollection, type FamilyCollection } from './docs.js';
