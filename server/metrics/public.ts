// The front door of server/metrics: what other features may use. Import it as
// '../metrics/public.js'; the files behind it are this feature's own (docs/architecture.md).
export type { Metrics } from './metrics.js';
