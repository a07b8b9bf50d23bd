// Every write of family data bumps the family's version exactly once (replication relies on
// it). Generated from the route table: every non-GET member/admin route needs a valid call in
// calls.ts, so a new write route cannot skip this test.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import { familyVersion, makeFixture } from './fixture.js';
import { makeFamily } from '../../helpers/factories.js';
import { NON_ID_PARAMS, paramValue, routeKey, VALID_CALLS } from './calls.js';

describe('family version bumps (generated from the route table)', function () {
  this.timeout(180_000);

  it('every member/admin write route bumps the family version exactly once per successful call', async () => {
    const app: RunningServer = await testApp();
    const writes = app.api.routes.filter((r) => r.method !== 'get' && r.access !== 'public');
    expect(writes.length).to.be.greaterThan(0);
    const failures: string[] = [];
    for (const route of writes) {
      const key = routeKey(route);
      const call = VALID_CALLS[key];
      if (!call) {
        failures.push(`${key}: no valid call in test/integration/isolation/calls.ts (add one)`);
        continue;
      }
      if (route.body && !call.body) {
        failures.push(`${key}: takes a body but its entry in calls.ts has none`);
        continue;
      }
      const fx = await makeFixture(app); // a fresh family per route: calls never interfere
      let path: string;
      try {
        path =
          '/api' +
          route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
            if (NON_ID_PARAMS[name]) {
              const v = call.params?.[name];
              if (!v) throw new Error(`${key}: path param :${name} needs a value in its calls.ts entry (params)`);
              return encodeURIComponent(v);
            }
            return encodeURIComponent(paramValue(route, name, fx, false));
          });
      } catch (err) {
        failures.push((err as Error).message);
        continue;
      }
      const caller = call.emptyFamily ? await makeFamily(app) : fx.family;
      const before = await familyVersion(app, caller.familyId);
      if (call.query) path += `?${call.query}`;
      const res = await request(app, route.method.toUpperCase(), path, {
        token: caller.admin.token,
        body: call.body?.(fx),
      });
      const after = await familyVersion(app, caller.familyId);
      if (res.status < 200 || res.status >= 300)
        failures.push(`${key}: expected success, got ${res.status} ${res.text.slice(0, 200)}`);
      else if (call.account) {
        if (after !== before)
          failures.push(`${key}: changes an account, not family data, yet the version went from ${before} to ${after}`);
      } else if (after !== before + 1) failures.push(`${key}: version went from ${before} to ${after}, expected +1`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('a rejected write leaves the version unchanged', async () => {
    const app = await testApp();
    const fx = await makeFixture(app);
    const before = await familyVersion(app, fx.family.familyId);
    const dup = await request(app, 'POST', '/api/products', {
      token: fx.admin.token,
      body: { name: fx.familyProductName },
    });
    expect(dup.status).to.equal(409);
    const inUse = await request(app, 'DELETE', `/api/units/${fx.familyUnitId}`, { token: fx.admin.token });
    expect(inUse.status).to.equal(409);
    expect(await familyVersion(app, fx.family.familyId)).to.equal(before);
  });
});
