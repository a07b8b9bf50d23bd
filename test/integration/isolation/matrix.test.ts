// Tenant isolation, generated from the running app's route table (`app.api.routes`), so a new
// route cannot escape it: another family's ids in a path answer 404 and change nothing; another
// family's ids in a body reference (`bodyRefs`) answer 400 and change nothing; lists and
// searches never return another family's records.
import { expect } from 'chai';
import { testApp, request, type HttpResult } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import type { RouteSpec } from '../../../server/http/route.js';
import { pathParamNames } from '../../../server/openapi/document.js';
import { familyVersion, makeFixture, snapshot, type Fixture } from './fixture.js';
import { foreignRef, NON_ID_PARAMS, paramValue, routeKey, setPath, VALID_CALLS } from './calls.js';

const familyRoutes = (app: RunningServer) => app.api.routes.filter((r) => r.access !== 'public');

function fillPath(route: RouteSpec, values: Record<string, string>): string {
  return '/api' + route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(values[name]!));
}

function validBody(route: RouteSpec, fx: Fixture): unknown {
  if (!route.body) return undefined;
  const call = VALID_CALLS[routeKey(route)];
  if (!call?.body) {
    throw new Error(`${routeKey(route)} takes a body but has no valid body in test/integration/isolation/calls.ts`);
  }
  return call.body(fx);
}

const describeResult = (res: HttpResult) => `${res.status} ${res.text.slice(0, 300)}`;

describe('tenant isolation matrix (generated from the route table)', function () {
  this.timeout(180_000);
  let app: RunningServer;
  let a: Fixture;
  let b: Fixture;

  before(async () => {
    app = await testApp();
    a = await makeFixture(app);
    b = await makeFixture(app);
  });

  it('knows how to fill every path id param of every route', () => {
    const unknown: string[] = [];
    for (const route of app.api.routes) {
      for (const name of pathParamNames(route.path)) {
        if (NON_ID_PARAMS[name]) continue;
        try {
          paramValue(route, name, a, true);
        } catch (err) {
          unknown.push((err as Error).message);
        }
      }
    }
    expect(unknown, unknown.join('\n')).to.deep.equal([]);
  });

  it("another family's ids in a path answer 404 and change nothing", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of familyRoutes(app)) {
      const names = pathParamNames(route.path).filter((n) => !NON_ID_PARAMS[n]);
      if (names.length === 0) continue;
      const own = Object.fromEntries(names.map((n) => [n, paramValue(route, n, b, false)]));
      const foreign = Object.fromEntries(names.map((n) => [n, paramValue(route, n, a, true)]));
      // All ids from family A, and (for nested paths) each id from A with the rest B's own.
      const variants: Record<string, string>[] = [foreign];
      if (names.length > 1) for (const n of names) variants.push({ ...own, [n]: foreign[n]! });
      for (const values of variants) {
        const before = { a: await snapshot(app, a.family.familyId), b: await familyVersion(app, b.family.familyId) };
        const path = fillPath(route, values);
        let res: HttpResult;
        try {
          res = await request(app, route.method.toUpperCase(), path, { token: b.admin.token, body: validBody(route, b) });
        } catch (err) {
          failures.push(`${routeKey(route)}: ${(err as Error).message}`);
          break;
        }
        checked++;
        const label = `${route.method.toUpperCase()} ${path} (${routeKey(route)})`;
        if (res.status !== 404 || res.body?.code !== 'not_found') failures.push(`${label}: expected 404 not_found, got ${describeResult(res)}`);
        if ((await snapshot(app, a.family.familyId)) !== before.a) failures.push(`${label}: changed family A's data`);
        if ((await familyVersion(app, b.family.familyId)) !== before.b) failures.push(`${label}: bumped the caller's version`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(0);
  });

  it("another family's ids in body references answer 400 and change nothing", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of familyRoutes(app)) {
      if (!route.bodyRefs?.length) continue;
      const names = pathParamNames(route.path).filter((n) => !NON_ID_PARAMS[n]);
      let path: string;
      let base: Record<string, unknown>;
      try {
        path = fillPath(route, Object.fromEntries(names.map((n) => [n, paramValue(route, n, b, false)])));
        base = (validBody(route, b) ?? {}) as Record<string, unknown>;
      } catch (err) {
        failures.push((err as Error).message);
        continue;
      }
      for (const field of route.bodyRefs) {
        let body: Record<string, unknown>;
        try {
          body = setPath(base, field, foreignRef(field, a));
        } catch (err) {
          failures.push(`${routeKey(route)}: ${(err as Error).message}`);
          continue;
        }
        const before = { a: await snapshot(app, a.family.familyId), b: await snapshot(app, b.family.familyId) };
        const res = await request(app, route.method.toUpperCase(), path, { token: b.admin.token, body });
        checked++;
        const label = `${routeKey(route)} with ${field} of another family`;
        if (res.status !== 400) failures.push(`${label}: expected 400, got ${describeResult(res)}`);
        else if (!Array.isArray(foreignRef(field, a)) && !/_not_found$/.test(String(res.body?.code))) {
          failures.push(`${label}: expected a *_not_found code, got ${res.body?.code}`);
        }
        if ((await snapshot(app, a.family.familyId)) !== before.a) failures.push(`${label}: changed family A's data`);
        if ((await snapshot(app, b.family.familyId)) !== before.b) failures.push(`${label}: changed the caller's data`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(0);
  });

  it("lists and searches never return another family's records", async () => {
    const failures: string[] = [];
    const needles = [...a.ids, a.familyProductName, a.family.inviteCode];
    const reads = familyRoutes(app).filter((r) => r.method === 'get');
    for (const route of reads) {
      const names = pathParamNames(route.path).filter((n) => !NON_ID_PARAMS[n]);
      const path = fillPath(route, Object.fromEntries(names.map((n) => [n, paramValue(route, n, b, false)])));
      const res = await request(app, 'GET', path, { token: b.admin.token });
      if (res.status !== 200) {
        failures.push(`GET ${path}: expected 200 for the caller's own data, got ${describeResult(res)}`);
        continue;
      }
      const leaked = needles.filter((n) => res.text.includes(n));
      if (leaked.length) failures.push(`GET ${path}: contains family A's ${leaked.join(', ')}`);
    }
    // Searches by family A's names find none of A's records.
    for (const q of [a.familyProductName, 'Fixture']) {
      const res = await request(app, 'GET', `/api/products?q=${encodeURIComponent(q)}&limit=200`, { token: b.admin.token });
      const leaked = needles.filter((n) => res.text.includes(n));
      if (leaked.length) failures.push(`product search "${q}": contains family A's ${leaked.join(', ')}`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(reads.length).to.be.greaterThan(0);
  });
});
