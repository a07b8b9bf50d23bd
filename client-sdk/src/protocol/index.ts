/**
 * Wire contract shared by the server and the client SDK: replication docs and RxDB
 * schemas (docs.ts), replication endpoints (sync.ts), live channel frames
 * (realtime.ts) and the conflict merge (merge.ts). Depends on zod only.
 */
export * from './docs.js';
export * from './sync.js';
export * from './realtime.js';
export * from './merge.js';
