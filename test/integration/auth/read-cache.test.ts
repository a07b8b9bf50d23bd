// On the embedded database the membership check of a request and `GET /api/me` are answered from
// reads remembered until the next write (server/db/read-cache.ts). They must never answer stale:
// after a member is removed, a role changed, an account deleted, a session signed out or any
// write, the very next request sees it, exactly as when it asks the database. On PostgreSQL
// there is no such memory: every request asks the database, as before.
import { expect } from 'chai';
import { request, startTestApp } from '../../helpers/app.js';
import { DEFAULT_PASSWORD, makeFamily, makeMember, type TestUser } from '../../helpers/factories.js';
import { usingPostgres } from '../../helpers/env.js';
import { resolveActor } from '../../../server/http/auth.js';
import { signAccessToken } from '../../../server/auth/tokens.js';
import { newId } from '../../../server/db/ids.js';
import { mayWrite } from '../../../server/db/read-cache.js';
import { MEMBERSHIP_VERSION_SQL } from '../../../server/auth/queries.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

describe('reads remembered until the next write (embedded database only)', () => {
  let app: App;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app?.close();
  });

  const get = (path: string, token: string) => request(app, 'GET', `/api${path}`, { token });

  /** What the request's membership check answers, and what the database answers now. */
  async function judged(token: string) {
    const served = await resolveActor(app.deps, token);
    const database = await resolveActor({ ...app.deps, readCache: undefined }, token);
    return { served, database };
  }

  async function setup() {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const admin = family.admin.token;
    const store = await request(app, 'POST', '/api/stores', { token: admin, body: { name: 'Main' } });
    const list = await request(app, 'POST', '/api/lists', {
      token: admin,
      body: { name: 'Weekly', storeId: store.body.id },
    });
    expect(list.status).to.equal(201);
    await request(app, 'POST', `/api/lists/${list.body.id}/items`, { token: admin, body: { name: 'Apples' } });
    return { family, member, listId: list.body.id as string };
  }

  /** Reads a member makes, twice each, so that the second is answered from memory (PGlite). */
  async function warm(user: TestUser, listId: string) {
    for (let k = 0; k < 2; k++) {
      expect((await get(`/lists/${listId}`, user.token)).status).to.equal(200);
      expect((await get('/me', user.token)).status).to.equal(200);
      expect((await get('/lists', user.token)).status).to.equal(200);
    }
  }

  async function expectRefused(user: TestUser, listId: string) {
    for (const path of [`/lists/${listId}`, '/me', '/lists', '/family/members']) {
      const res = await get(path, user.token);
      expect(res.status, path).to.equal(401);
      expect(res.body.code, path).to.equal('unauthenticated');
    }
    const { served, database } = await judged(user.token);
    expect(served).to.equal(null);
    expect(database).to.equal(null);
  }

  it('is there on PGlite and answers from memory; on PostgreSQL every request asks the database', async () => {
    const { member, listId } = await setup();
    if (usingPostgres) {
      expect(app.deps.readCache).to.equal(undefined);
      expect(app.deps.statementFunctions).to.equal(undefined);
      await warm(member, listId);
      return;
    }
    const cache = app.deps.readCache!;
    expect(cache).to.not.equal(undefined);
    expect(app.deps.statementFunctions).to.equal(true);
    await warm(member, listId);
    const hits = cache.hits;
    const statements: string[] = [];
    const record = (q: { sql: string }) => statements.push(q.sql);
    app.deps.db.on('query', record);
    try {
      expect((await get(`/lists/${listId}`, member.token)).status).to.equal(200);
      expect((await get('/me', member.token)).status).to.equal(200);
    } finally {
      app.deps.db.off('query', record);
    }
    // The unchanged list from its copy and /api/me: no statement at all.
    expect(statements).to.deep.equal([]);
    expect(cache.hits).to.be.above(hits);
  });

  it('refuses a removed member at once, whatever was read before', async () => {
    const { family, member, listId } = await setup();
    await warm(member, listId);
    const removed = await request(app, 'DELETE', `/api/family/members/${member.userId}`, { token: family.admin.token });
    expect(removed.status).to.equal(204);
    await expectRefused(member, listId);
    expect((await get(`/lists/${listId}`, family.admin.token)).status).to.equal(200);
  });

  it('applies a role change at once, both ways', async () => {
    const { family, member, listId } = await setup();
    await warm(member, listId);
    expect((await get('/family/invites', member.token)).status).to.equal(403);
    const role = async (r: string) => {
      const res = await request(app, 'PATCH', `/api/family/members/${member.userId}`, {
        token: family.admin.token,
        body: { role: r },
      });
      expect(res.status).to.equal(200);
    };
    await role('admin');
    expect((await get('/family/invites', member.token)).status).to.equal(200);
    expect((await get('/me', member.token)).body.role).to.equal('admin');
    expect((await judged(member.token)).served?.role).to.equal('admin');
    await role('member');
    expect((await get('/family/invites', member.token)).status).to.equal(403);
    expect((await get('/me', member.token)).body.role).to.equal('member');
    const { served, database } = await judged(member.token);
    expect(served).to.deep.equal(database);
    expect(served?.role).to.equal('member');
  });

  it('refuses a deleted account at once, its membership gone with it (a write made outside the service)', async () => {
    const { member, listId } = await setup();
    await warm(member, listId);
    await app.deps.db('users').where({ id: member.userId }).del();
    await expectRefused(member, listId);
  });

  it('shows a write made straight to the database in the next /api/me', async () => {
    const { family, member, listId } = await setup();
    await warm(member, listId);
    await app.deps.db('families').where({ id: family.familyId }).update({ name: 'Renamed' });
    const userName = `renamed-${member.userId.slice(0, 8)}`;
    await app.deps.db('users').where({ id: member.userId }).update({ user_name: userName });
    const me = await get('/me', member.token);
    expect(me.body.family.name).to.equal('Renamed');
    expect(me.body.user.userName).to.equal(userName);
  });

  it('answers a request that arrives during a write transaction as the database does after it', async () => {
    const { member, listId } = await setup();
    await warm(member, listId);
    let during: Promise<{ status: number }> | undefined;
    await app.deps.db.transaction(async (trx) => {
      await trx('family_memberships').where({ user_id: member.userId }).del();
      // On PGlite the request waits for the one connection, held by this transaction.
      during = get(`/lists/${listId}`, member.token);
      await new Promise((r) => setTimeout(r, 200));
    });
    // PGlite: the request waited for the commit. PostgreSQL: it saw the snapshot of the moment
    // it ran (before the commit, or after if it came late), as it always did.
    if (usingPostgres) expect([200, 401]).to.include((await during!).status);
    else expect((await during!).status).to.equal(401);
    await expectRefused(member, listId);
  });

  it('is not fooled by a write that was rolled back', async () => {
    const { member, listId } = await setup();
    await warm(member, listId);
    const failed = await app.deps.db
      .transaction(async (trx) => {
        await trx('family_memberships').where({ user_id: member.userId }).del();
        throw new Error('roll back');
      })
      .then(
        () => null,
        (err: Error) => err,
      );
    expect(failed?.message).to.equal('roll back');
    await warm(member, listId);
    const { served, database } = await judged(member.token);
    expect(served).to.deep.equal(database);
    expect(served?.userId).to.equal(member.userId);
  });

  it('signs a session out as before: its refresh token is refused at once, the membership unchanged', async () => {
    const { family, listId } = await setup();
    const login = await request(app, 'POST', '/api/auth/login', {
      body: { email: family.admin.email, password: DEFAULT_PASSWORD },
    });
    expect(login.status).to.equal(200);
    const user: TestUser = { ...family.admin, token: login.body.accessToken };
    await warm(user, listId);
    const out = await request(app, 'POST', '/api/auth/logout', { body: { refreshToken: login.body.refreshToken } });
    expect(out.status).to.equal(204);
    const refresh = await request(app, 'POST', '/api/auth/refresh', {
      body: { refreshToken: login.body.refreshToken },
    });
    expect(refresh.status).to.equal(401);
    // The access token is judged by its membership alone, as the database judges it.
    const { served, database } = await judged(user.token);
    expect(served).to.deep.equal(database);
  });

  it('a removed member invited back does not revive the tokens of before', async () => {
    const { family, member, listId } = await setup();
    await warm(member, listId);
    await request(app, 'DELETE', `/api/family/members/${member.userId}`, { token: family.admin.token });
    await expectRefused(member, listId);
    // Back in the family (a new membership, begun after the old token was issued).
    await new Promise((r) => setTimeout(r, 1_100));
    await app.deps.db('family_memberships').insert({
      id: newId(),
      family_id: family.familyId,
      user_id: member.userId,
      role: 'member',
    });
    await expectRefused(member, listId);
    // A token issued to the new membership is served.
    const token = signAccessToken(
      app.deps.jwtKey,
      { userId: member.userId, familyId: family.familyId, role: 'member' },
      3600,
      app.deps.clock.now().getTime(),
    );
    expect((await get(`/lists/${listId}`, token)).status).to.equal(200);
  });
});

