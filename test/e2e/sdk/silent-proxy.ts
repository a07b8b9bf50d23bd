// A TCP proxy whose network can go silent, as in a dead zone: `silence()` drops every byte in
// both directions without closing anything (no FIN, no RST), and the connections open then
// stay dead for good (their peers' state is lost, as after a NAT timeout); connections opened
// while silent are accepted but dead too. After `speak()` new connections work again.
import net from 'node:net';

export interface SilentProxy {
  url: string;
  port: number;
  silence(): void;
  speak(): void;
  close(): Promise<void>;
}

export async function startSilentProxy(target: { url: string }): Promise<SilentProxy> {
  const { hostname, port: targetPort } = new URL(target.url);
  const sockets = new Set<net.Socket>();
  const dead = new WeakSet<net.Socket>();
  let silent = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(targetPort), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => {
        sockets.delete(s);
        // a close reaches the other side only while the path works
        if (!dead.has(s)) (s === client ? upstream : client).destroy();
      });
      s.on('error', () => s.destroy());
      if (silent) dead.add(s);
    }
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (!dead.has(from) && !to.destroyed) to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    silence() {
      silent = true;
      for (const s of sockets) dead.add(s);
    },
    speak() {
      silent = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
