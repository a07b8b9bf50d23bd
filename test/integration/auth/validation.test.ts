import { expect } from 'chai';
import { startAccountsApp, newFamily, register, uniq, type AccountsApp } from './harness.js';

const TABLES = ['users', 'families', 'family_memberships', 'family_counters', 'invites', 'password_reset_tokens', 'refresh_tokens'];
const huge = (n: number) => 'x'.repeat(n);
const hugeEmail = `${huge(250)}@example.test`;

describe('auth and family: bad input gets 400 naming the field and changes nothing', () => {
  let a: AccountsApp;
  let admin: Awaited<ReturnType<typeof newFamily>>;
  let memberId: string;
  before(async () => {
    a = await startAccountsApp();
    admin = await newFamily(a);
    const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
    memberId = (await register(a, { familyCode: code })).body.user.id;
  });
  after(async () => {
    await a?.close();
  });

  async function snapshot(): Promise<string> {
    const parts: string[] = [];
    for (const t of TABLES) parts.push(JSON.stringify(await a.app.deps.db(t).select('*').orderBy(t === 'family_counters' ? 'family_id' : 'id')));
    return parts.join('\n');
  }

  const reg = (over: Record<string, unknown>) => ({
    email: `v-${uniq()}@example.test`,
    userName: `v-${uniq()}`,
    password: 'long enough pw',
    newFamilyName: 'Valid',
    ...over,
  });

  type Case = [name: string, method: string, path: () => string, body: unknown, field: string, auth?: boolean];
  const cases: Case[] = [
    ['register: missing email', 'POST', () => '/api/auth/register', () => reg({ email: undefined }), 'body.email'],
    ['register: email not an email', 'POST', () => '/api/auth/register', () => reg({ email: 'not-an-email' }), 'body.email'],
    ['register: email a number', 'POST', () => '/api/auth/register', () => reg({ email: 42 }), 'body.email'],
    ['register: huge email', 'POST', () => '/api/auth/register', () => reg({ email: hugeEmail }), 'body.email'],
    ['register: missing userName', 'POST', () => '/api/auth/register', () => reg({ userName: undefined }), 'body.userName'],
    ['register: blank userName', 'POST', () => '/api/auth/register', () => reg({ userName: '   ' }), 'body.userName'],
    ['register: huge userName', 'POST', () => '/api/auth/register', () => reg({ userName: huge(101) }), 'body.userName'],
    ['register: short password', 'POST', () => '/api/auth/register', () => reg({ password: 'short' }), 'body.password'],
    ['register: huge password', 'POST', () => '/api/auth/register', () => reg({ password: huge(1025) }), 'body.password'],
    ['register: password not a string', 'POST', () => '/api/auth/register', () => reg({ password: ['a', 'b'] }), 'body.password'],
    ['register: huge newFamilyName', 'POST', () => '/api/auth/register', () => reg({ newFamilyName: huge(201) }), 'body.newFamilyName'],
    ['register: huge familyCode', 'POST', () => '/api/auth/register', () => reg({ newFamilyName: undefined, familyCode: huge(65) }), 'body.familyCode'],
    ['register: huge inviteToken', 'POST', () => '/api/auth/register', () => reg({ newFamilyName: undefined, inviteToken: huge(513) }), 'body.inviteToken'],
    ['register: inviteToken a number', 'POST', () => '/api/auth/register', () => reg({ newFamilyName: undefined, inviteToken: 7 }), 'body.inviteToken'],
    ['login: missing email', 'POST', () => '/api/auth/login', () => ({ password: 'x' }), 'body.email'],
    ['login: missing password', 'POST', () => '/api/auth/login', () => ({ email: admin.email }), 'body.password'],
    ['login: huge password', 'POST', () => '/api/auth/login', () => ({ email: admin.email, password: huge(1025) }), 'body.password'],
    ['refresh: missing token', 'POST', () => '/api/auth/refresh', () => ({}), 'body.refreshToken'],
    ['refresh: token a number', 'POST', () => '/api/auth/refresh', () => ({ refreshToken: 1 }), 'body.refreshToken'],
    ['logout: huge token', 'POST', () => '/api/auth/logout', () => ({ refreshToken: huge(513) }), 'body.refreshToken'],
    ['invite lookup: huge token', 'GET', () => `/api/auth/invite/${huge(513)}`, undefined, 'params.token'],
    ['forgot: missing email', 'POST', () => '/api/auth/forgot-password', () => ({}), 'body.email'],
    ['forgot: huge email', 'POST', () => '/api/auth/forgot-password', () => ({ email: hugeEmail }), 'body.email'],
    ['reset: missing token', 'POST', () => '/api/auth/reset-password', () => ({ newPassword: 'long enough pw' }), 'body.token'],
    ['reset: missing password', 'POST', () => '/api/auth/reset-password', () => ({ token: 'abc' }), 'body.newPassword'],
    ['reset: huge password', 'POST', () => '/api/auth/reset-password', () => ({ token: 'abc', newPassword: huge(1025) }), 'body.newPassword'],
    ['role: bad user id', 'PATCH', () => '/api/family/members/not-a-uuid', () => ({ role: 'admin' }), 'params.userId', true],
    ['role: unknown role', 'PATCH', () => `/api/family/members/${memberId}`, () => ({ role: 'owner' }), 'body.role', true],
    ['role: missing role', 'PATCH', () => `/api/family/members/${memberId}`, () => ({}), 'body.role', true],
    ['remove: bad user id', 'DELETE', () => '/api/family/members/123', undefined, 'params.userId', true],
    ['invite: missing email', 'POST', () => '/api/family/invites', () => ({}), 'body.email', true],
    ['invite: bad email', 'POST', () => '/api/family/invites', () => ({ email: 'nobody' }), 'body.email', true],
    ['invite: huge email', 'POST', () => '/api/family/invites', () => ({ email: hugeEmail }), 'body.email', true],
    ['resend: bad id', 'POST', () => '/api/family/invites/xyz/resend', undefined, 'params.id', true],
    ['revoke: bad id', 'DELETE', () => '/api/family/invites/xyz', undefined, 'params.id', true],
  ];

  for (const [name, method, path, body, field, auth] of cases) {
    it(name, async () => {
      const before = await snapshot();
      const res = await a.req(method, path(), {
        token: auth ? admin.token : undefined,
        body: typeof body === 'function' ? (body as () => unknown)() : body,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body.code).to.equal('validation_failed');
      expect(res.body.errors.map((e: any) => e.path)).to.include(field);
      expect(await snapshot()).to.equal(before);
    });
  }

  it('rejects a JSON array body with 400', async () => {
    const res = await a.req('POST', '/api/auth/login', { body: [1, 2] });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('validation_failed');
  });
});
