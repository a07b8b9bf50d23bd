// HTTPS built in (contract §11): TLS_CERT_FILE and TLS_KEY_FILE make the server listen with TLS,
// HTTPS and WSS on PORT; invalid files stop the start with a message naming the variable. The
// certificates are made here with the openssl commands of docs/operations.md ("HTTPS"): a
// family's own CA, and a server certificate it signs.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { execFileSync, spawn } from 'node:child_process';
import { startTestApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.js';
import { TestSocket } from '../realtime/client.js';
import { ConfigError } from '../../../server/config.js';
import type { RunningServer } from '../../../server/server.js';

const openssl = (cwd: string, ...args: string[]) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });

/** The docs' steps: the family's CA, then the server's key and certificate signed by it. */
function makeCertificates(dir: string): void {
  // prettier-ignore
  openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-noenc', '-days', '3650',
    '-subj', '/CN=Family Shopping home CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout', 'ca.key', '-out', 'ca.crt');
  // prettier-ignore
  openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-noenc', '-days', '825',
    '-CA', 'ca.crt', '-CAkey', 'ca.key', '-subj', '/CN=family.lan',
    '-addext', 'subjectAltName=DNS:family.lan,DNS:localhost,IP:127.0.0.1',
    '-addext', 'basicConstraints=critical,CA:FALSE', '-addext', 'extendedKeyUsage=serverAuth',
    '-keyout', 'server.key', '-out', 'server.crt');
}

interface Answer {
  status: number;
  body: string;
}

