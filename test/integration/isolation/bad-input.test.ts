// Bad input to every endpoint, generated from the running app's route table and each route's own
// zod declarations: for every declared constraint of every path parameter, query parameter and
// body field (required, JSON type, uuid, enum, length, range, integer; nested objects and array
// items where the valid body has them) a request breaking it answers 400 problem+json
// `validation_failed` naming the field, and changes nothing. A new route or field is covered
// without touching this file.
import { expect } from 'chai';
import { testApp, startTestApp, request, type HttpResult } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import type { RouteSpec } from '../../../server/http/route.js';
import { pathParamNames } from '../../../server/openapi/document.js';
import { randomIp } from '../auth/harness.js';
import { makeFixture, snapshot, type Fixture } from './fixture.js';
import { NON_ID_PARAM_VALUES, paramValue, READ_QUERIES, routeKey, VALID_CALLS, NON_ID_PARAMS } from './calls.js';
import { badCases, jsonSchema, MISSING, withValue } from './schema-cases.js';

/** Global tables a public endpoint could write (registration, invitations, resets). */
const GLOBAL_TABLES = ['families', 'users', 'family_memberships', 'invites', 'password_reset_tokens', 'refresh_tokens'];

async function everything(app: RunningServer, fx: Fixture): Promise<string> {
  const counts: Record<string, unknown> = {};
  for (const t of GLOBAL_TABLES) counts[t] = (await app.deps.db(t).count('* as n').first())?.n;
  return JSON.stringify(counts) + (await snapshot(app, fx.family.familyId));
}

/** The caller's own value for each path param (a call that would otherwise succeed). */
function ownParams(route: RouteSpec, fx: Fixture): Record<string, string> {
  const call = VALID_CALLS[routeKey(route)];
  const values: Record<string, string> = {};
  for (const name of pathParamNames(route.path)) {
    if (NON_ID_PARAMS[name]) values[name] = call?.params?.[name] ?? NON_ID_PARAM_VALUES[name]?.[0] ?? 'value';
    else values[name] = paramValue(route, name, fx, false);
  }
  return values;
}

function ownQuery(route: RouteSpec): Record<string, string> {
  const q = VALID_CALLS[routeKey(route)]?.query ?? READ_QUERIES[routeKey(route)] ?? '';
  return Object.fromEntries(new URLSearchParams(q));
}

const fill = (route: RouteSpec, values: Record<string, string>) =>
  '/api' + route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(values[name]!));

const describeResult = (res: HttpResult) => `${res.status} ${res.text.slice(0, 300)}`;

interface Attempt {
  field: string;
  why: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  /** A malformed path value names no record: 404 with the route's not-found code. */
  notFound?: string;
}

/**
 * Input a route's declaration leaves open because its handler validates it (replication: the
 * query and the rows depend on the collection). Each entry changes the valid call; every query
 * field without a generated case, and every body the route takes without declaring it, needs one.
 */
const HANDLER_CASES: Record<
  string,
  Array<{ field: string; why: string; query?: Record<string, string>; body?: unknown }>
> = {
  'GET /sync/:collection/pull': [
    { field: 'query.limit', why: 'not a number', query: { limit: 'many' } },
    { field: 'query.limit', why: 'above 1000', query: { limit: '1001' } },
    { field: 'query.schema', why: 'not a version', query: { schema: 'v1' } },
    { field: 'query.checkpoint', why: 'not JSON', query: { checkpoint: '{' } },
  ],
  'POST /sync/:collection/push': [
    { field: 'query.schema', why: 'not a version', query: { schema: 'v1' } },
    { field: 'body', why: 'an object, not an array of rows', body: { newDocumentState: {} } },
    { field: 'body.0', why: 'a row that is not an object', body: [5] },
  ],
};

