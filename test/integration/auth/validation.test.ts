import { expect } from 'chai';
import type { z } from 'zod';
import type { RouteSpec } from '../../../server/http/route.js';
import { startAccountsApp, newFamily, register, uniq, type AccountsApp } from './harness.js';
import { familyDocument } from '../isolation/calls.js';

const TABLES = [
  'users',
  'families',
  'family_memberships',
  'family_counters',
  'invites',
  'password_reset_tokens',
  'refresh_tokens',
];
const huge = (n: number) => 'x'.repeat(n);
const hugeEmail = `${huge(250)}@example.test`;

describe('auth and family: bad input gets 400 naming the field (a malformed path value 404) and changes nothing', () => {
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
    for (const t of TABLES)
      parts.push(
        JSON.stringify(
          await a.app.deps
            .db(t)
            .select('*')
            .orderBy(t === 'family_counters' ? 'family_id' : 'id'),
        ),
      );
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
    [
      'register: email not an email',
      'POST',
      () => '/api/auth/register',
      () => reg({ email: 'not-an-email' }),
      'body.email',
    ],
    ['register: email a number', 'POST', () => '/api/auth/register', () => reg({ email: 42 }), 'body.email'],
    ['register: huge email', 'POST', () => '/api/auth/register', () => reg({ email: hugeEmail }), 'body.email'],
    [
      'register: missing userName',
      'POST',
      () => '/api/auth/register',
      () => reg({ userName: undefined }),
      'body.userName',
    ],
    ['register: blank userName', 'POST', () => '/api/auth/register', () => reg({ userName: '   ' }), 'body.userName'],
    [
      'register: huge userName',
      'POST',
      () => '/api/auth/register',
      () => reg({ userName: huge(101) }),
      'body.userName',
    ],
    ['register: short password', 'POST', () => '/api/auth/register', () => reg({ password: 'short' }), 'body.password'],
    [
      'register: huge password',
      'POST',
      () => '/api/auth/register',
      () => reg({ password: huge(1025) }),
      'body.password',
    ],
    [
      'register: password not a string',
      'POST',
      () => '/api/auth/register',
      () => reg({ password: ['a', 'b'] }),
      'body.password',
    ],
    [
      'register: huge newFamilyName',
      'POST',
      () => '/api/auth/register',
      () => reg({ newFamilyName: huge(101) }),
      'body.newFamilyName',
    ],
    [
      'register: huge familyCode',
      'POST',
      () => '/api/auth/register',
      () => reg({ newFamilyName: undefined, familyCode: huge(65) }),
      'body.familyCode',
    ],
    [
      'register: huge inviteToken',
      'POST',
      () => '/api/auth/register',
      () => reg({ newFamilyName: undefined, inviteToken: huge(513) }),
      'body.inviteToken',
    ],
    [
      'register: inviteToken a number',
      'POST',
      () => '/api/auth/register',
      () => reg({ newFamilyName: undefined, inviteToken: 7 }),
      'body.inviteToken',
    ],
    ['login: missing email', 'POST', () => '/api/auth/login', () => ({ password: 'x' }), 'body.email'],
    ['login: missing password', 'POST', () => '/api/auth/login', () => ({ email: admin.email }), 'body.password'],
    [
      'login: huge password',
      'POST',
      () => '/api/auth/login',
      () => ({ email: admin.email, password: huge(1025) }),
      'body.password',
    ],
    ['refresh: missing token', 'POST', () => '/api/auth/refresh', () => ({}), 'body.refreshToken'],
    ['refresh: token a number', 'POST', () => '/api/auth/refresh', () => ({ refreshToken: 1 }), 'body.refreshToken'],
    ['logout: huge token', 'POST', () => '/api/auth/logout', () => ({ refreshToken: huge(513) }), 'body.refreshToken'],
    ['invite lookup: huge token', 'GET', () => `/api/auth/invite/${huge(513)}`, undefined, 'params.token'],
    ['forgot: missing email', 'POST', () => '/api/auth/forgot-password', () => ({}), 'body.email'],
    ['forgot: huge email', 'POST', () => '/api/auth/forgot-password', () => ({ email: hugeEmail }), 'body.email'],
    [
      'reset: missing token',
      'POST',
      () => '/api/auth/reset-password',
      () => ({ newPassword: 'long enough pw' }),
      'body.token',
    ],
    ['reset: missing password', 'POST', () => '/api/auth/reset-password', () => ({ token: 'abc' }), 'body.newPassword'],
    [
      'reset: huge password',
      'POST',
      () => '/api/auth/reset-password',
      () => ({ token: 'abc', newPassword: huge(1025) }),
      'body.newPassword',
    ],
    [
      'role: bad user id',
      'PATCH',
      () => '/api/family/members/not-a-uuid',
      () => ({ role: 'admin' }),
      'params.userId',
      true,
    ],
    [
      'role: unknown role',
      'PATCH',
      () => `/api/family/members/${memberId}`,
      () => ({ role: 'owner' }),
      'body.role',
      true,
    ],
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
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      if (field.startsWith('params.')) {
        // A malformed path value names no record: 404, as an unknown one.
        expect(res.status, JSON.stringify(res.body)).to.equal(404);
        expect(res.body.code).to.equal(path().startsWith('/api/auth/invite/') ? 'invitation_invalid' : 'not_found');
      } else {
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.code).to.equal('validation_failed');
        expect(res.body.errors.map((e: any) => e.path)).to.include(field);
      }
      expect(await snapshot()).to.equal(before);
    });
  }

  // Generated from the app's route table: every route of accounts and families, each input field
  // missing (when required), of the wrong type, or huge. A new route without an entry in VALID
  // fails the first test, so no endpoint escapes.
  const AREA_TAGS = ['auth', 'family'];
  const HUGE = huge(20_000);
  const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method.toUpperCase()} ${r.path}`;
  /** A valid request per route; the generated cases break one field of it at a time. */
  const VALID: Record<
    string,
    { params?: () => Record<string, string>; body?: () => Record<string, unknown> } | 'no input'
  > = {
    'POST /auth/register': { body: () => reg({}) },
    'POST /auth/login': { body: () => ({ email: admin.email, password: 'long enough pw' }) },
    'POST /auth/refresh': { body: () => ({ refreshToken: 'r'.repeat(43) }) },
    'POST /auth/logout': { body: () => ({ refreshToken: 'r'.repeat(43) }) },
    'GET /auth/invite/:token': { params: () => ({ token: 'i'.repeat(43) }) },
    'POST /auth/forgot-password': { body: () => ({ email: admin.email }) },
    'POST /auth/reset-password': { body: () => ({ token: 't'.repeat(43), newPassword: 'long enough pw' }) },
    'GET /me': 'no input',
    'PATCH /me': { body: () => ({ userName: `v-${uniq()}` }) },
    'POST /me/password': { body: () => ({ currentPassword: 'wrong but well-formed', newPassword: 'long enough pw' }) },
    'POST /me/email-confirmation': 'no input',
    'POST /auth/confirm-email': { body: () => ({ token: 'c'.repeat(43) }) },
    'PATCH /family': { body: () => ({ name: `Renamed ${uniq()}` }) },
    'GET /family': 'no input',
    'POST /family/invite-code': 'no input',
    'GET /family/members': 'no input',
    'PATCH /family/members/:userId': { params: () => ({ userId: memberId }), body: () => ({ role: 'member' }) },
    'DELETE /family/members/:userId': { params: () => ({ userId: memberId }) },
    'GET /family/invites': 'no input',
    'POST /family/invites': { body: () => ({ email: `v-${uniq()}@example.test` }) },
    'POST /family/invites/:id/resend': { params: () => ({ id: '00000000-0000-4000-8000-000000000000' }) },
    'DELETE /family/invites/:id': { params: () => ({ id: '00000000-0000-4000-8000-000000000000' }) },
    'GET /family/export': 'no input',
    'POST /family/import': { body: () => familyDocument() },
  };
  const areaRoutes = () => a.app.api.routes.filter((r) => AREA_TAGS.includes(r.tag));

  it('knows a valid request for every route of accounts and families (route table)', () => {
    const routes = areaRoutes();
    expect(routes.length).to.equal(Object.keys(VALID).length);
    for (const r of routes) {
      const valid = VALID[routeKey(r)];
      expect(valid, `${routeKey(r)}: add a valid request to VALID`).to.not.equal(undefined);
      expect(valid === 'no input', `${routeKey(r)} takes ${r.body || r.params ? 'input' : 'no input'}`).to.equal(
        !r.body && !r.params,
      );
    }
  });

  it('answers 400 naming the field (404 for a malformed path value), changing nothing, for every field of every route: missing, wrong type, huge', async function () {
    this.timeout(120_000);
    const failures: string[] = [];
    let checked = 0;
    for (const route of areaRoutes()) {
      const valid = VALID[routeKey(route)];
      if (!valid || valid === 'no input') continue;
      type Variant = { label: string; params: Record<string, string>; body?: unknown; field: string };
      const variants: Variant[] = [];
      const baseParams = valid.params?.() ?? {};
      for (const name of Object.keys(baseParams)) {
        variants.push({
          label: `huge :${name}`,
          params: { ...baseParams, [name]: huge(2000) },
          body: valid.body?.(),
          field: `params.${name}`,
        });
      }
      const shape = (route.body as z.ZodObject | undefined)?.shape ?? {};
      for (const [field, schema] of Object.entries(shape)) {
        const body = () => valid.body!();
        const required = !(schema as z.ZodType).safeParse(undefined).success;
        if (required) {
          const missing = body();
          delete missing[field];
          variants.push({ label: `missing ${field}`, params: baseParams, body: missing, field: `body.${field}` });
        }
        variants.push({
          label: `${field} a number`,
          params: baseParams,
          body: { ...body(), [field]: 12345 },
          field: `body.${field}`,
        });
        variants.push({
          label: `${field} an object`,
          params: baseParams,
          body: { ...body(), [field]: { $gt: '' } },
          field: `body.${field}`,
        });
        variants.push({
          label: `huge ${field}`,
          params: baseParams,
          body: { ...body(), [field]: HUGE },
          field: `body.${field}`,
        });
      }
      if (route.body) variants.push({ label: 'array body', params: baseParams, body: [valid.body!()], field: 'body' });

      for (const v of variants) {
        const path =
          '/api' + route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, n: string) => encodeURIComponent(v.params[n]!));
        const before = await snapshot();
        const res = await a.req(route.method.toUpperCase(), path, {
          token: route.access === 'public' ? undefined : admin.token,
          body: v.body,
        });
        checked++;
        const label = `${routeKey(route)} with ${v.label}`;
        if (v.field.startsWith('params.')) {
          const code = route.notFound ? route.notFound().code : 'not_found';
          if (res.status !== 404 || res.body?.code !== code)
            failures.push(`${label}: expected 404 ${code}, got ${res.status} ${res.text.slice(0, 200)}`);
        } else if (res.status !== 400 || res.body?.code !== 'validation_failed') {
          failures.push(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
        } else if (!res.headers.get('content-type')?.startsWith('application/problem+json')) {
          failures.push(`${label}: not problem+json`);
        } else if (!res.body.errors?.some((e: { path: string }) => e.path === v.field)) {
          failures.push(`${label}: errors do not name ${v.field}: ${JSON.stringify(res.body.errors)}`);
        }
        if ((await snapshot()) !== before) failures.push(`${label}: changed the database`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(50);
  });

  it('rejects a JSON array body with 400', async () => {
    const res = await a.req('POST', '/api/auth/login', { body: [1, 2] });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('validation_failed');
  });
});
