// The front door of server/events: what other features may use. Import it as
// '../events/public.js'; the files behind it are this feature's own (docs/architecture.md).
export { InProcessBus, type ChangedEvent, type EventBus, type FamilyEvent, type FrameEvent } from './bus.js';
export { connectRedis, failFast, type RedisStateListener } from './redis-connection.js';
