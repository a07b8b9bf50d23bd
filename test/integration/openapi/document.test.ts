// What a REST client reads in the OpenAPI document: each refusal the contract names for a route,
// at its status, with an example a person can read; operation ids a code generator can turn into
// method names; a component per distinct schema even when two schemas ask for one name.
import { expect } from 'chai';
import { z } from 'zod';
import { request, startTestApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { buildOpenApiDocument } from '../../../server/openapi/document.js';
import { named } from '../../../server/openapi/responses.js';
import type { RouteSpec } from '../../../server/http/route.js';

// The refusals api-contract.md names route by route (its tables and the rules under them).
const CONTRACT: Array<[method: string, path: string, status: number, code: string]> = [
  ['post', '/api/auth/register', 400, 'validation_failed'],
  ['post', '/api/auth/register', 400, 'invitation_invalid'],
  ['post', '/api/auth/register', 400, 'family_code_invalid'],
  ['post', '/api/auth/register', 403, 'forbidden'],
  ['post', '/api/auth/register', 409, 'duplicate_user_name'],
  ['post', '/api/auth/register', 409, 'duplicate_email'],
  ['post', '/api/auth/register', 429, 'rate_limited'],
  ['post', '/api/auth/login', 401, 'invalid_credentials'],
  ['post', '/api/auth/login', 429, 'rate_limited'],
  ['post', '/api/auth/forgot-password', 429, 'rate_limited'],
  ['post', '/api/auth/reset-password', 400, 'reset_token_invalid'],
  ['post', '/api/auth/reset-password', 400, 'validation_failed'],
  ['post', '/api/auth/reset-password', 429, 'rate_limited'],
  ['get', '/api/auth/invite/{token}', 404, 'invitation_invalid'],
  ['post', '/api/auth/confirm-email', 400, 'confirmation_invalid'],
  ['post', '/api/me/password', 400, 'invalid_credentials'],
  ['patch', '/api/me', 409, 'duplicate_user_name'],
  ['patch', '/api/family/members/{userId}', 409, 'last_admin'],
  ['delete', '/api/family/members/{userId}', 409, 'last_admin'],
  ['post', '/api/family/invites', 409, 'already_member'],
  ['post', '/api/family/import', 409, 'family_not_empty'],
  ['post', '/api/stores', 409, 'duplicate_name'],
  ['post', '/api/stores', 409, 'id_conflict'],
  ['post', '/api/products', 409, 'duplicate_name'],
  ['post', '/api/products', 409, 'id_conflict'],
  ['post', '/api/units', 409, 'abbreviation_taken'],
  ['post', '/api/units', 409, 'id_conflict'],
  ['delete', '/api/units/{unitId}', 409, 'unit_in_use'],
  ['post', '/api/lists', 400, 'store_not_found'],
  ['patch', '/api/lists/{listId}', 400, 'store_not_found'],
  ['post', '/api/lists/{listId}/restore-items', 400, 'validation_failed'],
  ['post', '/api/recipes/{recipeId}/copy-to-list', 400, 'recipe_servings_unset'],
];

const examplesOf = (doc: any, method: string, path: string, status: number): Record<string, any> =>
  doc.paths[path]?.[method]?.responses[String(status)]?.content['application/problem+json'].examples ?? {};

describe('OpenAPI document: the refusals a client reads', () => {
  // An app of its own, whose document is built in the suite's `before` (a mutation run sees
  // each change of the document's code in every test).
  let app: RunningServer;
  let doc: any;
  before(async () => {
    app = await startTestApp();
    doc = (await request(app, 'GET', '/api/openapi.json')).body;
  });
  after(async () => {
    await app?.close();
  });

  it('shows, at its status, every refusal the contract names for a route', () => {
    const missing = CONTRACT.filter(([method, path, status, code]) => !(code in examplesOf(doc, method, path, status)));
    expect(missing).to.deep.equal([]);
  });

  it('shows each refusal a foreign reference in a body gets, as the server answers it', async () => {
    // Every reference field of a body, given an id the family does not hold, answers a code the
    // document lists for that route at 400.
    const foreign = '00000000-0000-4000-8000-000000000000';
    const { token } = (await makeFamily(app)).admin;
    const call = (method: string, path: string, body: unknown) =>
      request(app, method.toUpperCase(), path, { body, token });
    const list = (await call('post', '/api/lists', { name: 'Week' })).body;
    const store = (await call('post', '/api/stores', { name: 'Corner shop' })).body;
    const recipe = (await call('post', '/api/recipes', { name: 'Soup', servings: 2 })).body;
    const cases: Array<[string, string, string, unknown]> = [
      ['post', '/api/lists', '/api/lists', { name: 'Elsewhere', storeId: foreign }],
      ['patch', '/api/lists/{listId}', `/api/lists/${list.id}`, { storeId: foreign }],
      ['post', '/api/lists/{listId}/items', `/api/lists/${list.id}/items`, { name: 'Milk', sectionId: foreign }],
      ['post', '/api/lists/{listId}/items', `/api/lists/${list.id}/items`, { productId: foreign }],
      ['post', '/api/lists/{listId}/items', `/api/lists/${list.id}/items`, { familyProductId: foreign }],
      [
        'post',
        '/api/lists/{listId}/items',
        `/api/lists/${list.id}/items`,
        { name: 'Milk', familyUnitOfMeasureId: foreign },
      ],
      [
        'put',
        '/api/stores/{storeId}/sections/order',
        `/api/stores/${store.id}/sections/order`,
        { sectionIds: [foreign] },
      ],
      [
        'post',
        '/api/recipes/{recipeId}/ingredients',
        `/api/recipes/${recipe.id}/ingredients`,
        { name: 'Salt', familyUnitOfMeasureId: foreign },
      ],
      ['post', '/api/lists/{listId}/items', `/api/lists/${list.id}/items`, { name: 'Milk', unitOfMeasureId: foreign }],
      [
        'post',
        '/api/recipes/{recipeId}/copy-to-list',
        `/api/recipes/${recipe.id}/copy-to-list`,
        { listId: list.id, ingredientIds: [foreign] },
      ],
      ['post', '/api/recipes/{recipeId}/copy-to-list', `/api/recipes/${recipe.id}/copy-to-list`, { listId: foreign }],
    ];
    const answered = new Set<string>();
    for (const [method, documented, path, body] of cases) {
      const res = await call(method, path, body);
      const label = `${method.toUpperCase()} ${path} ${JSON.stringify(body)}`;
      expect(res.status, `${label}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(Object.keys(examplesOf(doc, method, documented, 400)), label).to.include(res.body.code);
      answered.add(res.body.code);
    }
    // (A reorder naming a section not of the store is `validation_failed`: not exactly its ids.)
    expect([...answered].sort()).to.deep.equal(
      ['ingredient', 'list', 'product', 'section', 'store', 'unit']
        .map((r) => `${r}_not_found`)
        .concat('validation_failed'),
    );
  });

  it('names each refusal in its description and shows an example a person can read', () => {
    let multiWord = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, r] of Object.entries<any>(op.responses)) {
          for (const [code, example] of Object.entries<any>(r.content?.['application/problem+json']?.examples ?? {})) {
            const label = `${method.toUpperCase()} ${path} ${status} ${code}`;
            // The response's description names each code it shows, as a word of its own.
            expect(r.description, label).to.match(/^\S/);
            const named = r.description.match(new RegExp(`(?<!\\w)${code}(?!\\w)`, 'g')) ?? [];
            expect(named, `${label}: named once`).to.have.length(1);
            expect(r.description, `${label}: codes run together`).to.not.include('``');
            // Only a refusal that may be retried later says when (`Retry-After`).
            if (status === '429' || status === '503') expect(r.headers, label).to.have.property('Retry-After');
            else expect(r, label).to.not.have.property('headers');
            const clauses = r.description.split(/;\s*|\s+\(/);
            expect(new Set(clauses).size, `${label}: says a clause twice`).to.equal(clauses.length);
            const detail: string = example.value.detail;
            // A sentence: a capital first, words apart, no code spelled as an identifier.
            expect(detail, label).to.match(/^[A-Z]/);
            expect(detail, label).to.not.include('_');
            // Only a validation refusal names its fields (api-contract §1: `errors[].path`).
            if (code === 'validation_failed') {
              expect(example.value.errors, label).to.be.an('array').that.is.not.empty;
              for (const e of example.value.errors) {
                expect(e.path, label).to.match(/^body\.\w/);
                expect(e.message, label).to.match(/^\S/);
              }
            } else expect(example.value, label).to.not.have.property('errors');
            if (code.includes('_')) {
              expect(detail.split(' ').length, label).to.be.greaterThan(1);
              multiWord++;
            }
          }
        }
      }
    }
    expect(multiWord).to.be.greaterThan(20);
    // A code without a sample detail of its own reads as its words (docs/api.md).
    expect(examplesOf(doc, 'post', '/api/stores', 409).duplicate_name.value.detail).to.equal('Duplicate name');
  });

  it('names each operation after its method and path, as a code generator would call it', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        ids.push(op.operationId);
        // The method, then every word of the path, each capitalised; a parameter as `By<Name>`.
        const words = path
          .split('/')
          .filter((s) => s && s !== 'api')
          .map((s) => (s.startsWith('{') ? `By${s.slice(1, -1)}` : s.replace(/[^A-Za-z0-9]/g, '')));
        let rest: string = op.operationId.toLowerCase();
        expect(rest.startsWith(method), `${method} ${path}: ${op.operationId}`).to.equal(true);
        rest = rest.slice(method.length);
        for (const w of words) {
          expect(rest.startsWith(w.toLowerCase()), `${method} ${path}: ${op.operationId}`).to.equal(true);
          rest = rest.slice(w.length);
        }
        expect(op.operationId, `${method} ${path}`).to.match(/^[a-z]+(?:[A-Z][A-Za-z0-9]*)+$/);
      }
    }
    expect(new Set(ids).size).to.equal(ids.length);
    expect(doc.paths['/api/lists/{listId}/items/{itemId}/toggle'].post.operationId).to.equal(
      'postListsByListIdItemsByItemIdToggle',
    );
    expect(doc.paths['/api/auth/forgot-password'].post.operationId).to.equal('postAuthForgotPassword');
  });

  it('says where a body refuses a field it does not know, and only there', async () => {
    // The import's `family` takes its name alone: the document closes that object in the
    // request, as the server refuses anything more; the same object in the export stays open.
    const ref = (schema: any) => doc.components.schemas[schema.$ref.split('/').pop()];
    const input = ref(doc.paths['/api/family/import'].post.requestBody.content['application/json'].schema);
    expect(input.properties.family.additionalProperties).to.equal(false);
    const output = ref(doc.paths['/api/family/export'].get.responses['200'].content['application/json'].schema);
    expect(output.properties.family).to.not.have.property('additionalProperties');

    const { token } = (await makeFamily(app)).admin;
    const exported = (await request(app, 'GET', '/api/family/export', { token })).body;
    const refused = await request(app, 'POST', '/api/family/import', {
      token,
      body: { ...exported, family: { ...exported.family, colour: 'green' } },
    });
    expect(refused.status).to.equal(400);
    expect((await request(app, 'POST', '/api/family/import', { token, body: exported })).status).to.equal(200);
  });

  it('documents 404 not_found on every route that names a record in its path', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!path.includes('{')) continue;
      for (const [method] of Object.entries<any>(item)) {
        const codes = Object.keys(examplesOf(doc, method, path, 404));
        expect(codes, `${method.toUpperCase()} ${path}`).to.have.length(1);
      }
    }
    expect(Object.keys(examplesOf(doc, 'get', '/api/lists/{listId}', 404))).to.deep.equal(['not_found']);
    // The probes outside /api refuse only what Node's HTTP parser does.
    expect(Object.keys(examplesOf(doc, 'get', '/healthz', 400))).to.deep.equal(['bad_request']);
  });

  it('describes parameters, and names every schema as a type', () => {
    const param = (path: string, method: string, name: string) =>
      doc.paths[path][method].parameters.find((p: any) => p.name === name);
    expect(param('/api/products', 'get', 'q').description).to.match(/^Case-insensitive/);
    // Required though the router lets it through absent (its handler answers 426).
    expect(param('/api/sync/{collection}/pull', 'get', 'schema')).to.include({ in: 'query', required: true });
    expect(param('/api/sync/{collection}/pull', 'get', 'schema').description).to.include('schema_outdated');
    expect(param('/api/sync/{collection}/pull', 'get', 'checkpoint')).to.include({ required: false });
    for (const name of Object.keys(doc.components.schemas)) expect(name).to.match(/^[A-Z][A-Za-z0-9]*$/);
  });
});

describe('OpenAPI document: schemas that ask for one name', () => {
  it('keeps two different schemas of one name apart, each route pointing at its own', () => {
    const route = (path: string, body: z.core.$ZodType, ok: z.core.$ZodType): RouteSpec => ({
      method: 'post',
      path,
      summary: `Post ${path}`,
      tag: 'Lists',
      access: 'member',
      body,
      responses: { 200: { description: 'Done', schema: ok } },
    });
    const a = named(z.object({ colour: z.string() }), 'Paint');
    const b = named(z.object({ litres: z.number() }), 'Paint');
    const c = named(z.object({ gloss: z.boolean() }), 'Paint');
    const d = named(z.object({ sheen: z.number() }), 'Paint');
    // One schema whose output differs from its input (a default): its input side is named apart.
    const withDefault = named(z.object({ shade: z.string().default('white') }), 'Shade');
    const built = buildOpenApiDocument([
      route('/walls', a, withDefault),
      route('/ceilings', withDefault, c),
      route('/doors', b, withDefault),
      route('/floors', withDefault, a),
      route('/roofs', withDefault, d),
    ]);
    const schemas = built.components.schemas as Record<string, any>;
    const bodyOf = (path: string) => {
      const ref: string = (built.paths[`/api${path}`]!.post as any).requestBody.content['application/json'].schema.$ref;
      return schemas[ref.split('/').pop()!];
    };
    const okName = (path: string): string =>
      (built.paths[`/api${path}`]!.post as any).responses['200'].content['application/json'].schema.$ref
        .split('/')
        .pop();
    const okOf = (path: string) => schemas[okName(path)];
    expect(Object.keys(bodyOf('/walls').properties)).to.deep.equal(['colour']);
    expect(Object.keys(bodyOf('/doors').properties)).to.deep.equal(['litres']);
    expect(Object.keys(okOf('/floors').properties)).to.deep.equal(['colour']);
    expect(Object.keys(okOf('/ceilings').properties)).to.deep.equal(['gloss']);
    expect(Object.keys(okOf('/roofs').properties)).to.deep.equal(['sheen']);
    // An answer is never named as an input.
    expect(okName('/ceilings')).to.match(/^Paint\d$/);
    // The default makes `shade` optional in a request and always present in an answer.
    expect(bodyOf('/floors').required ?? []).to.deep.equal([]);
    expect(okOf('/walls').required).to.deep.equal(['shade']);
    const paints = Object.keys(schemas).filter((n) => n.startsWith('Paint'));
    const shades = Object.keys(schemas).filter((n) => n.startsWith('Shade'));
    expect(paints).to.have.length(4);
    expect(shades).to.have.length(2);
    expect(shades).to.include('ShadeInput');
  });
});
