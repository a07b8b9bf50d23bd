// The error middleware and the Postgres error mapping: real driver errors from the database the
// suite runs on (PGlite or PostgreSQL) reach a client as problem+json with a stable code, and no
// stack trace, SQL or driver text ever does.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { createLogger } from '../../../server/log.js';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { errorHandler, requestContext } from '../../../server/http/middleware.js';
import { newId } from '../../../server/db/ids.js';

/** A bare app whose only handler throws what `make` returns. */
async function throwing(make: () => Promise<unknown>, lines: string[] = []) {
  const app = new Koa();
  app.silent = true;
  app.use(requestContext(createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }))));
  app.use(errorHandler());
  app.use(async () => {
    throw await make();
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The error the database raises for `query`. */
async function dbError(query: () => Promise<unknown>): Promise<unknown> {
  try {
    await query();
  } catch (err) {
    return err;
  }
  throw new Error('the query succeeded');
}

/** SQL, driver messages, stack frames. */
const LEAKS = /insert into|select |violates|duplicate key|constraint "|postgres|pglite|\bat .*:\d+:\d+/i;

describe('errors: problem+json and the Postgres error mapping', () => {
  it('maps a named constraint to its stable code (duplicate email: 409 duplicate_email)', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const err = await dbError(() =>
      app.deps
        .db('users')
        .insert({ id: newId(), email: fam.admin.email, user_name: `u-${newId()}`, password_hash: 'x' }),
    );
    const s = await throwing(async () => err);
    try {
      const res = await request(s, 'GET', '/');
      expect(res.status).to.equal(409);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body).to.include({ status: 409, code: 'duplicate_email', title: 'Conflict' });
      expect(res.text).not.to.match(LEAKS);
    } finally {
      await s.close();
    }
  });

  it('maps unnamed classes by SQLSTATE: unique 409, foreign key 400, check 400, bad text 400, a NUL character 400', async () => {
    const app = await testApp();
    const db = app.deps.db;
    const fam = await makeFamily(app);
    const cases: [() => Promise<unknown>, number, string][] = [
      [() => db('families').insert({ id: fam.familyId, name: 'again', invite_code: `c-${newId()}` }), 409, 'conflict'],
      [
        () =>
          db('family_memberships').insert({ id: newId(), family_id: fam.familyId, user_id: newId(), role: 'member' }),
        400,
        'reference_invalid',
      ],
      [
        () =>
          db('family_memberships').insert({
            id: newId(),
            family_id: fam.familyId,
            user_id: fam.admin.userId,
            role: 'owner',
          }),
        400,
        'validation_failed',
      ],
      [() => db.raw('select ?::uuid', ['not-a-uuid']), 400, 'validation_failed'],
      [() => db.raw('select ?::text', ['nul \u0000 inside']), 400, 'validation_failed'],
    ];
    for (const [query, status, code] of cases) {
      const err = await dbError(query);
      const s = await throwing(async () => err);
      try {
        const res = await request(s, 'GET', '/');
        expect(res.status).to.equal(status);
        expect(res.body.code).to.equal(code);
        expect(res.text).not.to.match(LEAKS);
      } finally {
        await s.close();
      }
    }
  });

  it('turns anything unknown into a generic 500; the log gets the database message and code, never SQL or a stack', async () => {
    const app = await testApp();
    const err = await dbError(() => app.deps.db.raw('select * from no_such_table'));
    const lines: string[] = [];
    const s = await throwing(async () => err, lines);
    try {
      const res = await request(s, 'GET', '/', { headers: { 'x-request-id': 'boom-1' } });
      expect(res.status).to.equal(500);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body).to.include({ status: 500, code: 'internal_error' });
      expect(res.text).not.to.match(/no_such_table/);
      expect(res.text).not.to.match(LEAKS);
      const logged = lines.map((l) => JSON.parse(l) as { reqId?: string; msg: string; err?: { message: string } });
      const line = logged.find((l) => l.msg === 'unhandled error' && l.reqId === 'boom-1') as
        { err?: { message: string; code?: string; stack?: string } } | undefined;
      // The database's own words and code, never the SQL statement or a stack.
      expect(line?.err?.message).to.match(/no_such_table/);
      expect(line?.err?.code).to.equal('42P01');
      expect(line?.err).to.not.have.property('stack');
      const raw = lines.join('');
      expect(raw).not.to.match(/select \* from/i);
      expect(raw).not.to.match(/\bat .*\.(ts|js):\d+/);
    } finally {
      await s.close();
    }
  });
});
