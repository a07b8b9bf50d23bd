// Client-chosen ids on every create, generated from the route table: every route whose body
// declares an `id` accepts it (201 with that id); re-sending it answers 200 with the record as
// stored and adds nothing; the same id sent by another family is 409 and changes neither family.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import type { RouteSpec } from '../../../server/http/route.js';
import { newId } from '../../../server/db/ids.js';
import { makeFixture, snapshot, type Fixture } from './fixture.js';
import { paramValue, routeKey, VALID_CALLS } from './calls.js';
import { jsonSchema } from './schema-cases.js';

const takesId = (route: RouteSpec) => !!route.body && 'id' in (jsonSchema(route.body).properties ?? {});

function pathFor(route: RouteSpec, fx: Fixture): string {
  return (
    '/api' +
    route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) =>
      encodeURIComponent(paramValue(route, name, fx, false)),
    )
  );
}

describe('client-chosen ids on every create (generated from the route table)', function () {
  this.timeout(180_000);
  let app: RunningServer;

  before(async () => {
    app = await testApp();
  });

  it('201 with the id, 200 with the same record when re-sent, 409 id_conflict from another family', async () => {
    const creates = app.api.routes.filter((r) => r.access !== 'public' && takesId(r));
    const failures: string[] = [];
    for (const route of creates) {
      const key = routeKey(route);
      const call = VALID_CALLS[key];
      if (!call?.body) {
        failures.push(`${key}: needs a valid body in test/integration/isolation/calls.ts`);
        continue;
      }
      const mine = await makeFixture(app);
      const theirs = await makeFixture(app);
      const id = newId();
      const body = { ...(call.body(mine) as object), id };
      const path = pathFor(route, mine);

      const first = await request(app, 'POST', path, { token: mine.admin.token, body });
      if (first.status !== 201 || first.body?.id !== id) {
        failures.push(`${key}: expected 201 with the chosen id, got ${first.status} ${first.text.slice(0, 200)}`);
        continue;
      }
      const stored = await snapshot(app, mine.family.familyId);
      const again = await request(app, 'POST', path, { token: mine.admin.token, body });
      if (again.status !== 200) failures.push(`${key}: re-send answered ${again.status}, expected 200`);
      else if (JSON.stringify(again.body) !== JSON.stringify(first.body))
        failures.push(`${key}: re-send answered a different record`);
      // Only the family version moves (every write takes one); no row changes.
      const strip = (s: string) => JSON.stringify({ ...JSON.parse(s), family_counters: null });
      if (strip(await snapshot(app, mine.family.familyId)) !== strip(stored))
        failures.push(`${key}: re-send changed data`);

      const before = {
        mine: await snapshot(app, mine.family.familyId),
        theirs: await snapshot(app, theirs.family.familyId),
      };
      const taken = await request(app, 'POST', pathFor(route, theirs), {
        token: theirs.admin.token,
        body: { ...(call.body(theirs) as object), id },
      });
      if (taken.status !== 409 || taken.body?.code !== 'id_conflict') {
        failures.push(
          `${key}: the id from another family answered ${taken.status} ${taken.text.slice(0, 200)}, expected 409 id_conflict`,
        );
      }
      if (taken.text.includes(mine.tag) || taken.text.includes(mine.family.familyId))
        failures.push(`${key}: the 409 reveals the other family's data`);
      if ((await snapshot(app, mine.family.familyId)) !== before.mine)
        failures.push(`${key}: the 409 changed the owner's data`);
      if ((await snapshot(app, theirs.family.familyId)) !== before.theirs)
        failures.push(`${key}: the 409 changed the caller's data`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(creates.map(routeKey)).to.include.members([
      'POST /stores',
      'POST /stores/:storeId/sections',
      'POST /lists',
      'POST /lists/:listId/items',
      'POST /recipes',
      'POST /recipes/:recipeId/ingredients',
      'POST /products',
      'POST /units',
    ]);
  });
});
