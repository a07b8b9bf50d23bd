// A TCP proxy in front of the app whose connection can be cut: `cut()` drops every open
// connection and refuses new ones (as a lost network does), `restore()` lets them through again
// on the same port.
import net from 'node:net';

export interface CuttableProxy {
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(target: { url: string }): Promise<CuttableProxy> {
  const { hostname, port: targetPort } = new URL(target.url);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(targetPort), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    cut: stop,
    async restore() {
      await listen(port);
    },
    close: async () => {
      if (server.listening) await stop();
    },
  };
}
