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
import {
  foreignRef,
  NESTED_REFS,
  NON_ID_PARAM_VALUES,
  NON_ID_PARAMS,
  paramValue,
  READ_QUERIES,
  routeKey,
  setPath,
  VALID_CALLS,
} from './calls.js';
import { SCHEMA_VERSION } from '@family-shopping/client/protocol';
import { uuidFields } from './schema-cases.js';

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

  it("checks every body field that holds a record id (each is in the route's bodyRefs or in NESTED_REFS)", () => {
    const unchecked: string[] = [];
    let found = 0;
    for (const route of familyRoutes(app)) {
      if (!route.body) continue;
      const refs = new Set([...(route.bodyRefs ?? []), ...(NESTED_REFS[routeKey(route)] ?? [])]);
      for (const field of uuidFields(route.body)) {
        found++;
        if (!refs.has(field))
          unchecked.push(`${routeKey(route)}: body field ${field} holds an id but is not in bodyRefs`);
      }
    }
    expect(unchecked, unchecked.join('\n')).to.deep.equal([]);
    expect(found).to.be.greaterThan(10);
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
          res = await request(app, route.method.toUpperCase(), path, {
            token: b.admin.token,
            body: validBody(route, b),
          });
        } catch (err) {
          failures.push(`${routeKey(route)}: ${(err as Error).message}`);
          break;
        }
        checked++;
        const label = `${route.method.toUpperCase()} ${path} (${routeKey(route)})`;
        if (res.status !== 404 || res.body?.code !== 'not_found')
          failures.push(`${label}: expected 404 not_found, got ${describeResult(res)}`);
        if ((await snapshot(app, a.family.familyId)) !== before.a) failures.push(`${label}: changed family A's data`);
        if ((await familyVersion(app, b.family.familyId)) !== before.b)
          failures.push(`${label}: bumped the caller's version`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(0);
  });

  it("another family's ids in body references answer 400 and change nothing", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of familyRoutes(app)) {
      const refs = [...(route.bodyRefs ?? []), ...(NESTED_REFS[routeKey(route)] ?? [])];
      if (!refs.length) continue;
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
      for (const field of refs) {
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
    const needles = [...a.ids, a.tag, a.family.inviteCode];
    const reads = familyRoutes(app).filter((r) => r.method === 'get');
    for (const route of reads) {
      const names = pathParamNames(route.path);
      // One call per combination of non-id param values (e.g. every replication collection).
      let combos: Record<string, string>[] = [{}];
      for (const n of names) {
        if (NON_ID_PARAMS[n]) {
          const values = NON_ID_PARAM_VALUES[n];
          if (!values) {
            failures.push(`${routeKey(route)}: no values for :${n} in NON_ID_PARAM_VALUES`);
            combos = [];
            break;
          }
          combos = combos.flatMap((c) => values.map((v) => ({ ...c, [n]: v })));
        } else combos = combos.map((c) => ({ ...c, [n]: paramValue(route, n, b, false) }));
      }
      for (const values of combos) {
        const query = READ_QUERIES[routeKey(route)];
        const path = fillPath(route, values) + (query ? `?${query}` : '');
        const res = await request(app, 'GET', path, { token: b.admin.token });
        if (res.status !== 200) {
          failures.push(`GET ${path}: expected 200 for the caller's own data, got ${describeResult(res)}`);
          continue;
        }
        const leaked = needles.filter((n) => res.text.includes(n));
        if (leaked.length) failures.push(`GET ${path}: contains family A's ${leaked.join(', ')}`);
      }
    }
    // Searches by family A's names find none of A's records.
    for (const q of [a.familyProductName, 'Fixture']) {
      const res = await request(app, 'GET', `/api/products?q=${encodeURIComponent(q)}&limit=200`, {
        token: b.admin.token,
      });
      const leaked = needles.filter((n) => res.text.includes(n));
      if (leaked.length) failures.push(`product search "${q}": contains family A's ${leaked.join(', ')}`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(reads.length).to.be.greaterThan(0);
  });

  it("replication push of another family's records is refused, changes nothing and reveals nothing", async function () {
    const push = app.api.routes.find((r) => routeKey(r) === 'POST /sync/:collection/push');
    const pull = app.api.routes.find((r) => routeKey(r) === 'GET /sync/:collection/pull');
    expect(push, 'the replication push route').to.exist;
    expect(pull, 'the replication pull route').to.exist;
    const failures: string[] = [];
    const collections = NON_ID_PARAM_VALUES.collection!;
    for (const collection of collections) {
      // Family A's real docs of this collection, as A's own client sees them.
      const mine = await request(app, 'GET', `/api/sync/${collection}/pull?schema=${SCHEMA_VERSION}&limit=1000`, {
        token: a.admin.token,
      });
      if (mine.status !== 200) {
        failures.push(`pull ${collection} as A: ${describeResult(mine)}`);
        continue;
      }
      const docs = (mine.body.documents as Record<string, unknown>[]).filter((d) => a.ids.includes(String(d.id)));
      if (docs.length === 0) {
        failures.push(
          `pull ${collection} as A: none of the fixture's records (the fixture should own one of everything)`,
        );
        continue;
      }
      // The same docs with every value that names A's data replaced: B pushes them as
      // inserts, as edits (assumed state = A's doc) and as deletions.
      const scrub = (d: Record<string, unknown>) =>
        Object.fromEntries(
          Object.entries(d).map(([k, v]) => [k, typeof v === 'string' && v.includes(a.tag) ? `pushed by B ${k}` : v]),
        );
      type Row = { assumedMasterState?: Record<string, unknown>; newDocumentState: Record<string, unknown> };
      const rows: Row[] = docs.flatMap((d) => [
        { newDocumentState: scrub(d) },
        { assumedMasterState: scrub(d), newDocumentState: { ...scrub(d), name: 'changed by B' } },
        { assumedMasterState: scrub(d), newDocumentState: { ...scrub(d), _deleted: true } },
      ]);
      for (const row of rows) {
        const before = await snapshot(app, a.family.familyId);
        const res = await request(app, 'POST', `/api/sync/${collection}/push?schema=${SCHEMA_VERSION}`, {
          token: b.admin.token,
          body: [row],
        });
        const label = `push ${collection} ${row.assumedMasterState ? (row.newDocumentState._deleted ? 'delete' : 'edit') : 'insert'} of A's ${row.newDocumentState.id}`;
        if (res.status >= 500) failures.push(`${label}: ${describeResult(res)}`);
        if (
          res.status === 200 &&
          !(res.body.rejected as { id: string }[]).some((r) => r.id === row.newDocumentState.id)
        ) {
          // Global catalog rows (shared) are not A's; everything else must be refused.
          failures.push(`${label}: not listed in rejected: ${res.text.slice(0, 300)}`);
        }
        if (res.text.includes(a.tag) || res.text.includes(a.family.familyId))
          failures.push(`${label}: the answer reveals family A's data`);
        if ((await snapshot(app, a.family.familyId)) !== before) failures.push(`${label}: changed family A's data`);
      }
    }
    // B's own pulls still hold nothing of A's.
    for (const collection of collections) {
      const res = await request(app, 'GET', `/api/sync/${collection}/pull?schema=${SCHEMA_VERSION}&limit=1000`, {
        token: b.admin.token,
      });
      const leaked = [...a.ids, a.tag].filter((n) => res.text.includes(n));
      if (leaked.length) failures.push(`pull ${collection} as B after the pushes: contains ${leaked.join(', ')}`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });
});
