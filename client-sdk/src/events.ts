/** What a FamilyClient reports to the app (`client.events$`, `client.on(type, listener)`). */
import type { CollectionName, RejectedRow, ServerFrame } from './protocol/index.js';

/**
 * - `stopped`: not replicating (before start(), after stop(), or after removed /
 *   schema_outdated / unauthenticated);
 * - `offline`: started, the server cannot be reached (local writes queue up);
 * - `syncing`: pulling or pushing;
 * - `idle`: started, online, nothing to do.
 */
export type ClientState = 'stopped' | 'offline' | 'syncing' | 'idle';

export type FamilyClientEvent =
  | { type: 'state'; state: ClientState }
  /** The server is reachable again (live channel authenticated). */
  | { type: 'online' }
  /** The server cannot be reached. */
  | { type: 'offline' }
  /** A live `Changed { version }` nudge (replication pulls what it lacks). */
  | { type: 'changed'; version: number }
  /** Every frame of the live channel (ItemAdded, ListProgress, …), for live screens. */
  | { type: 'frame'; frame: ServerFrame }
  /** The server refused pushed changes (validation, rules, roles); the local copies revert to
   * the server's state. */
  | { type: 'rejected'; collection: CollectionName; rows: RejectedRow[] }
  /** A replication error RxDB retries (after `retryTime`). */
  | { type: 'error'; collection?: CollectionName; error: unknown }
  /** 410: the collection is being re-synced from scratch. */
  | { type: 'checkpoint_expired'; collection: CollectionName }
  /** Removed from the family (live close 4403): replication stopped, session dropped. */
  | { type: 'removed' }
  /** 426: this app's schema is outdated; replication stopped, local data kept. */
  | { type: 'schema_outdated' }
  /** The refresh token was refused: session dropped, replication stopped; sign in again. */
  | { type: 'unauthenticated' };

export type FamilyClientEventType = FamilyClientEvent['type'];
export type FamilyClientEventOf<T extends FamilyClientEventType> = Extract<FamilyClientEvent, { type: T }>;
