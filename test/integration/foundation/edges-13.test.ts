// The edges of api-contract §13 over HTTP: names, rate limits after authentication, robots.txt,
// 405 before authentication, security headers, slow and aborting clients. Spoken over fetch,
// node:http and raw sockets as a client (or a misbehaving one) would.
import { expect } from 'chai';
import net from 'node:net';
import { request, startTestApp, testApp } from '../../helpers/app.js';
import { makeFamily, makeMember, registerViaApi } from '../../helpers/factories.js';
import { listDoc, push } from '../sync/helpers.js';
import type { RunningServer } from '../../../server/server.js';
import { captureLogs, type LogLine } from '../../helpers/logs.js';

/** Writes `chunks` to a raw connection, then reads until the server closes it. */
function rawExchange(url: string, chunks: string[], options: { destroyAfterWrite?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      for (const c of chunks) socket.write(c);
      if (options.destroyAfterWrite) {
        socket.destroy();
        resolve('');
      }
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

async function until<T>(what: string, fn: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('edges (contract §13)', function () {
  this.timeout(60_000);

  describe('names', () => {
    const BAD = ['\u200B', '   ', 'Milk\u202Egpj', 'The Smiths\r\nX-Injected: 1', 'Iso\u2066late', 'Non\uFFFE'];

    it('refuses names without a visible character or with control, bidi or noncharacter code points: 400, nothing stored', async () => {
      const app = await testApp();
      const fam = await makeFamily(app);
      const token = fam.admin.token;
      for (const name of BAD) {
        const list = await request(app, 'POST', '/api/lists', { token, body: { name } });
        expect(list.status, `list ${JSON.stringify(name)}`).to.equal(400);
        expect(list.body.code).to.equal('validation_failed');
        const store = await request(app, 'POST', '/api/stores', { token, body: { name } });
        expect(store.status, `store ${JSON.stringify(name)}`).to.equal(400);
        const unit = await request(app, 'POST', '/api/units', {
          token,
          body: { name: 'Gram', abbreviation: name, category: 'Weight' },
        });
        expect(unit.status, `unit abbreviation ${JSON.stringify(name)}`).to.equal(400);
        const family = await request(app, 'PATCH', '/api/family', { token, body: { name } });
        expect(family.status, `family ${JSON.stringify(name)}`).to.equal(400);
        expect(family.body.code).to.equal('validation_failed');
        const me = await request(app, 'PATCH', '/api/me', { token, body: { userName: name } });
        expect(me.status, `user name ${JSON.stringify(name)}`).to.equal(400);
      }
      expect((await request(app, 'GET', '/api/lists', { token })).body).to.deep.equal([]);
      expect((await request(app, 'GET', '/api/stores', { token })).body).to.deep.equal([]);
      expect((await request(app, 'GET', '/api/family', { token })).body.name).to.equal(fam.name);
      expect((await request(app, 'GET', '/api/me', { token })).body.user.userName).to.equal(fam.admin.userName);

      // Still trimmed, and names in any script, with emoji joiners, are fine.
      const ok = await request(app, 'POST', '/api/lists', { token, body: { name: '  👩‍👩‍👧 חלב  ' } });
      expect(ok.status).to.equal(201);
      expect(ok.body.name).to.equal('👩‍👩‍👧 חלב');
    });

    it('refuses such names in a push: the row is rejected validation_failed, the others commit', async () => {
      const app = await testApp();
      const fam = await makeFamily(app);
      const good = listDoc({ name: 'Weekly' });
      const bad = BAD.map((name) => listDoc({ name }));
      const res = await push(
        app,
        fam.admin.token,
        'lists',
        [good, ...bad].map((d) => ({ newDocumentState: d })),
      );
      expect(res.status).to.equal(200);
      expect(res.body.rejected.map((r) => [r.id, r.code])).to.deep.equal(bad.map((d) => [d.id, 'validation_failed']));
      const lists = await request(app, 'GET', '/api/lists', { token: fam.admin.token });
      expect(lists.body.map((l: { id: string }) => l.id)).to.deep.equal([good.id]);
    });

    it('refuses such a family name or user name at registration', async () => {
      const app = await startTestApp();
      try {
        const family = await registerViaApi(app, { newFamilyName: 'The\r\nSmiths' });
        expect(family.status).to.equal(400);
        expect(family.body.code).to.equal('validation_failed');
        const user = await registerViaApi(app, { newFamilyName: 'Smiths' }, { userName: '\u200B\u200B' });
        expect(user.status).to.equal(400);
      } finally {
        await app.close();
      }
    });
  });

  describe('rate limits after authentication', () => {
    let app: RunningServer;
    before(async () => {
      app = await startTestApp(); // counters of its own
    });
    after(() => app?.close());

    it('/api/me/email-confirmation: requests without a valid token answer 401 and count nothing; the limit is per user', async () => {
      const fam = await makeFamily(app);
      const other = await makeMember(app, fam);
      for (let i = 0; i < 8; i++) {
        const anon = await request(app, 'POST', '/api/me/email-confirmation');
        expect(anon.status, `anonymous ${i}`).to.equal(401);
        const forged = await request(app, 'POST', '/api/me/email-confirmation', { token: 'not.a.token' });
        expect(forged.status, `forged ${i}`).to.equal(401);
      }
      // The signed-in user still has the whole allowance (5 an hour).
      for (let i = 0; i < 5; i++) {
        const res = await request(app, 'POST', '/api/me/email-confirmation', { token: fam.admin.token });
        expect(res.status, `signed in ${i}`).to.equal(200);
      }
      const over = await request(app, 'POST', '/api/me/email-confirmation', { token: fam.admin.token });
      expect(over.status).to.equal(429);
      expect(over.body.code).to.equal('rate_limited');
      // Another user behind the same address is not held back.
      expect((await request(app, 'POST', '/api/me/email-confirmation', { token: other.token })).status).to.equal(200);
    });

    it('/api/me/password: anonymous requests never lock the user out', async () => {
      const fam = await makeFamily(app);
      for (let i = 0; i < 12; i++) {
        const anon = await request(app, 'POST', '/api/me/password', {
          body: { currentPassword: 'x', newPassword: 'whatever-new-1' },
        });
        expect(anon.status).to.equal(401);
      }
      const wrong = await request(app, 'POST', '/api/me/password', {
        token: fam.admin.token,
        body: { currentPassword: 'not my password', newPassword: 'whatever-new-1' },
      });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.code).to.equal('invalid_credentials');
    });
  });

  describe('robots.txt and methods', () => {
    it('/robots.txt answers text/plain and disallows everything', async () => {
      const app = await testApp();
      const res = await request(app, 'GET', '/robots.txt');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      expect(res.text).to.match(/^User-agent: \*\nDisallow: \/\n?$/);
    });

    it('PATCH /api/stores/{id}/sections/order answers 405 with Allow, signed in or not', async () => {
      const app = await testApp();
      const fam = await makeFamily(app);
      const store = await request(app, 'POST', '/api/stores', {
        token: fam.admin.token,
        body: { name: 'Corner shop' },
      });
      for (const token of [undefined, fam.admin.token]) {
        for (const id of [store.body.id as string, crypto.randomUUID()]) {
          const res = await request(app, 'PATCH', `/api/stores/${id}/sections/order`, {
            token,
            body: { sectionIds: [] },
          });
          expect(res.status, `token ${!!token}`).to.equal(405);
          expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
          expect(res.body.code).to.equal('method_not_allowed');
          expect(res.headers.get('allow')!.split(', ')).to.include.members(['PUT', 'OPTIONS']);
          expect(res.headers.get('allow')!.split(', ')).not.to.include('PATCH');
        }
      }
      // A section named by its id is still patched.
      const section = await request(app, 'POST', `/api/stores/${store.body.id}/sections`, {
        token: fam.admin.token,
        body: { name: 'Dairy' },
      });
      const renamed = await request(app, 'PATCH', `/api/stores/${store.body.id}/sections/${section.body.id}`, {
        token: fam.admin.token,
        body: { name: 'Cheese' },
      });
      expect(renamed.status).to.equal(200);
    });
  });

  describe('headers', () => {
    it("the app's pages carry a Content-Security-Policy without inline script, framing or foreign connections", async () => {
      const app = await testApp();
      for (const path of ['/', '/lists/abc', '/index.html']) {
        const res = await request(app, 'GET', path, { headers: { accept: 'text/html' } });
        expect(res.headers.get('content-type'), path).to.match(/^text\/html/);
        const csp = res.headers.get('content-security-policy');
        expect(csp, path).to.be.a('string');
        const directives = new Map(
          csp!.split(';').map((d) => {
            const [name, ...values] = d.trim().split(/\s+/);
            return [name!, values] as const;
          }),
        );
        expect(directives.get('frame-ancestors')).to.deep.equal(["'none'"]);
        const scripts = directives.get('script-src') ?? directives.get('default-src')!;
        expect(scripts).to.include("'self'");
        expect(scripts.join(' ')).not.to.match(/unsafe-inline|unsafe-eval|\*/);
        const host = new URL(app.url).host;
        expect(directives.get('connect-src')!.sort()).to.deep.equal(["'self'", `ws://${host}`].sort());
      }
    });

    it('/api/docs carries nosniff and DENY; authenticated /api JSON carries no-store', async () => {
      const app = await testApp();
      const docs = await request(app, 'GET', '/api/docs');
      expect(docs.status).to.equal(200);
      expect(docs.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(docs.headers.get('x-frame-options')).to.equal('DENY');
      const fam = await makeFamily(app);
      for (const path of ['/api/lists', '/api/me', '/api/family/members', `/api/lists/${crypto.randomUUID()}`]) {
        const res = await request(app, 'GET', path, { token: fam.admin.token });
        expect(res.headers.get('content-type'), path).to.match(/json/);
        expect(res.headers.get('cache-control'), path).to.equal('no-store');
      }
    });

    it('Strict-Transport-Security on HTTPS behind a trusted proxy, never on plain HTTP', async () => {
      const plain = await testApp();
      const forged = await request(plain, 'GET', '/healthz', { headers: { 'x-forwarded-proto': 'https' } });
      expect(forged.headers.get('strict-transport-security'), 'untrusted X-Forwarded-Proto').to.equal(null);
      const proxied = await startTestApp({ envOverrides: { TRUST_PROXY: 'true' } });
      try {
        for (const path of ['/healthz', '/api/lists', '/']) {
          const https = await request(proxied, 'GET', path, { headers: { 'x-forwarded-proto': 'https' } });
          expect(https.headers.get('strict-transport-security'), path).to.match(/^max-age=\d{7,}/);
          const http = await request(proxied, 'GET', path);
          expect(http.headers.get('strict-transport-security'), path).to.equal(null);
        }
        // The page's WebSocket origin follows the scheme it was served over.
        const page = await request(proxied, 'GET', '/', { headers: { 'x-forwarded-proto': 'https' } });
        expect(page.headers.get('content-security-policy')).to.contain(`wss://${new URL(proxied.url).host}`);
      } finally {
        await proxied.close();
      }
    });
  });

  describe('slow and aborting clients', () => {
    let app: RunningServer;
    let logs: LogLine[];
    before(async () => {
      const captured = captureLogs();
      logs = captured.lines;
      app = await startTestApp({
        logger: captured.logger,
        httpTimeouts: { headersMs: 300, requestMs: 600, checkIntervalMs: 50 },
      });
    });
    after(() => app?.close());

    it('a body that never finishes is answered 408 and the connection closed', async () => {
      const answer = await rawExchange(app.url, [
        'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
        '{"email":',
      ]);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head!.split('\r\n')[0]).to.equal('HTTP/1.1 408 Request Timeout');
      expect(head).to.match(/content-type: application\/problem\+json/i);
      expect(JSON.parse(body!)).to.include({ status: 408, code: 'request_timeout' });
    });

    it('headers that never finish are answered 408 and the connection closed', async () => {
      const answer = await rawExchange(app.url, ['GET /api/lists HTTP/1.1\r\nHost: x\r\nX-Slow: ']);
      expect(answer.split('\r\n')[0]).to.equal('HTTP/1.1 408 Request Timeout');
    });

    it('a client aborting its body is logged as an aborted request, not as a database outage', async () => {
      const before = logs.length;
      await rawExchange(
        app.url,
        [
          'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
          '{"email":"a@b.c"',
        ],
        { destroyAfterWrite: true },
      );
      await until('the aborted request in the log', () =>
        logs.slice(before).find((l) => /aborted/.test(l.msg)) ? true : undefined,
      );
      const after = logs.slice(before);
      expect(
        after.filter((l) => /database/i.test(l.msg)),
        'database lines',
      ).to.deep.equal([]);
      expect(after.filter((l) => l.status === 503 || l.level >= 50)).to.deep.equal([]);
      // The service is fine: /readyz and the next request answer as usual.
      expect((await request(app, 'GET', '/readyz')).status).to.equal(200);
    });
  });
});
