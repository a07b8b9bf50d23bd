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

  it('a record created with any UUID a body accepts is reachable at its path (not only RFC 4122 versions)', async () => {
    const fx = await makeFixture(app);
    const token = fx.admin.token;
    // Version nibble 0 and variant nibble 0, as fixed test ids or other generators make them.
    const anyId = () => {
      const id = newId();
      return `${id.slice(0, 14)}0${id.slice(15, 19)}0${id.slice(20)}`;
    };
    const call = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: object) => {
      const r = await request(app, method, `/api${path}`, { token, body });
      return `${method} ${path.replace(/[0-9a-f-]{36}/g, ':id')} ${r.status}`;
    };
    const [list, item, store, section, recipe, ingredient, product, unit] = Array.from({ length: 8 }, anyId);
    const got = [
      await call('POST', '/stores', { id: store, name: `Odd ${fx.tag}` }),
      await call('GET', `/stores/${store}`),
      await call('POST', `/stores/${store}/sections`, { id: section, name: 'Odd aisle' }),
      await call('PATCH', `/stores/${store}/sections/${section}`, { name: 'Odd aisle 2' }),
      await call('POST', '/lists', { id: list, name: 'Odd list', storeId: store }),
      await call('GET', `/lists/${list}`),
      await call('GET', `/lists/${list}/suggestions`),
      await call('POST', `/lists/${list}/items`, { id: item, name: 'Odd item', sectionId: section }),
      await call('POST', `/lists/${list}/items/${item}/toggle`),
      await call('DELETE', `/lists/${list}/items/${item}`),
      await call('POST', `/lists/${list}/items/${item}/restore`),
      await call('POST', '/recipes', { id: recipe, name: 'Odd recipe' }),
      await call('POST', `/recipes/${recipe}/ingredients`, { id: ingredient, name: 'Odd ingredient' }),
      await call('PATCH', `/recipes/${recipe}/ingredients/${ingredient}`, { name: 'Odd ingredient 2' }),
      await call('GET', `/recipes/${recipe}`),
      await call('POST', '/products', { id: product, name: `Odd product ${fx.tag}` }),
      await call('PATCH', `/products/${product}`, { name: `Odd product 2 ${fx.tag}` }),
      await call('POST', '/units', { id: unit, name: 'Odd unit', abbreviation: `o${fx.tag}`, category: 'Count' }),
      await call('PATCH', `/units/${unit}`, { name: 'Odd unit 2' }),
      await call('DELETE', `/units/${unit}`),
      await call('DELETE', `/lists/${list}`),
    ];
    expect(got).to.deep.equal([
      'POST /stores 201',
      'GET /stores/:id 200',
      'POST /stores/:id/sections 201',
      'PATCH /stores/:id/sections/:id 200',
      'POST /lists 201',
      'GET /lists/:id 200',
      'GET /lists/:id/suggestions 200',
      'POST /lists/:id/items 201',
      'POST /lists/:id/items/:id/toggle 200',
      'DELETE /lists/:id/items/:id 200',
      'POST /lists/:id/items/:id/restore 200',
      'POST /recipes 201',
      'POST /recipes/:id/ingredients 201',
      'PATCH /recipes/:id/ingredients/:id 200',
      'GET /recipes/:id 200',
      'POST /products 201',
      'PATCH /products/:id 200',
      'POST /units 201',
      'PATCH /units/:id 200',
      'DELETE /units/:id 204',
      'DELETE /lists/:id 204',
    ]);
  });
});
