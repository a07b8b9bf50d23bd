// The live channel on the service's HTTP server: `ws` in noServer mode behind the http
// 'upgrade' event (only /api/realtime upgrades; any other path gets 404), heartbeats, the
// family-partitioned hub fed by the event bus, and a graceful close (1001 going away, 1012
// restart) that runs before the HTTP server stops.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Deps } from '../context.js';
import { CLOSE_CODES, REALTIME_PATH } from '@family-shopping/client/protocol';
import { RealtimeHub } from './hub.js';
import { TITLES, problem } from '../http/errors.js';
import type { ErrorCode } from '../errors.js';
import { RealtimeConnection } from './connection.js';
import { resolveOptions, type RealtimeOptions } from './options.js';
import { stillMembers } from './queries.js';
import { errorFields } from '../log.js';

export type { RealtimeOptions } from './options.js';

export interface RealtimeServer {
  readonly hub: RealtimeHub;
  /** Open sockets, authenticated or not. */
  connectionCount(): number;
  /** Closes every socket with `code` (1001 shutdown, 1012 restart) and stops accepting new
   *  ones; resolves once the sockets are gone (or were dropped after the grace time). */
  close(code?: number, reason?: string): Promise<void>;
}

export function attachRealtime(server: http.Server, deps: Deps, options: RealtimeOptions = {}): RealtimeServer {
  const opts = resolveOptions({ maxSocketsPerUser: deps.config.MAX_SOCKETS_PER_USER, ...options });
  const hub = new RealtimeHub(deps.log, deps.metrics && ((n) => deps.metrics!.liveEventsDelivered.inc(n)));
  const connections = new Set<RealtimeConnection>();
  let closing = false;

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: opts.maxPayloadBytes,
    // Frames are small JSON; compression would cost CPU per socket on every broadcast.
    perMessageDeflate: false,
    clientTracking: false,
  });

  const unsubscribe = deps.bus.subscribe((familyId, events) => hub.deliver(familyId, events));

  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      path = '';
    }
    if (path !== REALTIME_PATH) return rejectUpgrade(socket, 404, 'not_found', 'No such resource');
    if (closing) return rejectUpgrade(socket, 503, 'shutting_down', 'The server is shutting down; reconnect');
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (closing) {
        ws.close(CLOSE_CODES.GOING_AWAY, 'server shutting down');
        return;
      }
      const conn = new RealtimeConnection(ws, socket, deps, hub, opts, (c) => connections.delete(c));
      connections.add(conn);
    });
  };
  server.on('upgrade', onUpgrade);

  const heartbeat = setInterval(() => {
    for (const c of [...connections]) {
      if (!c.alive) {
        c.terminate();
        continue;
      }
      c.alive = false;
      try {
        c.ws.ping();
      } catch {
        c.terminate();
      }
    }
  }, opts.pingIntervalMs);
  heartbeat.unref();

  // Memberships of every authenticated socket, checked in one query now and then: the events
  // close a removed member's sockets at once, this catches a removal whose event was lost.
  let sweeping = false;
  const membershipSweep = setInterval(() => {
    if (sweeping || closing) return;
    const live = [...connections].filter((c) => c.isAuthenticated);
    if (live.length === 0) return;
    sweeping = true;
    stillMembers(deps.db, live)
      .then((members) => {
        for (const c of live) {
          if (!members.has(`${c.familyId}/${c.userId}`))
            c.close(CLOSE_CODES.REMOVED_FROM_FAMILY, 'removed from the family');
        }
      })
      .catch((err: Error) => deps.log.warn({ err: errorFields(err) }, 'realtime membership check failed'))
      .finally(() => {
        sweeping = false;
      });
  }, opts.membershipCheckMs);
  membershipSweep.unref();

  let closed: Promise<void> | undefined;
  const close = (
    code: number = CLOSE_CODES.GOING_AWAY,
    reason = code === CLOSE_CODES.SERVICE_RESTART ? 'server restarting' : 'server shutting down',
  ) =>
    (closed ??= (async () => {
      closing = true;
      clearInterval(heartbeat);
      clearInterval(membershipSweep);
      unsubscribe();
      // The upgrade listener stays: while the sockets close (and until the HTTP server stops
      // listening) an upgrade is answered 503 shutting_down, so clients retry elsewhere. Without
      // a listener Node would hand the upgrade to the Koa app, which answers 404.
      const sockets = [...connections].map((c) => c.ws);
      const gone = Promise.all(
        sockets.map((ws) =>
          ws.readyState === ws.CLOSED ? undefined : new Promise<void>((r) => ws.once('close', () => r())),
        ),
      );
      for (const c of [...connections]) c.close(code, reason);
      // Clients normally answer the close frame at once; a dead one is dropped after the grace.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise<void>((r) => (timer = setTimeout(r, Math.min(opts.closeGraceMs, 3_000))))]);
      clearTimeout(timer);
      for (const ws of sockets) if (ws.readyState !== ws.CLOSED) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    })());

  return { hub, connectionCount: () => connections.size, close };
}

/** Refuses an upgrade with the same problem+json body as every other error. */
function rejectUpgrade(socket: Duplex, status: number, code: ErrorCode, detail: string): void {
  socket.once('finish', () => socket.destroy());
  socket.once('error', () => socket.destroy());
  const body = JSON.stringify(problem(status, code, detail));
  socket.end(
    `HTTP/1.1 ${status} ${TITLES[status]}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