/** An HTTPS request that trusts only `ca`. */
function send(
  method: string,
  url: string,
  ca: Buffer | undefined,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const json = body === undefined ? {} : { 'content-type': 'application/json' };
    const req = https.request(url, { method, ca, headers: { ...json, ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
const get = (url: string, ca: Buffer | undefined, headers: Record<string, string> = {}) =>
  send('GET', url, ca, headers);

describe('HTTPS built in (TLS_CERT_FILE, TLS_KEY_FILE)', function () {
  this.timeout(60_000);
  let dir: string;
  let ca: Buffer;
  let tlsEnv: Record<string, string>;

  before(function () {
    try {
      execFileSync('openssl', ['version'], { stdio: 'pipe' });
    } catch {
      this.skip(); // the steps of the docs need the openssl command
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-tls-'));
    makeCertificates(dir);
    ca = fs.readFileSync(path.join(dir, 'ca.crt'));
    tlsEnv = { TLS_CERT_FILE: path.join(dir, 'server.crt'), TLS_KEY_FILE: path.join(dir, 'server.key') };
    // A key of no certificate here, for the mismatch cases.
    openssl(dir, 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'other.key');
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('with a certificate of the family CA', () => {
    let app: RunningServer;
    let smtp: SmtpSink;
    before(async () => {
      smtp = await startSmtpSink();
      // APP_BASE_URL unset: links in emails start with the server's own (https) address.
      app = await startTestApp({ envOverrides: { ...tlsEnv, APP_BASE_URL: '', SMTP_URL: smtp.url } });
    });
    after(async () => {
      await app?.close();
      await smtp?.close();
    });

    it('listens with HTTPS on PORT and says so in its URL', async () => {
      expect(app.url).to.match(/^https:\/\/127\.0\.0\.1:[1-9]\d*$/);
      const local = app.url.replace('127.0.0.1', 'localhost');
      expect(await get(`${local}/healthz`, ca)).to.deep.equal({ status: 200, body: '{"status":"ok"}' });
      const f = await makeFamily(app);
      const me = await get(`${app.url}/api/me`, ca, { authorization: `Bearer ${f.admin.token}` });
      expect(me.status).to.equal(200);
      expect(JSON.parse(me.body).family.id).to.equal(f.familyId);
    });

    it('serves the certificate of TLS_CERT_FILE: a client that does not trust the CA refuses it', async () => {
      try {
        await get(`${app.url}/healthz`, undefined);
        expect.fail('an untrusted certificate was accepted');
      } catch (err) {
        expect((err as { code?: string }).code).to.equal('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      }
    });

    it('answers no plain HTTP on its port', async () => {
      const plain = await fetch(app.url.replace('https:', 'http:') + '/healthz').then(
        (r) => r.status,
        () => 'refused',
      );
      expect(plain).to.not.equal(200);
    });

    it('carries the live channel over WSS on the same port, authenticated by the first frame', async () => {
      const f = await makeFamily(app);
      const s = await TestSocket.connect(app, f.admin.token, { ca });
      try {
        expect(s.ws.url).to.match(/^wss:\/\//);
        expect(s.frames[0]).to.deep.equal({ type: 'Authenticated', familyId: f.familyId });
      } finally {
        s.close();
      }
    });

    it('puts its https address in the links of emails when APP_BASE_URL is unset', async () => {
      const f = await makeFamily(app);
      const asked = await send('POST', `${app.url}/api/auth/forgot-password`, ca, {}, { email: f.admin.email });
      expect(asked.status).to.equal(200);
      const mail = await smtp.waitFor(f.admin.email.toLowerCase());
      const link = /https?:\/\/[^\s"<>]+/.exec(mail.text)?.[0];
      expect(link).to.match(new RegExp(`^https://127\\.0\\.0\\.1:${app.port}/`));
    });
  });

  describe('invalid files stop the start with a message naming the variable', () => {
    const file = (name: string, text: string) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text);
      return p;
    };
    const refusal = async (env: Record<string, string>): Promise<ConfigError> => {
      try {
        const app = await startTestApp({ envOverrides: env });
        await app.close();
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return err as ConfigError;
      }
      throw new Error('the server started');
    };

    it('a missing, unreadable or non-PEM file, a key of another certificate, one variable alone', async () => {
      const cases: [string, Record<string, string>, string, RegExp][] = [
        ['missing cert', { ...tlsEnv, TLS_CERT_FILE: path.join(dir, 'nope.crt') }, 'TLS_CERT_FILE', /no such file/],
        ['missing key', { ...tlsEnv, TLS_KEY_FILE: path.join(dir, 'nope.key') }, 'TLS_KEY_FILE', /no such file/],
        ['a directory', { ...tlsEnv, TLS_KEY_FILE: dir }, 'TLS_KEY_FILE', /cannot be read/],
        ['cert not PEM', { ...tlsEnv, TLS_CERT_FILE: file('junk.crt', 'hello\n') }, 'TLS_CERT_FILE', /not a PEM/],
        ['key as cert', { ...tlsEnv, TLS_CERT_FILE: tlsEnv.TLS_KEY_FILE! }, 'TLS_CERT_FILE', /not a PEM certificate/],
        ['cert as key', { ...tlsEnv, TLS_KEY_FILE: tlsEnv.TLS_CERT_FILE! }, 'TLS_KEY_FILE', /not an unencrypted PEM/],
        ['other key', { ...tlsEnv, TLS_KEY_FILE: path.join(dir, 'other.key') }, 'TLS_KEY_FILE', /not the private key/],
        ['cert alone', { TLS_CERT_FILE: tlsEnv.TLS_CERT_FILE! }, 'TLS_KEY_FILE', /must be set with TLS_CERT_FILE/],
        ['key alone', { TLS_KEY_FILE: tlsEnv.TLS_KEY_FILE! }, 'TLS_CERT_FILE', /must be set with TLS_KEY_FILE/],
      ];
      for (const [name, env, variable, why] of cases) {
        const err = await refusal(env);
        expect(err.variables, name).to.deep.equal([variable]);
        expect(err.message, name).to.include(`${variable}:`).and.match(why);
      }
    });

    it('`npm start` prints the message and exits with 1', async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: {
          PATH: process.env.PATH ?? '',
          NODE_OPTIONS: process.env.NODE_OPTIONS ?? '',
          DATABASE_URL: 'pglite://memory',
          PORT: '0',
          ...tlsEnv,
          TLS_KEY_FILE: path.join(dir, 'other.key'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).to.equal(1);
      expect(stderr).to.match(/Invalid configuration:\n\s+TLS_KEY_FILE: .*not the private key/);
    });
  });
});
