// A fault-injecting TCP proxy in front of one client (a load balancer of its own): it forwards
// each new connection to the client's home instance, or to the other one when the home refuses,
// and injects the faults of the chaos run on command:
// - delay: every chunk in both directions waits `ms` (order kept);
// - drop: the open connections stop forwarding (bytes vanish), and so do new ones;
// - reset: every open connection is destroyed at once (both sides see a reset);
// - partition: open connections are destroyed and new ones refused until healed;
// - halfOpen: the open connections stay open but nothing is read or written any more (the peer
//   sees a silent socket, not a close); new connections work.
// Connections silenced by drop or halfOpen stay silent after heal: as in a real network, only the
// client's own deadlines (request timeout, live heartbeat) get it out of them.
import net from 'node:net';

export type FaultKind = 'delay' | 'drop' | 'reset' | 'partition' | 'halfOpen';

interface Conn {
  client: net.Socket;
  upstream: net.Socket | null;
  silent: boolean;
}

export class FaultProxy {
  private server: net.Server;
  private conns = new Set<Conn>();
  private delayMs = 0;
  private dropping = false;
  private partitioned = false;
  port = 0;

  constructor(private readonly targets: () => number[]) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }

  get faulty(): boolean {
    return this.delayMs > 0 || this.dropping || this.partitioned;
  }

  inject(kind: FaultKind, delayMs = 0): void {
    switch (kind) {
      case 'delay':
        this.delayMs = delayMs;
        break;
      case 'drop':
        this.dropping = true;
        for (const c of this.conns) c.silent = true;
        break;
      case 'reset':
        this.destroyAll();
        break;
      case 'partition':
        this.partitioned = true;
        this.destroyAll();
        break;
      case 'halfOpen':
        for (const c of this.conns) {
          c.silent = true;
          c.client.pause();
          c.upstream?.pause();
        }
        break;
    }
  }

  heal(): void {
    this.delayMs = 0;
    this.dropping = false;
    this.partitioned = false;
  }

  async close(): Promise<void> {
    this.destroyAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private destroyAll(): void {
    for (const c of this.conns) {
      c.client.resetAndDestroy?.();
      c.client.destroy();
      c.upstream?.destroy();
    }
    this.conns.clear();
  }

  private accept(client: net.Socket): void {
    if (this.partitioned) {
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    const conn: Conn = { client, upstream: null, silent: this.dropping };
    this.conns.add(conn);
    const end = () => {
      this.conns.delete(conn);
      client.destroy();
      conn.upstream?.destroy();
    };
    client.on('error', end);
    client.on('close', end);
    const early: Buffer[] = [];
    client.on('data', (chunk: Buffer) => {
      if (conn.upstream) this.forward(conn, conn.upstream, chunk);
      else early.push(chunk);
    });
    const candidates = [...this.targets()];
    const tryNext = () => {
      const port = candidates.shift();
      if (port === undefined || client.destroyed) return end();
      const upstream = net.connect(port, '127.0.0.1');
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        conn.upstream = upstream;
        for (const chunk of early.splice(0)) this.forward(conn, upstream, chunk);
      });
      upstream.on('data', (chunk: Buffer) => this.forward(conn, client, chunk));
      upstream.on('error', () => {
        if (!connected) tryNext();
        else end();
      });
      upstream.on('close', () => {
        if (connected) end();
      });
    };
    tryNext();
  }

  private lastDue = 0;

  private forward(conn: Conn, to: net.Socket, chunk: Buffer): void {
    if (conn.silent) return;
    const now = Date.now();
    const due = Math.max(now + this.delayMs, this.lastDue);
    if (due <= now) {
      if (!to.destroyed) to.write(chunk);
      return;
    }
    this.lastDue = due;
    setTimeout(() => {
      if (!conn.silent && !to.destroyed) to.write(chunk);
    }, due - Date.now());
  }
}
