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
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    http
      .get({ hostname, port, path: target, headers }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
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
    expect(res.headers.get('content-type')).to.not.match(/html/);
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
    } finally {
      await empty.close();
    }
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
