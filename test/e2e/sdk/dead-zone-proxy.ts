// A TCP proxy in front of the app that can go silent: `stall()` makes a dead zone (nothing is
// delivered in either direction and nothing is closed, as when packets are dropped on a broken
// network path; new connections are accepted and then hear nothing), `heal()` ends it (what was
// held back is delivered, as TCP would once its retransmissions get through, and held new
// connections go on to the app).
import net from 'node:net';

export interface DeadZoneProxy {
  url: string;
  stall(): void;
  heal(): void;
  close(): Promise<void>;
}

interface Link {
  flush(): void;
  destroy(): void;
}

export async function startDeadZoneProxy(target: { url: string }): Promise<DeadZoneProxy> {
  const { hostname, port: targetPort } = new URL(target.url);
  let stalled = false;
  const links = new Set<Link>();

  const server = net.createServer((client) => {
    let upstream: net.Socket | null = null;
    const toUpstream: Buffer[] = [];
    const toClient: Buffer[] = [];
    const connectUpstream = () => {
      upstream = net.connect(Number(targetPort), hostname);
      upstream.on('data', (d: Buffer) => (stalled ? toClient.push(d) : client.write(d)));
      upstream.on('close', () => client.destroy());
      upstream.on('error', () => client.destroy());
      link.flush();
    };
    const link: Link = {
      flush() {
        if (!upstream) return connectUpstream();
        for (const d of toUpstream.splice(0)) upstream.write(d);
        for (const d of toClient.splice(0)) client.write(d);
      },
      destroy() {
        client.destroy();
        upstream?.destroy();
      },
    };
    links.add(link);
    client.on('data', (d: Buffer) => (stalled || !upstream ? toUpstream.push(d) : upstream.write(d)));
    client.on('close', () => {
      links.delete(link);
      upstream?.destroy();
    });
    client.on('error', () => upstream?.destroy());
    if (!stalled) connectUpstream();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stall() {
      stalled = true;
    },
    heal() {
      stalled = false;
      for (const l of links) l.flush();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const l of links) l.destroy();
      }),
  };
}
