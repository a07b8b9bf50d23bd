/**
 * The live channel (api-contract §5, docs/realtime.md): one WebSocket to `/api/realtime`,
 * used as the replication nudge. `Authenticate` is the first frame; a refreshed token is sent
 * as a new `Authenticate` on the open socket. Close codes:
 * - 4403 (removed from the family): no reconnect;
 * - 4401 (token refused or expired): reconnect with a fresh token (refreshed when the refused
 *   one is still the session's); no reconnect when the session is gone;
 * - anything else (1001/1012 server stopping, 1006 connection lost, 4408 slow consumer, 1011):
 *   reconnect with capped exponential backoff and full jitter.
 *
 * Heartbeat (api-contract §7 "Client liveness"): once authenticated the client sends `Ping`
 * every `heartbeatTimeoutMs / 2.5`; a socket from which no frame at all has arrived for
 * `heartbeatTimeoutMs` (default 25 s; counted from the connect, so a connect that never gets an
 * answer is given up too) while an answer was awaited is dropped and reopened. That is what notices a silent dead zone
 * (packets dropped, no close), where neither side's TCP says anything for minutes.
 */
import { backoffDelay, type BackoffOptions } from './backoff.js';
import {
  decodeServerFrame,
  encodeFrame,
  CLOSE_CODES,
  REALTIME_PATH,
  type ChangedFrame,
  type ServerFrame,
} from './protocol/index.js';

/** Default of `heartbeatTimeoutMs`: a socket silent this long is given up. */
export const HEARTBEAT_TIMEOUT_MS = 25_000;

/** The parts of the WHATWG WebSocket the SDK uses; the browser's and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: any) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: any) => void) | null;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

const OPEN = 1;

export interface LiveHandlers {
  /** Authenticated (first connect and every reconnect): time to pull what was missed. */
  connected(): void;
  /** The socket is gone (a reconnect may follow). */
  disconnected(): void;
  /** An attempt ended without authenticating (refused, closed, no answer in time, signed out):
   *  whoever waits for the first connect need not wait longer. */
  unavailable?(): void;
  /** `Changed`: `collections` names what the commit wrote (undefined: any), `docs` its live
   *  patch. */
  changed(frame: ChangedFrame): void;
  frame(frame: ServerFrame): void;
  /** 4403: removed from the family. */
  removed(): void;
}

export interface LiveOptions {
  baseUrl: string;
  WebSocket: WebSocketConstructor;
  /** The session's current access token (null: signed out). */
  currentToken(): string | null;
  /** A token to replace `refused` (refreshing when it is still the session's); null when the
   * session is gone. May throw when offline. */
  freshToken(refused: string): Promise<string | null>;
  backoff: BackoffOptions;
  handlers: LiveHandlers;
  /** The lists whose group this client is in: joined again on every (re)connect. */
  joinedLists(): Iterable<string>;
  /** A socket from which no frame arrived for this long is closed and reopened (default
   *  HEARTBEAT_TIMEOUT_MS); Pings go out every 2/5 of it. */
  heartbeatTimeoutMs?: number;
}

/** A socket closed with 4429 (too many sockets of this user) reconnects on its own after
 *  between half of this and this, unless the app is used again before. */
export const PARKED_RECONNECT_MS = 5 * 60_000;

export class LiveChannel {
  private ws: WebSocketLike | null = null;
  private sentToken: string | null = null;
  private authenticated = false;
  private running = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** When the current socket last gave a sign of life (opened or a frame arrived). */
  private lastHeard = 0;
  /** Since when an answer is awaited (the connect, or the first Ping no frame followed). */
  private awaitingSince: number | undefined;
  private pings = 0;

  constructor(private readonly options: LiveOptions) {}

  private get heartbeatTimeoutMs(): number {
    return this.options.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS;
  }

  get connected(): boolean {
    return this.authenticated;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.attempt = 0;
    this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.drop(1000, 'client stopped');
  }

