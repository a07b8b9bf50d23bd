/**
 * Family Shopping client SDK: `createFamilyClient(options)` (docs/sdk.md), plus the wire
 * contract it speaks (`./protocol`). Runs in browsers and Node 20+ (no Node built-ins).
 */
export { createFamilyClient, type FamilyClient, type FamilyClientOptions } from './client.js';
export { Auth, type RegisterInput } from './auth.js';
export type { Session, Role, SessionChange } from './session.js';
export { FamilyApiError, FamilyClientError, type FamilyClientErrorCode, type ProblemFieldError } from './errors.js';
export type { PullProgress } from './status.js';
export type { ClientState, FamilyClientEvent, FamilyClientEventType, FamilyClientEventOf } from './events.js';
export type { FamilyCollections, FamilyDatabase } from './database.js';
export type { WebSocketConstructor, WebSocketLike } from './live.js';
export type { HttpMethod } from './rest.js';
export type { FetchLike } from './transport.js';
export type { BackoffOptions } from './backoff.js';
export { newDoc } from './new-doc.js';
// The domain API's classes (client.lists, client.items, …); their calls resolve to DocData<C>.
export type { Domain, Lists, Items, Stores, Sections, Recipes, Ingredients, Products, Units } from './domain/index.js';
export * from './protocol/index.js';
