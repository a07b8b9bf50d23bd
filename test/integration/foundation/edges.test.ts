// The edges of the HTTP surface (contract §7 "Failure statuses", §1): methods the API does not
// serve, names that are properties of every JavaScript object, and a 413 on a keep-alive
// connection. Spoken over plain node:http and raw sockets, since fetch refuses TRACE and hides
// the connection.
import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { testApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(
  url: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer | string; agent?: http.Agent } = {},
): Promise<Answer & { socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${path}`,
      { method, headers: options.headers, agent: options.agent ?? false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, text, socket: req.socket as net.Socket }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = (a: Answer) => JSON.parse(a.text) as Record<string, unknown>;

describe('HTTP edges', () => {
  it('answers a method the API does not serve with problem+json: 405 and Allow on a known path, 404 on an unknown one', async function () {
    this.timeout(60_000);
    const app = await testApp();
    const fam = await makeFamily(app);
    const auth = { authorization: `Bearer ${fam.admin.token}` };
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'PUT', 'LOCK', 'PURGE']) {
      const known = await send(app.url, method, '/api/lists', { headers: auth });
      expect(known.status, `${method} /api/lists`).to.equal(405);
      expect(known.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(json(known)).to.include({ status: 405, code: 'method_not_allowed' });
      expect(known.headers.allow!.split(', ')).to.include.members(['GET', 'HEAD', 'POST', 'OPTIONS']);

      const unknown = await send(app.url, method, '/api/no/such/thing', { headers: auth });
      expect(unknown.status, `${method} unknown path`).to.equal(404);
      expect(unknown.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(json(unknown)).to.include({ status: 404, code: 'not_found' });
    }
    // A path with parameters: Allow lists what that route serves.
    const item = await send(app.url, 'POST', `/api/lists/${crypto.randomUUID()}`, { headers: auth });
    expect(item.status).to.equal(405);
    expect(item.headers.allow!.split(', ').sort()).to.deep.equal(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH']);
    // OPTIONS on a known path: 204 with Allow; the health routes too.
    const options = await send(app.url, 'OPTIONS', '/api/lists', { headers: auth });
    expect(options.status).to.equal(204);
    expect(options.headers.allow).to.include('POST');
    for (const path of ['/healthz', '/readyz']) {
      const post = await send(app.url, 'POST', path);
      expect(post.status, path).to.equal(405);
      expect(post.headers.allow).to.equal('GET, HEAD, OPTIONS');
      expect(json(post)).to.include({ code: 'method_not_allowed' });
      expect((await send(app.url, 'HEAD', path)).status, `HEAD ${path}`).to.equal(200);
    }
  });

  it('looks asset names up safely: __proto__, constructor and other inherited names are 404, never 500', async () => {
    const app = await testApp();
    for (const name of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'isPrototypeOf',
      '__defineGetter__',
      'prototype',
    ]) {
      const res = await send(app.url, 'GET', `/api/docs/${name}`);
      expect(res.status, name).to.equal(404);
      expect(res.headers['content-type'], name).to.match(/^application\/problem\+json/);
      expect(json(res), name).to.include({ code: 'not_found' });
    }
    expect((await send(app.url, 'GET', '/api/docs/swagger-ui.css')).status).to.equal(200);
  });

  it('answers a 413 with Connection: close and closes cleanly, and the next request of a keep-alive client does not stall', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    // Each inflates past 1 MiB; the plain one declares it in Content-Length.
    const big = JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) });
    const bodies: [string, Buffer, Record<string, string>][] = [
      ['gzip', gzipSync(big), { 'content-encoding': 'gzip' }],
      ['deflate', deflateSync(big), { 'content-encoding': 'deflate' }],
      ['plain', Buffer.from(big), {}],
    ];
    for (const [label, body, extra] of bodies) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const headers = { 'content-type': 'application/json', authorization: `Bearer ${fam.admin.token}`, ...extra };
        const tooLarge = await send(app.url, 'POST', '/api/lists', { headers, body, agent });
        expect(tooLarge.status, label).to.equal(413);
        expect(tooLarge.headers.connection, label).to.equal('close');
        expect(json(tooLarge), label).to.include({ code: 'payload_too_large' });

        const started = performance.now();
        const next = await send(app.url, 'GET', '/api/lists', {
          headers: { authorization: `Bearer ${fam.admin.token}` },
          agent,
        });
        expect(next.status, label).to.equal(200);
        // Before, the next request on that connection stalled until the 5 s keep-alive timeout.
        expect(performance.now() - started, `${label}: next request`).to.be.below(3_000);
      } finally {
        agent.destroy();
      }
    }
  });

  it('after a 413 the server reads the rest of the body and ends the connection with FIN, not a reset', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const body = gzipSync(JSON.stringify({ name: 'y'.repeat(4 * 1024 * 1024) }));
    const head =
      `POST /api/lists HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n` +
      `Authorization: Bearer ${fam.admin.token}\r\nContent-Length: ${body.length}\r\n\r\n`;
    // A second request pipelined behind the first: it must not be answered on a closed
    // connection, and the client must see a clean end after the complete 413.
    const second = `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`;
    const outcome = await new Promise<{ text: string; error?: string; ms: number }>((resolve) => {
      const started = performance.now();
      const socket = net.connect(app.port, '127.0.0.1', () => {
        socket.write(head);
        socket.write(body);
        socket.write(second);
      });
      let text = '';
      socket.on('data', (d) => (text += d.toString('utf8')));
      socket.on('end', () => resolve({ text, ms: performance.now() - started }));
      socket.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ text, error: err.code, ms: performance.now() - started }),
      );
    });
    expect(outcome.error, 'no reset').to.equal(undefined);
    const [headers, payload] = outcome.text.split('\r\n\r\n');
    expect(headers!.split('\r\n')[0]).to.equal('HTTP/1.1 413 Payload Too Large');
    expect(headers).to.match(/\r\nconnection: close/i);
    expect(JSON.parse(payload!)).to.include({ code: 'payload_too_large' });
    expect(outcome.ms).to.be.below(4_000);
  });
});
