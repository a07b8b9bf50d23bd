// One live socket: first-frame authentication, list joins, token replacement and expiry, the
// slow-consumer bound. Frames of one socket are handled one after the other (an Authenticate
// followed at once by a JoinList is answered in that order), and a failure in one socket's
// handling never reaches another socket.
import type { Duplex } from 'node:stream';
import { WebSocket, type RawData } from 'ws';
import type { Deps } from '../context.js';
import { resolveActor } from '../http/auth.js';
import { verifyAccessToken } from '../auth/public.js';
import {
  CLOSE_CODES,
  decodeClientFrame,
  type AuthenticateFrame,
  type ClientFrame,
  type JoinListFrame,
  type RequestId,
  type ServerFrame,
} from '@family-shopping/client/protocol';
import type { HubMember, RealtimeHub } from './hub.js';
import type { ResolvedRealtimeOptions } from './options.js';
import { isFamilyMember, listBelongsToFamily } from './queries.js';
import { errorFields } from '../log.js';
import type { ErrorCode } from '../errors.js';
import { isDbUnavailable, serviceUnavailable } from '../db/errors.js';

/** setTimeout's longest delay; longer expiries are re-armed in steps. */
const MAX_TIMER_MS = 2_147_483_647;
/** One delivery's frames are corked into one write of the TCP socket up to this many bytes; a
 *  larger delivery is written in steps of it (so its bytes reach the kernel as before and the
 *  slow-consumer bound reads almost the same backlog it would frame by frame). */
const CORK_BYTES = 16 * 1024;

