// Tunables of the live channel. Defaults are the production values; tests shorten them.
import { AUTH_TIMEOUT_MS, MAX_CLIENT_FRAME_BYTES } from '@family-shopping/client/protocol';

export interface RealtimeOptions {
  /** First frame must be Authenticate within this time, else close 4401. */
  authTimeoutMs?: number;
  /** Heartbeat period: a socket that has not answered the previous ping is terminated. */
  pingIntervalMs?: number;
  /** Slow-consumer bound on a socket's unsent bytes; beyond it the socket is closed with 4408. */
  maxBufferedBytes?: number;
  /** Largest accepted client frame (ws maxPayload); larger frames close the socket with 1009. */
  maxPayloadBytes?: number;
  /** Lists one socket may join at once. */
  maxListsPerSocket?: number;
  /** Client frames received but not yet handled; at this many the server stops reading the
   *  socket until half of them are done (backpressure, no close). */
  maxPendingFrames?: number;
  /** After the server closes a socket, how long the client gets to complete the close handshake
   *  before the TCP connection is dropped. */
  closeGraceMs?: number;
  /** Every so often (2 s) the memberships of all authenticated sockets are checked in one query,
   *  so a removal whose MemberRemoved event never arrived (Redis down, or pub/sub's at most once)
   *  still closes the socket with 4403 within seconds (api-contract §13), and role changes are
   *  picked up. */
  membershipCheckMs?: number;
  /** Live sockets one user may hold on this instance (config MAX_SOCKETS_PER_USER); a new one
   *  beyond it closes the user's oldest with 4429. */
  maxSocketsPerUser?: number;
}

export type ResolvedRealtimeOptions = Required<RealtimeOptions>;

export function resolveOptions(o: RealtimeOptions = {}): ResolvedRealtimeOptions {
  return {
    authTimeoutMs: o.authTimeoutMs ?? AUTH_TIMEOUT_MS,
    pingIntervalMs: o.pingIntervalMs ?? 30_000,
    maxBufferedBytes: o.maxBufferedBytes ?? 1024 * 1024,
    maxPayloadBytes: o.maxPayloadBytes ?? MAX_CLIENT_FRAME_BYTES,
    maxListsPerSocket: o.maxListsPerSocket ?? 256,
    maxPendingFrames: o.maxPendingFrames ?? 64,
    closeGraceMs: o.closeGraceMs ?? 5_000,
    membershipCheckMs: o.membershipCheckMs ?? 2_000,
    maxSocketsPerUser: o.maxSocketsPerUser ?? 20,
  };
}