describe('bad input to every endpoint (generated from the route table)', function () {
  this.timeout(300_000);
  let shared: RunningServer;
  let app: RunningServer;
  let fx: Fixture;

  before(async () => {
    shared = await testApp();
    // Its own app with a client address per request, so the rate limits of the public auth
    // endpoints never answer 429 instead of 400.
    app = await startTestApp({ db: shared.deps.db, envOverrides: { TRUST_PROXY: 'true' } });
    fx = await makeFixture(shared);
  });
  after(async () => {
    await app?.close();
  });

  it('answers 400 validation_failed naming the field (404 for a malformed path value, which names no record), and changes nothing', async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of app.api.routes) {
      const key = routeKey(route);
      const params = ownParams(route, fx);
      const query = ownQuery(route);
      const call = VALID_CALLS[key];
      // A valid body where the route takes one, so each case breaks exactly one thing.
      const body = call?.body ? call.body(fx) : route.body ? {} : undefined;
      const attempts: Attempt[] = [];
      if (route.params) {
        for (const c of badCases(route.params, params, false)) {
          if (c.value === MISSING || !c.path) continue; // a path segment cannot be left out
          const notFound = route.notFound ? route.notFound().code : 'not_found';
          attempts.push({
            field: `params.${c.path}`,
            why: c.why,
            params: { ...params, [c.path]: String(c.value) },
            query,
            body,
            notFound,
          });
        }
      }
      if (route.query) {
        for (const c of badCases(route.query, query, false)) {
          if (!c.path) continue;
          const q = { ...query };
          if (c.value === MISSING) delete q[c.path];
          else q[c.path] = String(c.value);
          attempts.push({ field: `query.${c.path}`, why: c.why, params, query: q, body });
        }
      }
      if (route.body) {
        for (const c of badCases(route.body, body, true)) {
          attempts.push({
            field: c.path ? `body.${c.path}` : 'body',
            why: c.why,
            params,
            query,
            body: withValue(body, c.path, c.value),
          });
        }
      }
      for (const h of HANDLER_CASES[key] ?? []) {
        attempts.push({
          field: h.field,
          why: h.why,
          params,
          query: { ...query, ...h.query },
          body: 'body' in h ? h.body : body,
        });
      }
      // Every open query field, and a body taken without a declaration, must have a case.
      const open = [
        ...Object.keys(route.query ? (jsonSchema(route.query).properties ?? {}) : {}).map((n) => `query.${n}`),
        ...(!route.body && call?.body ? ['body'] : []),
      ].filter((f) => !attempts.some((a) => a.field === f || a.field.startsWith(`${f}.`)));
      for (const f of open)
        failures.push(`${key}: no bad-input case for ${f} (declare its constraints, or add it to HANDLER_CASES)`);
      for (const a of attempts) {
        const qs = new URLSearchParams(a.query).toString();
        const path = fill(route, a.params) + (qs ? `?${qs}` : '');
        const label = `${key}: ${a.field} ${a.why}`;
        const before = await everything(app, fx);
        const res = await request(app, route.method.toUpperCase(), path, {
          token: route.access === 'public' ? undefined : fx.admin.token,
          body: a.body,
          headers: { 'x-forwarded-for': randomIp() },
        });
        checked++;
        const paths: string[] = Array.isArray(res.body?.errors)
          ? res.body.errors.map((e: { path: string }) => e.path)
          : [];
        if (a.notFound) {
          if (res.status !== 404 || res.body?.code !== a.notFound)
            failures.push(`${label}: expected 404 ${a.notFound}, got ${describeResult(res)}`);
          else if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? ''))
            failures.push(`${label}: not problem+json`);
        } else if (res.status !== 400 || res.body?.code !== 'validation_failed')
          failures.push(`${label}: expected 400 validation_failed, got ${describeResult(res)}`);
        else if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? ''))
          failures.push(`${label}: not problem+json`);
        else if (!paths.some((p) => p === a.field || p.startsWith(`${a.field}.`)))
          failures.push(`${label}: errors name ${paths.join(', ')}, not ${a.field}`);
        if ((await everything(app, fx)) !== before) failures.push(`${label}: changed data`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(100);
  });
});