export class RealtimeConnection implements HubMember {
  familyId = '';
  userId = '';
  readonly lists = new Set<string>();
  /** Heartbeat: set on every pong or frame, cleared when a ping is sent. */
  alive = true;
  private authenticated = false;
  private closed = false;
  private tokenExp = 0;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private authTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly ws: WebSocket,
    /** The upgraded connection `ws` writes to (http's 'upgrade' socket): corked around a
     *  delivery so its frames leave in one write. */
    private readonly transport: Duplex,
    private readonly deps: Deps,
    private readonly hub: RealtimeHub,
    private readonly opts: ResolvedRealtimeOptions,
    private readonly onGone: (c: RealtimeConnection) => void,
  ) {
    this.authTimer = setTimeout(
      () => this.close(CLOSE_CODES.UNAUTHENTICATED, 'authentication timeout'),
      opts.authTimeoutMs,
    );
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('close', () => this.cleanup());
    ws.on('error', (err) => {
      // ws closes the socket itself after an error (1009 too big, 1007 bad UTF-8, ...).
      this.deps.log.debug({ err: errorFields(err) }, 'realtime socket error');
    });
  }

  get isAuthenticated(): boolean {
    return this.authenticated;
  }

  // ---- outgoing ---------------------------------------------------------------------------

  /** A delivery of the hub: frames encoded once for their whole audience, sent back to back in
   *  one write of the socket (one system call for the commit instead of one per frame: the
   *  cost of a fan-out is those calls, see docs/benchmarks.md). Corking only batches ws's own
   *  writes; the bytes and their order are what ws.send writes frame by frame. */
  sendFrames(frames: readonly Buffer[]): void {
    if (frames.length === 1) {
      this.sendFrame(frames[0]!);
      return;
    }
    this.transport.cork();
    try {
      let corked = 0;
      for (const frame of frames) {
        if (!this.sendFrame(frame)) break;
        corked += frame.length;
        if (corked >= CORK_BYTES) {
          this.transport.uncork();
          this.transport.cork();
          corked = 0;
        }
      }
    } finally {
      this.transport.uncork();
    }
  }

  /** Sends one text frame; false once the connection is closed (or was just closed as a slow
   *  consumer). */
  private sendFrame(data: Buffer | string): boolean {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return false;
    // A client that does not read must not make the server buffer without bound (nor slow down
    // the fan-out to others): past the bound it is closed and will re-pull on reconnect.
    if (this.ws.bufferedAmount > this.opts.maxBufferedBytes) {
      this.close(CLOSE_CODES.SLOW_CONSUMER, 'slow consumer: send buffer overflow');
      return false;
    }
    // A Buffer is sent as it is (no copy, no per-socket encoding); `binary: false` keeps it a
    // text frame.
    this.ws.send(data, { binary: false });
    return true;
  }

  private send(frame: ServerFrame): void {
    this.sendFrame(JSON.stringify(frame));
  }

  private sendError(code: ErrorCode, message: string, requestId?: RequestId): void {
    const frame: ServerFrame = { type: 'Error', code, message };
    if (requestId !== undefined) frame.requestId = requestId;
    this.send(frame);
  }

  /** Closes with a code; the socket leaves every group at once, and a client that does not
   *  complete the close handshake is dropped after closeGraceMs. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.cleanup();
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
      return;
    }
    setTimeout(() => this.ws.terminate(), this.opts.closeGraceMs).unref();
  }

  terminate(): void {
    this.cleanup();
    this.ws.terminate();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authTimer);
    clearTimeout(this.expiryTimer);
    if (this.authenticated) this.hub.remove(this);
    this.onGone(this);
  }

  // ---- incoming ---------------------------------------------------------------------------

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    this.alive = true;
    // Backpressure on a client that sends faster than its frames are handled (each may wait on
    // the database): stop reading its socket until the queue drains, so memory stays bounded.
    if (++this.pending >= this.opts.maxPendingFrames && !this.ws.isPaused) this.ws.pause();
    this.queue = this.queue
      .then(() => (this.closed ? undefined : this.handle(data, isBinary)))
      .catch((err: Error) => {
        const unavailable = isDbUnavailable(err);
        if (unavailable)
          this.deps.log.warn({ err: errorFields(err) }, 'realtime frame not handled: database unreachable');
        else this.deps.log.error({ err: errorFields(err) }, 'realtime frame handling failed');
        // Before authentication there is nothing to answer to: 1011 (server error), reconnect.
        if (!this.authenticated) this.close(1011, 'internal error');
        // The answer names the frame it answers (api-contract §13), an outage included.
        else if (unavailable)
          this.sendError('service_unavailable', serviceUnavailable().message, frameRequestId(data, isBinary));
        else
          this.sendError('internal_error', 'The frame could not be handled; try again', frameRequestId(data, isBinary));
      })
      .finally(() => {
        this.pending--;
        if (this.ws.isPaused && this.pending < this.opts.maxPendingFrames / 2 && !this.closed) this.ws.resume();
      });
  }

  private async handle(data: RawData, isBinary: boolean): Promise<void> {
    const decoded = isBinary
      ? ({ ok: false, error: 'binary frames are not accepted; send JSON text frames' } as const)
      : decodeClientFrame(rawToString(data));

    if (!this.authenticated) {
      if (!decoded.ok || decoded.frame.type !== 'Authenticate') {
        this.close(CLOSE_CODES.UNAUTHENTICATED, 'the first frame must be Authenticate');
        return;
      }
    }
    if (!decoded.ok) {
      this.sendError('bad_request', decoded.error, isBinary ? undefined : peekRequestId(rawToString(data)));
      return;
    }
    const frame: ClientFrame = decoded.frame;
    switch (frame.type) {
      case 'Authenticate':
        return this.authenticate(frame);
      case 'JoinList':
        return this.joinList(frame);
      case 'LeaveList':
        this.hub.leave(this, frame.listId.toLowerCase());
        return;
      case 'Ping': {
        const pong: ServerFrame = { type: 'Pong' };
        if (frame.requestId !== undefined) pong.requestId = frame.requestId;
        this.send(pong);
        return;
      }
    }
  }

  private async authenticate(frame: AuthenticateFrame): Promise<void> {
    const actor = await resolveActor(this.deps, frame.token);
    if (this.closed) return;
    const claims = actor ? verifyAccessToken(this.deps.jwtKey, frame.token, this.deps.clock.now().getTime()) : null;
    if (!actor || !claims) {
      this.close(CLOSE_CODES.UNAUTHENTICATED, 'invalid or expired token');
      return;
    }
    if (this.authenticated) {
      // Token replacement: same user, same family, or the connection ends.
      if (actor.userId !== this.userId || actor.familyId !== this.familyId) {
        this.close(CLOSE_CODES.UNAUTHENTICATED, 'token of another user or family');
        return;
      }
      this.armExpiry(claims.exp);
      this.send({ type: 'Authenticated', familyId: this.familyId });
      return;
    }

    clearTimeout(this.authTimer);
    this.familyId = actor.familyId;
    this.userId = actor.userId;
    this.authenticated = true;
    this.armExpiry(claims.exp);
    this.hub.add(this);
    this.hub.limitUser(this, this.opts.maxSocketsPerUser);
    this.send({ type: 'Authenticated', familyId: this.familyId });
    // A removal that committed between resolveActor's read and hub.add published its
    // MemberRemoved before this socket was in the hub; read once more to close that window.
    if (!(await isFamilyMember(this.deps.db, this.familyId, this.userId))) {
      this.close(CLOSE_CODES.REMOVED_FROM_FAMILY, 'removed from the family');
    }
  }

  /** Closes with 4401 when the current token's exp passes (unless a later Authenticate
   *  replaced it). Now-time comes from deps.clock; the wait is a real timer. */
  private armExpiry(exp: number): void {
    this.tokenExp = exp;
    clearTimeout(this.expiryTimer);
    const check = () => {
      if (this.closed || this.tokenExp !== exp) return;
      const left = exp * 1000 - this.deps.clock.now().getTime();
      if (left <= 0) {
        this.close(CLOSE_CODES.UNAUTHENTICATED, 'token expired');
        return;
      }
      this.expiryTimer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
    };
    check();
  }

  private async joinList(frame: JoinListFrame): Promise<void> {
    const listId = frame.listId.toLowerCase();
    const answer = (): void => {
      const ok: ServerFrame = { type: 'JoinedList', listId };
      if (frame.requestId !== undefined) ok.requestId = frame.requestId;
      this.send(ok);
    };
    if (!this.lists.has(listId) && this.lists.size >= this.opts.maxListsPerSocket) {
      this.sendError(
        'too_many_lists',
        `A connection may join at most ${this.opts.maxListsPerSocket} lists`,
        frame.requestId,
      );
      return;
    }
    const ok = await listBelongsToFamily(this.deps.db, this.familyId, listId);
    if (this.closed) return;
    if (!ok) {
      this.sendError('not_found', 'List not found', frame.requestId);
      return;
    }
    this.hub.join(this, listId);
    answer();
  }
}

/** The requestId of a frame, for an Error that answers it (none for binary or unreadable frames). */
function frameRequestId(data: RawData, isBinary: boolean): RequestId | undefined {
  return isBinary ? undefined : peekRequestId(rawToString(data));
}

function rawToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The requestId of a frame that failed validation, when one can be read, so the client can
 *  match the Error to its request. */
function peekRequestId(text: string): RequestId | undefined {
  try {
    const v = JSON.parse(text) as { requestId?: unknown };
    const id = v?.requestId;
    if ((typeof id === 'string' && id.length <= 128) || (typeof id === 'number' && Number.isInteger(id))) return id;
  } catch {
    // not JSON: no request id
  }
  return undefined;
}