describe('which statements move the write generation', () => {
  it('counts reads as reads, and every statement that may write as a write', () => {
    for (const sql of [
      MEMBERSHIP_VERSION_SQL,
      'select "id" from "users" where "id" = ? limit ?',
      'SELECT role, created_at FROM family_memberships WHERE user_id = ? AND family_id = ? LIMIT 1',
      'WITH l AS (SELECT id, updated_at, deleted FROM shopping_lists) SELECT * FROM l',
    ])
      expect(mayWrite(sql), sql).to.equal(false);
    for (const sql of [
      'BEGIN;',
      'COMMIT;',
      'ROLLBACK',
      'SAVEPOINT trx1;',
      'insert into "users" ("id") values (?)',
      'update "families" set "name" = ?',
      'delete from "family_memberships" where "user_id" = ?',
      'WITH gone AS (DELETE FROM items RETURNING id) SELECT count(*) FROM gone',
      'select * from "refresh_tokens" where "token_hash" = ? limit ? for update',
      'SELECT pg_advisory_xact_lock(727001)',
      "SELECT set_config('fs.family_write', 'x', true)",
      'SELECT * INTO copy_of_users FROM users',
      'truncate users',
      'CREATE TABLE x (id int)',
      undefined,
    ])
      expect(mayWrite(sql), String(sql)).to.equal(true);
  });
});
