// The browser tests' "network": an HTTP proxy in front of the app whose origin the pages use
// (so the API is same-origin, as with the real app). It answers `/sdk-harness` itself, like a
// service worker's cached page, so a page loads even while the network is down; everything
// else (REST and the live channel's upgrade) goes to the app. `cut()` drops every connection
// and refuses new ones until `restore()`.
import http from 'node:http';
import net from 'node:net';

export interface NetworkSwitch {
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startSwitch(app: { url: string }, harnessHtml: () => Promise<string>): Promise<NetworkSwitch> {
  const target = new URL(app.url);
  const sockets = new Set<net.Socket>();
  let cut = false;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = http.createServer((req, res) => {
    if (req.url === '/sdk-harness') {
      void harnessHtml().then((html) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(html);
      });
      return;
    }
    if (cut) return req.socket.destroy();
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('socket', track);
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.on('connection', track);
  server.on('upgrade', (req, socket: net.Socket, head: Buffer) => {
    if (cut) return socket.destroy();
    const upstream = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    track(upstream);
    track(socket);
    upstream.on('close', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
