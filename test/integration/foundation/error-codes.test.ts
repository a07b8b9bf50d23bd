import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ERROR_CODES, isErrorCode } from '../../../server/errors.js';
import { testApp, request } from '../../helpers/app.js';

const ROOT = join(import.meta.dirname, '../../..');

function serverSources(dir = join(ROOT, 'server')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? serverSources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Where a string literal is a code a client sees: the status beside it when the call has one. */
const CODE_SITES: RegExp[] = [
  /new AppError\(\s*(?<status>\d{3}),\s*'(?<code>[^']+)'/g,
  /\bproblem\(\s*(?<status>\d{3}),\s*'(?<code>[^']+)'/g,
  /rejectUpgrade\(\s*\w+,\s*(?<status>\d{3}),\s*'(?<code>[^']+)'/g,
  /\[(?<status>\d{3}),\s*'(?<code>[a-z_]+)',\s*'/g,
  /\bbadRequest\(\s*'(?<code>[^']+)'/g,
  /\bconflict\(\s*'(?<code>[^']+)'/g,
  /\bsendError\(\s*'(?<code>[^']+)'/g,
  /\breject\(\s*'(?<code>[^']+)'/g,
  /\bcode: '(?<code>[a-z]+_[a-z_]+)'/g,
];
const HELPER_STATUS: Record<string, number> = { badRequest: 400, conflict: 409 };

describe('Error code registry (server/errors.ts)', function () {
  this.timeout(120_000); // the first request starts the shared app, slow on a loaded machine

  it('holds every code the server sources answer with, at a registered status', () => {
    const found: { where: string; code: string; status?: number }[] = [];
    for (const file of serverSources()) {
      const text = readFileSync(file, 'utf8');
      for (const re of CODE_SITES) {
        for (const m of text.matchAll(re)) {
          const line = text.slice(0, m.index).split('\n').length;
          const helper = Object.keys(HELPER_STATUS).find((h) => m[0].startsWith(h));
          const status = m.groups!.status ? Number(m.groups!.status) : helper ? HELPER_STATUS[helper] : undefined;
          found.push({ where: `${relative(ROOT, file)}:${line}`, code: m.groups!.code, status });
        }
      }
    }
    // The scan sees the sites it is meant to (a regression in it would pass vacuously).
    expect(found.length).to.be.greaterThan(60);
    for (const { where, code, status } of found) {
      expect(isErrorCode(code), `${where}: '${code}' is not in ERROR_CODES`).to.equal(true);
      if (status !== undefined && isErrorCode(code)) {
        expect(ERROR_CODES[code] as readonly number[], `${where}: '${code}' with ${status}`).to.include(status);
      }
    }
  });

  it('names only registered codes in the OpenAPI document', async () => {
    const app = await testApp();
    const doc = (await request(app, 'GET', '/api/openapi.json')).body;
    const documented = new Set<string>();
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
          for (const media of Object.values<any>(r.content ?? {})) {
            for (const ex of Object.values<any>(media.examples ?? {})) {
              if (ex.value?.code) documented.add(`${ex.value.code} ${status}`);
            }
          }
        }
      }
    }
    expect(documented.size).to.be.greaterThan(10);
    for (const entry of documented) {
      const [code, status] = entry.split(' ');
      expect(isErrorCode(code), `OpenAPI names '${code}', which is not in ERROR_CODES`).to.equal(true);
      expect(ERROR_CODES[code as keyof typeof ERROR_CODES] as readonly number[], entry).to.include(Number(status));
    }
  });

  it('answers each refusal as problem+json: a type naming its code, the status title, no empty errors', async () => {
    const app = await testApp();
    const cases: Array<[string, string, unknown, number, string, string]> = [
      ['GET', '/api/lists', undefined, 401, 'unauthenticated', 'Unauthorized'],
      ['POST', '/api/auth/login', { email: 'nobody' }, 400, 'validation_failed', 'Bad Request'],
      ['GET', '/api/nowhere', undefined, 404, 'not_found', 'Not Found'],
    ];
    for (const [method, path, body, status, code, title] of cases) {
      const res = await request(app, method, path, { body });
      expect(res.status, path).to.equal(status);
      expect(res.headers.get('content-type'), path).to.match(/^application\/problem\+json/);
      expect(res.body, path).to.include({
        type: `https://family-shopping.dev/problems/${code.replace(/_/g, '-')}`,
        title,
        status,
        code,
      });
      expect(res.body.detail, path).to.be.a('string').and.not.equal('');
      if (code === 'validation_failed') expect(res.body.errors, path).to.be.an('array').that.is.not.empty;
      else expect(res.body, path).to.not.have.property('errors');
    }
  });
});
