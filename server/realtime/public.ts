// The front door of server/realtime: what other features may use. Import it as
// '../realtime/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { committedDocs } from './patches.js';
