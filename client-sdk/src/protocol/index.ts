/**
 * Wire contract shared by the server and the client SDK: field rules (rules.ts), replication
 * docs and RxDB schemas (docs.ts), write inputs (inputs.ts), derived views (views.ts),
 * replication endpoints (sync.ts), live channel frames (realtime.ts) and the conflict merge
 * (merge.ts). Depends on zod only.
 */
export * from './rules.js';
export * from './docs.js';
export * from './inputs.js';
export * from './views.js';
export * from './locale-names.js';
export * from './sync.js';
export * from './realtime.js';
export * from './merge.js';
export * from './daily.js';
export * from './edits.js';