  /** Lets go of the current socket without waiting for its close (which a dead connection may
   *  not deliver for minutes). */
  private drop(code: number, reason: string): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.onopen = null;
      // keep an onerror listener: the `ws` package throws on an unhandled 'error' event
      ws.onerror = () => undefined;
      try {
        ws.close(code, reason);
      } catch {
        // not open yet
      }
      // The `ws` package would wait 30 s for the peer's close frame: free the socket now.
      (ws as { terminate?: () => void }).terminate?.();
    }
    if (this.authenticated) {
      this.authenticated = false;
      this.options.handlers.disconnected();
    } else if (ws) {
      this.options.handlers.unavailable?.();
    }
  }

  /** Every 2/5 of the timeout: a Ping when authenticated; the socket is given up when nothing
   *  at all arrived for the whole timeout although an answer was awaited for at least one
   *  period. (The second condition keeps a hidden browser tab, whose timers may fire only once
   *  a minute, from dropping a healthy socket: its Ping must go out and stay unanswered.) */
  private beat(ws: WebSocketLike): void {
    if (ws !== this.ws) return;
    const now = Date.now();
    const awaited = this.awaitingSince !== undefined && now - this.awaitingSince >= this.heartbeatTimeoutMs / 2.5;
    if (awaited && now - this.lastHeard >= this.heartbeatTimeoutMs) {
      this.drop(4000, 'no frame from the server');
      this.scheduleReconnect();
      return;
    }
    if (this.authenticated && ws.readyState === OPEN) {
      this.awaitingSince ??= now;
      ws.send(encodeFrame({ type: 'Ping', requestId: `ping:${++this.pings}` }));
    }
  }

  /** Joins a list's group now when authenticated (otherwise on the next connect). */
  join(listId: string): void {
    this.sendAuthenticated({ type: 'JoinList', listId, requestId: `join:${listId}` });
  }

  leave(listId: string): void {
    this.sendAuthenticated({ type: 'LeaveList', listId });
  }

  private sendAuthenticated(frame: Parameters<typeof encodeFrame>[0]): void {
    const ws = this.ws;
    if (!ws || !this.authenticated || ws.readyState !== OPEN) return;
    ws.send(encodeFrame(frame));
  }

  /** The network is back (or the app asked to sync): a reconnect waiting out its backoff, or
   *  an attempt that has not authenticated yet, starts over at once. */
  reconnectNow(): void {
    if (!this.running || this.authenticated) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.drop(1000, 'reconnecting');
    this.attempt = 0;
    this.connect();
  }

  /** Sends a refreshed token on the open socket (no reconnect needed). */
  reauthenticate(token: string): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== OPEN || token === this.sentToken) return;
    // Until the server accepted one, a refusal (it closes the socket) is of the first token
    // sent: keep that one as the refused, or the fresh token would be refreshed once more.
    if (this.authenticated) this.sentToken = token;
    ws.send(encodeFrame({ type: 'Authenticate', token }));
  }

  private connect(): void {
    if (!this.running) return;
    const token = this.options.currentToken();
    if (!token) return this.options.handlers.unavailable?.();
    const url = new URL(REALTIME_PATH, this.options.baseUrl.replace(/\/+$/, '') + '/');
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws: WebSocketLike;
    try {
      ws = new this.options.WebSocket(url.toString());
    } catch {
      this.options.handlers.unavailable?.();
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.sentToken = null;
    this.lastHeard = this.awaitingSince = Date.now();
    clearInterval(this.heartbeat);
    const period = this.heartbeatTimeoutMs / 2.5;
    this.heartbeat = setInterval(() => this.beat(ws), period);
    (this.heartbeat as { unref?: () => void }).unref?.();
    ws.onerror = () => undefined; // a close event follows
    ws.onopen = () => {
      this.lastHeard = Date.now();
      const current = this.options.currentToken();
      if (!current) return ws.close(1000, 'signed out');
      this.sentToken = current;
      ws.send(encodeFrame({ type: 'Authenticate', token: current }));
    };
    ws.onmessage = (ev) => {
      this.lastHeard = Date.now();
      this.awaitingSince = undefined;
      this.onMessage(ev.data);
    };
    ws.onclose = (ev) => void this.onClose(ws, ev.code);
  }

  private onMessage(data: unknown): void {
    const text = typeof data === 'string' ? data : String(data);
    const decoded = decodeServerFrame(text);
    const frame = decoded.ok ? decoded.frame : changedWithoutDocs(text);
    if (!frame) return; // a newer server's frame: ignore
    if (frame.type === 'Authenticated') {
      if (!this.authenticated) {
        this.authenticated = true;
        this.attempt = 0;
        for (const listId of this.options.joinedLists()) this.join(listId);
        this.options.handlers.connected();
      }
    } else if (frame.type === 'Changed') {
      this.options.handlers.changed(frame);
    } else if (frame.type === 'Pong') {
      return; // the heartbeat's own answer: a sign of life, nothing for the app
    }
    this.options.handlers.frame(frame);
  }

  private async onClose(ws: WebSocketLike, code: number): Promise<void> {
    if (ws !== this.ws) return;
    this.ws = null;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const refused = this.sentToken;
    if (this.authenticated) {
      this.authenticated = false;
      this.options.handlers.disconnected();
    } else {
      this.options.handlers.unavailable?.();
    }
    if (!this.running) return;
    if (code === CLOSE_CODES.REMOVED_FROM_FAMILY) {
      this.running = false;
      this.options.handlers.removed();
      return;
    }
    if (code === CLOSE_CODES.TOO_MANY_SOCKETS) {
      // This user's newer sockets pushed this one out. Reconnecting at once would push out
      // another of them, which would do the same: wait until the app is used again
      // (`reconnectNow`: the network back, `sync()`), or a long while.
      this.scheduleReconnect(PARKED_RECONNECT_MS * (0.5 + Math.random() / 2));
      return;
    }
    if (code === CLOSE_CODES.UNAUTHENTICATED && refused) {
      try {
        if (!(await this.options.freshToken(refused))) {
          this.running = false; // signed out: the client reports it
          return;
        }
      } catch {
        // offline or server busy: back off and try again
      }
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(delayMs = backoffDelay(this.attempt++, this.options.backoff)): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, delayMs);
  }
}

/** A `Changed` whose live patch this client cannot read (a doc its schema refuses) is still the
 *  nudge: without the docs it is pulled as before, instead of being lost. */
function changedWithoutDocs(text: string): ServerFrame | null {
  try {
    const value = JSON.parse(text) as { type?: unknown; docs?: unknown } | null;
    if (!value || value.type !== 'Changed' || !('docs' in value)) return null;
    delete value.docs;
    const decoded = decodeServerFrame(JSON.stringify(value));
    return decoded.ok ? decoded.frame : null;
  } catch {
    return null;
  }
}
