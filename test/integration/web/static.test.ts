// The server's serving of the web app (contract §9): files with the right caching, the app's
// index.html for every other path outside /api and the probes, no path escaping the build.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { expect } from 'chai';
import { errorHandler } from '../../../server/http/middleware.js';
import { resolveSafe, serveWebApp } from '../../../server/web/static.js';
import { request, testApp } from '../../helpers/app.js';

const INDEX = '<!doctype html><title>app</title>';
const SCRIPT = 'console.log("app");'.repeat(100);

async function serve(root: string) {
  const app = new Koa();
  app.use(errorHandler());
  app.use(serveWebApp({ root }));
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A raw request (fetch would normalise `..` out of the path before sending it). */
function rawGet(
  url: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    http
      .get({ hostname, port, path: target, headers }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

describe('web app serving', () => {
  let dir: string;
  let root: string;
  let srv: Awaited<ReturnType<typeof serve>>;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fs-web-'));
    root = path.join(dir, 'dist');
    await mkdir(path.join(root, 'assets'), { recursive: true });
    await writeFile(path.join(root, 'index.html'), INDEX);
    await writeFile(path.join(root, 'sw.js'), 'self.addEventListener("fetch", () => {});');
    await writeFile(path.join(root, 'assets', 'index-abc123.js'), SCRIPT);
    await writeFile(path.join(root, 'assets', 'index-abc123.js.gz'), gzipSync(SCRIPT));
    await writeFile(path.join(dir, 'secret.txt'), 'outside the build');
    await writeFile(path.join(root, '.env'), 'SECRET=1');
    srv = await serve(root);
  });
  after(async () => {
    await srv.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves index.html at / and for every app route, revalidated on each load', async () => {
    for (const p of ['/', '/lists/6f1c0a52-3c59-4a4e-8a57-0d1c2b3a4f5e', '/invite/abc', '/no/such/page']) {
      const res = await fetch(srv.url + p);
      expect(res.status, p).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.headers.get('cache-control')).to.equal('no-cache');
      expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(await res.text()).to.equal(INDEX);
    }
  });

  it('serves hashed assets as immutable for a year, precompressed when accepted', async () => {
    const res = await fetch(`${srv.url}/assets/index-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).to.equal('gzip');
    expect(await res.text()).to.equal(SCRIPT); // fetch decodes it

    const plain = await rawGet(srv.url, '/assets/index-abc123.js');
    expect(plain.body).to.equal(SCRIPT);
  });

  it('keeps the service worker revalidated and answers 304 to a matching ETag', async () => {
    const res = await fetch(`${srv.url}/sw.js`);
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    const etag = res.headers.get('etag')!;
    expect(etag).to.be.a('string');
    // (fetch would add Cache-Control: no-cache to a conditional request)
    const again = await rawGet(srv.url, '/sw.js', { 'if-none-match': etag });
    expect(again.status).to.equal(304);
  });

  it('answers 404 for a missing hashed asset instead of the app page', async () => {
    const res = await fetch(`${srv.url}/assets/index-gone.js`);
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(await res.text()).to.equal('Not found');
  });

  it('never serves a file outside the build or a dot file', async () => {
    for (const target of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/.env',
      '/%00index.html',
    ]) {
      const res = await rawGet(srv.url, target);
      expect(res.body, target).to.not.contain('outside the build');
      expect(res.body, target).to.not.contain('SECRET');
    }
    expect(resolveSafe(root, '/../secret.txt')).to.equal(null);
    expect(resolveSafe(root, '/%2e%2e/secret.txt')).to.equal(null);
    expect(resolveSafe(root, '/a%00b')).to.equal(null);
    expect(resolveSafe(root, '/%E0%A4%A')).to.equal(null);
    expect(resolveSafe(root, '/assets/x.js')).to.equal(path.join(root, 'assets', 'x.js'));
  });

  it('answers 405 problem+json to a method other than GET or HEAD on an app path', async () => {
    const res = await fetch(`${srv.url}/lists`, { method: 'POST' });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  });

  it('answers 503 with a page saying how to build when there is no build', async () => {
    const empty = await serve(path.join(dir, 'missing'));
    try {
      const res = await fetch(`${empty.url}/lists`);
      expect(res.status).to.equal(503);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(await res.text()).to.contain('npm run build');
      // Not cached: the next load after a build gets the app; a CSP like the app's pages.
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.headers.get('retry-after')).to.equal('60');
      expect(res.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
    } finally {
      await empty.close();
    }
  });

  it('passes /api, /healthz and /readyz on untouched; look-alike paths are app pages', async () => {
    // Behind serveWebApp alone nothing answers them: Koa's own 404, never the app page.
    for (const p of ['/api', '/api/lists', '/healthz', '/readyz']) {
      const res = await fetch(srv.url + p);
      expect(res.status, p).to.equal(404);
      expect(await res.text(), p).to.not.equal(INDEX);
    }
    for (const p of ['/apix', '/healthzx', '/readyz/x']) {
      const res = await fetch(srv.url + p);
      expect(await res.text(), p).to.equal(INDEX);
    }
  });

  it('answers OPTIONS on an app path with 204 and what it allows', async () => {
    const res = await fetch(`${srv.url}/lists`, { method: 'OPTIONS' });
    expect(res.status).to.equal(204);
    expect(res.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    expect(await res.text()).to.equal('');
  });

  it('names the refused method in the 405 problem', async () => {
    const res = await fetch(`${srv.url}/lists`, { method: 'DELETE' });
    expect(res.status).to.equal(405);
    expect((await res.json()).detail).to.equal('DELETE is not allowed here; allowed: GET, HEAD, OPTIONS');
  });

  it('serves /robots.txt as text disallowing everything, cached for a day', async () => {
    const res = await fetch(`${srv.url}/robots.txt`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=86400');
    expect(await res.text()).to.equal('User-agent: *\nDisallow: /\n');
  });

  it('frames and types only the pages: nosniff on every file, DENY and the CSP on HTML alone', async () => {
    const page = await fetch(`${srv.url}/lists`);
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    const csp = page.headers.get('content-security-policy')!;
    const host = new URL(srv.url).host;
    // Every directive the app's pages need, each from the app's own origin (api-contract §13).
    expect(csp.split('; ')).to.deep.equal([
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data: blob:",
      "font-src 'self'",
      `connect-src 'self' ws://${host}`,
      "manifest-src 'self'",
      "worker-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ]);
    const script = await fetch(`${srv.url}/assets/index-abc123.js`);
    expect(script.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(script.headers.get('x-frame-options')).to.equal(null);
    expect(script.headers.get('content-security-policy')).to.equal(null);
    // A Host header that is not a plain host[:port] names no WebSocket origin.
    const odd = await rawGet(srv.url, '/', { host: 'bad host/x' });
    expect(odd.headers['content-security-policy']).to.contain("connect-src 'self';");
  });

  it('never sends an encoding the client did not accept', async () => {
    for (const accepted of ['br', 'identity', 'gzip;q=0, br']) {
      const res = await rawGet(srv.url, '/assets/index-abc123.js', { 'accept-encoding': accepted });
      expect(res.body, accepted).to.equal(SCRIPT);
    }
    // Accepted, but the client prefers the file as it is.
    const prefers = await rawGet(srv.url, '/assets/index-abc123.js', { 'accept-encoding': 'gzip;q=0.1, identity' });
    expect(prefers.headers['content-encoding']).to.equal(undefined);
    expect(prefers.body).to.equal(SCRIPT);
  });

  it('sends a file of a type it does not know as bytes, never sniffed', async () => {
    await writeFile(path.join(root, 'assets', 'data-abc123.bin'), 'opaque');
    const res = await rawGet(srv.url, '/assets/data-abc123.bin');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/octet-stream');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.body).to.equal('opaque');
  });

  it('tags files with a weak ETag of their size and time; HEAD sends the length and no body', async () => {
    const res = await fetch(`${srv.url}/assets/index-abc123.js`);
    const etag = /^W\/"([0-9a-f]+)-[0-9a-f]+"$/.exec(res.headers.get('etag') ?? '');
    expect(etag, String(res.headers.get('etag'))).to.not.equal(null);
    expect(parseInt(etag![1]!, 16)).to.equal(SCRIPT.length);
    expect(res.headers.get('last-modified')).to.be.a('string');
    const head = await fetch(`${srv.url}/assets/index-abc123.js`, {
      method: 'HEAD',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal(String(SCRIPT.length));
    expect(await head.text()).to.equal('');
  });

  it('refuses a dot file in any folder, not only at the top', () => {
    expect(resolveSafe(root, '/assets/.env')).to.equal(null);
    expect(resolveSafe(root, '/assets/.well/x.js')).to.equal(null);
  });

  it('leaves /api, /healthz and /readyz to the server in the real app', async function () {
    this.timeout(120_000);
    const app = await testApp();
    const api = await request(app, 'GET', '/api/no-such-thing');
    expect(api.status).to.equal(404);
    expect(api.headers.get('content-type')).to.match(/^application\/problem\+json/);
    const bare = await request(app, 'GET', '/api');
    expect(bare.headers.get('content-type')).to.match(/^application\/problem\+json/);
    const health = await request(app, 'GET', '/healthz');
    expect(health.body).to.deep.equal({ status: 'ok' });
    const ready = await request(app, 'GET', '/readyz');
    expect(ready.body).to.deep.equal({ status: 'ready' });
    // Only /api/…, /healthz and /readyz themselves are the server's: look-alikes are app paths.
    for (const p of ['/lists/x', '/apix', '/healthzx', '/readyz/x']) {
      const page = await request(app, 'GET', p);
      expect([200, 503], p).to.include(page.status); // 503 when web/dist was not built
      expect(page.headers.get('content-type'), p).to.match(/^text\/html/);
    }
  });
});
