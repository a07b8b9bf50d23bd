import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { testApp, startTestApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { usingPostgres } from '../../helpers/env.js';

describe('cross-cutting HTTP', () => {
  it('answers /healthz and /readyz', async () => {
    const app = await testApp();
    const h = await request(app, 'GET', '/healthz');
    expect(h.status).to.equal(200);
    expect(h.body).to.deep.equal({ status: 'ok' });
    const r = await request(app, 'GET', '/readyz');
    expect(r.status).to.equal(200);
    expect(r.body.status).to.equal('ready');
  });

  it('answers an unknown route with 404 problem+json', async () => {
    const app = await testApp();
    const res = await request(app, 'GET', '/api/nope/nothing');
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ status: 404, code: 'not_found', title: 'Not Found' });
    expect(res.body.type).to.be.a('string');
    expect(res.body.detail).to.be.a('string');
  });

  it('sets a request id, echoing a sane incoming one', async () => {
    const app = await testApp();
    const a = await request(app, 'GET', '/healthz');
    expect(a.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const b = await request(app, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(b.headers.get('x-request-id')).to.equal('abc-123');
  });

  it('rejects malformed JSON with 400 problem+json', async () => {
    const app = await testApp();
    const res = await request(app, 'POST', '/api/lists', {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body.code).to.equal('invalid_json');
    expect(res.text).not.to.match(/at .*\.(ts|js):\d+/); // no stack trace
  });

  it('rejects a body over 1 MiB with 413', async () => {
    const app = await testApp();
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await request(app, 'POST', '/api/lists', {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(413);
    expect(res.body.code).to.equal('payload_too_large');
    expect(res.body.detail).to.include('1 MiB');
  });

  it('rejects a non-JSON body with 415', async () => {
    const app = await testApp();
    const res = await request(app, 'POST', '/api/lists', {
      rawBody: 'name=milk',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expect(res.body.code).to.equal('unsupported_media_type');
  });

  it('answers text holding the NUL character (which the database cannot store) with 400 naming the field, never a 500', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const t = fam.admin.token;
    const store = await request(app, 'POST', '/api/stores', { token: t, body: { name: 'Corner\u0000Shop' } });
    expect(store.status).to.equal(400);
    expect(store.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(store.body.code).to.equal('validation_failed');
    expect(store.body.errors).to.deep.include({
      path: 'body.name',
      message: 'must not contain the NUL character (U+0000)',
    });
    const list = await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Weekly' } });
    const item = await request(app, 'POST', `/api/lists/${list.body.id}/items`, {
      token: t,
      body: { name: 'Milk', quantityNote: 'a\u0000b' },
    });
    expect(item.status).to.equal(400);
    expect(item.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.quantityNote']);
    const search = await request(app, 'GET', '/api/products?q=%00', { token: t });
    expect(search.status).to.equal(400);
    expect(search.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['query.q']);
    const login = await request(app, 'POST', '/api/auth/login', {
      body: { email: fam.admin.email, password: 'pass\u0000word' },
    });
    expect(login.status).to.equal(400);
    expect(login.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['body.password']);
    expect((await app.deps.db('stores').where({ family_id: fam.familyId })).length).to.equal(0);
    // A path token is only ever hashed: one holding NUL is simply unknown.
    const invite = await request(app, 'GET', '/api/auth/invite/abc%00def');
    expect([invite.status, invite.body.code]).to.deep.equal([404, 'invitation_invalid']);
  });

  it('answers a body that does not decode with its Content-Encoding with 400 problem+json, never a 500', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await request(app, 'POST', '/api/lists', {
        token: fam.admin.token,
        rawBody: '{"name":"Weekly"}',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      expect(res.status, encoding).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body).to.include({ status: 400, code: 'invalid_body' });
    }
    const gzipped = await request(app, 'POST', '/api/lists', {
      token: fam.admin.token,
      rawBody: gzipSync('{"name":"Weekly"}'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(gzipped.status).to.equal(201);
    expect(gzipped.body.name).to.equal('Weekly');
  });

  it('answers a request the HTTP parser refuses (raw non-ASCII in the path, oversized headers) with problem+json', async () => {
    const app = await testApp();
    const raw = (head: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(app.port, '127.0.0.1', () => socket.end(head));
        let text = '';
        socket.on('data', (d) => (text += d.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    const cases: [Buffer, number, string][] = [
      [Buffer.from('GET /api/products?q=\u00e4pfel HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'), 400, 'bad_request'],
      [
        Buffer.from(`GET /api/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 'utf8'),
        431,
        'headers_too_large',
      ],
    ];
    for (const [head, status, code] of cases) {
      const text = await raw(head);
      const [headers, body] = text.split('\r\n\r\n');
      expect(headers.split('\r\n')[0]).to.equal(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`);
      expect(headers).to.match(/\r\ncontent-type: application\/problem\+json/i);
      expect(JSON.parse(body)).to.include({ status, code });
    }
  });

  it('answers /readyz with 503 problem+json when the database is unreachable, /healthz still 200', async () => {
    const app = await startTestApp(); // its own database, closed below
    try {
      await app.deps.db.destroy();
      const r = await request(app, 'GET', '/readyz');
      expect(r.status).to.equal(503);
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(r.body).to.include({ status: 503, code: 'not_ready' });
      expect((await request(app, 'GET', '/healthz')).status).to.equal(200);
    } finally {
      await app.close();
    }
  });

  it('logs every request with its id, and never a password, token or the JWT secret', async () => {
    const lines: string[] = [];
    const shared = await testApp();
    const app = await startTestApp({
      db: usingPostgres ? undefined : shared.deps.db,
      logger: pino({ level: 'trace' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) })),
    });
    try {
      const fam = await makeFamily(app);
      const password = 'a very secret password 42';
      const sent = performance.now(); // the app runs in this process: the same clock
      const login = await request(app, 'POST', '/api/auth/login', {
        body: { email: fam.admin.email, password },
        headers: { 'x-request-id': 'login-req-1' },
      });
      const took = performance.now() - sent;
      expect(login.status).to.equal(401);
      const ok = await request(app, 'POST', '/api/auth/login', {
        body: { email: fam.admin.email, password: fam.admin.password },
      });
      expect(ok.status).to.equal(200);
      expect((await request(app, 'GET', '/api/family', { token: fam.admin.token })).status).to.equal(200);
      expect((await request(app, 'GET', `/api/auth/invite/${ok.body.refreshToken}`)).status).to.be.within(400, 499);
      await request(app, 'POST', '/api/auth/login', {
        rawBody: `{"password": "${password}", `,
        headers: { 'content-type': 'application/json' },
      });

      const logs = lines.join('');
      const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
      expect(requests.length).to.be.greaterThan(4);
      const failed = requests.find((l) => l.reqId === 'login-req-1');
      // The route's template, never the raw path; how long it took, in milliseconds.
      expect(failed).to.include({ method: 'POST', status: 401, route: '/api/auth/login' });
      expect(failed!.ms)
        .to.be.a('number')
        .within(0, Math.ceil(took) + 1);
      expect(requests.find((l) => l.route === '/api/auth/invite/:token')).to.not.equal(undefined);
      await request(app, 'GET', '/api/nowhere', { headers: { 'x-request-id': 'nowhere-1' } });
      const unmatched = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'request' && l.reqId === 'nowhere-1');
      expect(unmatched).to.include({ method: 'GET', status: 404, route: '(unmatched)' });
      for (const secret of [
        password,
        fam.admin.password,
        fam.admin.token,
        ok.body.accessToken,
        ok.body.refreshToken,
        app.deps.jwtSecret,
      ]) {
        expect(logs.includes(secret), `a secret in the logs: ${secret.slice(0, 6)}…`).to.equal(false);
      }
    } finally {
      await app.close();
    }
  });
});
