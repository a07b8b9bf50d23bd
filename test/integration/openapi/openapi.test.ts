import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { request, startTestApp } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import { openApiPath } from '../../../server/openapi/document.js';
import { LIMITS, NAME_PATTERN } from '@family-shopping/client/protocol';

describe('OpenAPI document and API reference', () => {
  // An app of its own, whose document is built in the suite's `before`: so every test reads the
  // document built with the routes of this app (a mutation run sees each change in every test).
  let app: RunningServer;
  let built: any;
  before(async () => {
    app = await startTestApp();
    built = (await request(app, 'GET', '/api/openapi.json')).body;
  });
  after(async () => {
    await app?.close();
  });

  it('serves an OpenAPI 3.1 document that validates against the 3.1 schema', async () => {
    const res = await request(app, 'GET', '/api/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.body.openapi).to.match(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true);
    expect(validator.version).to.equal('3.1');

    // The 3.1 schema leaves schema objects open; check each one against JSON Schema 2020-12.
    const ajv = new Ajv2020({ strict: false });
    const schemas: [string, unknown][] = Object.entries(res.body.components.schemas);
    for (const [path, item] of Object.entries<any>(res.body.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const p of op.parameters ?? []) schemas.push([`${method} ${path} ${p.name}`, p.schema]);
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {}))
          schemas.push([`${method} ${path} body ${type}`, media.schema]);
        for (const [status, r] of Object.entries<any>(op.responses)) {
          for (const media of Object.values<any>(r.content ?? {}))
            schemas.push([`${method} ${path} ${status}`, media.schema]);
        }
      }
    }
    expect(schemas.length).to.be.greaterThan(50);
    for (const [where, schema] of schemas) {
      expect(ajv.validateSchema(schema as object), `${where}: ${ajv.errorsText()}`).to.equal(true);
    }
  });

  it('documents every route of the router, with security, parameters and problem responses', async () => {
    const doc = built;
    expect(app.api.routes.length).to.be.greaterThan(10);
    const operationIds = new Set<string>();
    for (const route of app.api.routes) {
      const label = `${route.method.toUpperCase()} ${route.path}`;
      const op = doc.paths[openApiPath(route.path)]?.[route.method];
      expect(op, `${label} is missing from the document`).to.be.an('object');
      expect(op.summary, label).to.equal(route.summary);
      expect(op.tags, label).to.deep.equal([route.tag]);
      expect(operationIds.has(op.operationId), `${label}: duplicate operationId`).to.equal(false);
      operationIds.add(op.operationId);
      expect(op.security, label).to.deep.equal(route.access === 'public' ? [] : [{ bearerAuth: [] }]);
      for (const m of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
        const param = op.parameters.find((p: any) => p.in === 'path' && p.name === m[1]);
        expect(param, `${label}: path param ${m[1]}`).to.include({ required: true });
      }
      for (const status of Object.keys(route.responses)) expect(op.responses, label).to.have.property(status);
      if (route.access !== 'public')
        expect(op.responses['401'].content, label).to.have.property('application/problem+json');
      if (route.access === 'admin') expect(op.responses, label).to.have.property('403');
      if (route.body) {
        expect(op.requestBody.content['application/json'].schema, label).to.be.an('object');
        expect(op.responses['400'].content['application/problem+json'].schema).to.deep.equal({
          $ref: '#/components/schemas/Problem',
        });
      }
    }
    expect(doc.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    // Every local $ref resolves.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs) expect(doc.components.schemas, ref).to.have.property(ref);
    expect(JSON.stringify(doc)).to.not.include('#/$defs/');
  });

  it('describes every response and files every operation under a described tag', async () => {
    const doc = built;
    const tags = new Map<string, string>(doc.tags.map((t: any) => [t.name, t.description]));
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        expect(op.tags, label).to.have.length(1);
        expect(op.tags[0], label).to.match(/^\S/);
        expect(tags.get(op.tags[0]), `${label}: tag ${op.tags[0]}`).to.match(/^\S/);
        // Complete sentences: none starts with a blank (a record's name left out).
        for (const [status, r] of Object.entries<any>(op.responses)) {
          expect(r.description, `${label} ${status}`).to.match(/^\S/);
        }
      }
    }
  });

  it('describes request and response schemas from the zod declarations', async () => {
    const doc = built;
    const search = doc.paths['/api/products'].get;
    const limit = search.parameters.find((p: any) => p.name === 'limit');
    expect(limit).to.deep.include({ in: 'query', required: false });
    expect(limit.schema).to.include({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    const create = doc.paths['/api/units'].post;
    expect(create.requestBody.required).to.equal(true);
    const ref = create.requestBody.content['application/json'].schema.$ref as string;
    expect(ref).to.equal('#/components/schemas/FamilyUnitInput');
    const body = doc.components.schemas[ref.split('/').pop()!];
    expect(body.required).to.include.members(['name', 'abbreviation', 'category']);
    expect(body.properties.category.enum).to.deep.equal(['Count', 'Weight', 'Volume']);
    const created = create.responses['201'].content['application/json'].schema;
    expect(created).to.deep.equal({ $ref: '#/components/schemas/Unit' });
    expect(doc.components.schemas.Unit.properties).to.include.keys('id', 'kind', 'code', 'abbreviation', 'category');
    expect(create.responses['409'].content).to.have.property('application/problem+json');
    expect(doc.paths['/api/products/{familyProductId}'].patch.requestBody.required).to.equal(false);
  });

  it('carries every rule a request is checked against (api-contract §13)', async () => {
    const doc = built;
    const S = doc.components.schemas;
    const prop = (schema: string, field: string) => {
      const p = S[schema].properties[field];
      return p.anyOf ? p.anyOf.find((b: any) => b.type !== 'null') : p;
    };
    // Names: 1..max code points and the name pattern; free texts: 0..max.
    expect(prop('ListInput', 'name')).to.include({ minLength: 1, maxLength: LIMITS.listName, pattern: NAME_PATTERN });
    expect(prop('ItemInput', 'name')).to.include({ minLength: 1, maxLength: LIMITS.itemName });
    expect(prop('FamilyUnitInput', 'abbreviation')).to.include({ minLength: 1, maxLength: LIMITS.abbreviation });
    expect(prop('ItemInput', 'quantityNote')).to.include({ maxLength: LIMITS.quantityNote });
    expect(prop('RecipeInput', 'instructions')).to.include({ maxLength: LIMITS.instructions });
    expect(prop('RegisterInput', 'userName')).to.include({ minLength: 1, maxLength: LIMITS.userName });
    expect(prop('RegisterInput', 'newFamilyName')).to.include({ minLength: 1, maxLength: LIMITS.familyName });
    expect(prop('ItemDoc', 'name')).to.include({ minLength: 1, maxLength: LIMITS.itemName });
    // Emails.
    for (const schema of ['RegisterInput', 'LoginInput', 'ForgotPasswordInput', 'InvitationInput'])
      expect(prop(schema, 'email'), schema).to.include({ type: 'string', format: 'email', maxLength: 254 });
    // The unit and product id pairs: never both set.
    const notBoth = (a: string, b: string) => ({
      not: { required: [a, b], properties: { [a]: { not: { type: 'null' } }, [b]: { not: { type: 'null' } } } },
    });
    for (const schema of ['ItemInput', 'ItemPatch', 'IngredientInput', 'IngredientPatch', 'ItemDoc']) {
      expect(S[schema].allOf, schema).to.deep.include(notBoth('unitOfMeasureId', 'familyUnitOfMeasureId'));
      expect(S[schema].allOf, schema).to.deep.include(notBoth('productId', 'familyProductId'));
    }
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const item = ajv.compile({ ...S.ItemInput, components: undefined });
    const id = '4f0c5a4e-0a43-4c8e-9a7e-2b0b1f1d6a11';
    expect(item({ name: 'Milk', unitOfMeasureId: id, familyUnitOfMeasureId: null })).to.equal(true);
    expect(item({ name: 'Milk', unitOfMeasureId: id, familyUnitOfMeasureId: id })).to.equal(false);
    expect(item({ name: 'x'.repeat(LIMITS.itemName + 1) })).to.equal(false);
    expect(item({ name: '\u{1F34E}'.repeat(LIMITS.itemName) }), 'lengths count code points').to.equal(true);
    // Replication: `schema` is required and an integer, `limit` an integer.
    for (const [path, method] of [
      ['/api/sync/{collection}/pull', 'get'],
      ['/api/sync/{collection}/push', 'post'],
    ] as const) {
      const schema = doc.paths[path][method].parameters.find((p: any) => p.name === 'schema');
      expect(schema, path).to.deep.include({ in: 'query', required: true, schema: { type: 'integer' } });
    }
    const limit = doc.paths['/api/sync/{collection}/pull'].get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).to.include({ type: 'integer', minimum: 1, maximum: 1000 });
    const collection = doc.paths['/api/sync/{collection}/pull'].get.parameters.find((p: any) => p.in === 'path');
    expect(collection.schema.enum).to.include.members(['lists', 'items', 'products', 'units']);
    // The API reference is an HTML page, its assets what they are.
    expect(doc.paths['/api/docs/{asset}'].get.responses['200'].content).to.include.keys('text/css', 'image/png');
    expect(doc.paths['/api/docs'].get.responses['200'].content).to.have.all.keys('text/html');
  });

  it('carries uniqueItems where the server refuses a repeat (api-contract §13)', async () => {
    const S = built.components.schemas;
    const array = (schema: string, field: string) => {
      const p = S[schema].properties[field];
      return p.anyOf ? p.anyOf.find((b: any) => b.type === 'array') : p;
    };
    for (const schema of ['FamilyProductInput', 'FamilyProductPatch', 'ProductOverrideInput'])
      expect(array(schema, 'unitCategoryFlags'), schema).to.include({ uniqueItems: true });
    expect(array('SectionOrderInput', 'sectionIds')).to.include({ uniqueItems: true });
    // The document refuses what the server refuses.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const product = ajv.compile({ ...S.FamilyProductInput, components: undefined });
    expect(product({ name: 'Oat drink', unitCategoryFlags: ['Volume'] })).to.equal(true);
    expect(product({ name: 'Oat drink', unitCategoryFlags: ['Volume', 'Volume'] })).to.equal(false);
  });

  it('serves a browsable API reference whose assets come from this server', async () => {
    const page = await request(app, 'GET', '/api/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).to.be.greaterThan(1);
    for (const url of urls) {
      expect(url, 'no external assets').to.not.match(/^(https?:)?\/\//);
      const resolved = new URL(url, app.url + '/api/docs');
      expect(resolved.origin).to.equal(new URL(app.url).origin);
      const asset = await fetch(resolved);
      expect(asset.status, url).to.equal(200);
      expect((await asset.arrayBuffer()).byteLength, url).to.be.greaterThan(0);
    }
    const bundle = await fetch(`${app.url}/api/docs/swagger-ui-bundle.js`);
    expect(bundle.headers.get('content-type')).to.match(/javascript/);
    const init = await (await fetch(`${app.url}/api/docs/init.js`)).text();
    expect(init).to.include("url: 'openapi.json'");
    expect(init).to.include('validatorUrl: null'); // no calls to an external validator
    // fetch resolves the dots to /package.json, an app path: the web app's page, never the file.
    const escaped = await request(app, 'GET', '/api/docs/../../package.json');
    expect(escaped.text).to.not.include('"name": "family-shopping"');
    expect(escaped.headers.get('content-type')).to.not.match(/json/);
    expect((await request(app, 'GET', '/api/docs/index.js')).status).to.equal(404);
    const slash = await fetch(`${app.url}/api/docs/`, { redirect: 'manual' });
    expect(slash.status).to.equal(302);
    expect(slash.headers.get('location')).to.equal('/api/docs');
  });
});
