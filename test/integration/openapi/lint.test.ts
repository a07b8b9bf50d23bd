// The OpenAPI document is precise enough for tools: the Redocly linter (its `recommended`
// rules) finds nothing, every record and input is a named component, the replication bodies are
// described, and every problem response shows an example of each stable code it can carry.
import { expect } from 'chai';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { request, startTestApp } from '../../helpers/app.js';
import type { RunningServer } from '../../../server/server.js';
import { openApiPath } from '../../../server/openapi/document.js';
import { ROUTE_NAMES } from '../../../server/openapi/names.js';
import { COLLECTIONS, PUSH_MAX_ROWS } from '@family-shopping/client/protocol';

const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

// An app of its own, whose document is built in the suite's `before`: so every test reads the
// document built with the routes of this app (a mutation run sees each change in every test).
let own: { app: RunningServer; doc: any; text: string } | undefined;
async function openApi() {
  if (!own) throw new Error('the suite has not started its app');
  return own;
}

const refName = (schema: { $ref?: string; items?: { $ref?: string } } | undefined) =>
  (schema?.$ref ?? schema?.items?.$ref)?.replace('#/components/schemas/', '');

describe('OpenAPI document: lint, names, bodies and problem examples', () => {
  before(async () => {
    const app = await startTestApp();
    const res = await request(app, 'GET', '/api/openapi.json');
    expect(res.status).to.equal(200);
    own = { app, doc: res.body, text: res.text };
  });
  after(async () => {
    await own?.app.close();
    own = undefined;
  });

  it('is clean under the Redocly linter (recommended rules): no error, no warning', async function () {
    this.timeout(60_000);
    const { text } = await openApi();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
    expect(listed).to.deep.equal([]);
  });

  it('has servers, a description for every tag, and the health routes', async () => {
    const { doc } = await openApi();
    expect(doc.servers).to.be.an('array').that.is.not.empty;
    for (const tag of doc.tags) expect(tag.description, tag.name).to.be.a('string').with.length.greaterThan(10);
    const used = new Set<string>();
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item)) for (const t of op.tags) used.add(t);
    expect(doc.tags.map((t: { name: string }) => t.name).sort()).to.deep.equal([...used].sort());
    for (const path of ['/healthz', '/readyz']) {
      const op = doc.paths[path].get;
      expect(op.security, path).to.deep.equal([]);
      expect(op.responses['200'].content['application/json'].schema.$ref, path).to.match(/^#\/components\/schemas\//);
    }
    expect(doc.paths['/readyz'].get.responses['503'].content['application/problem+json'].examples).to.have.property(
      'not_ready',
    );
  });

  it('names every request body and every record a success response carries', async () => {
    const { app, doc } = await openApi();
    for (const route of app.api.routes) {
      const label = `${route.method.toUpperCase()} ${route.path}`;
      const op = doc.paths[openApiPath(route.path)][route.method];
      const body = op.requestBody?.content['application/json'].schema;
      if (body) expect(body.$ref, `${label} body`).to.match(/^#\/components\/schemas\/\w+$/);
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const schema = r.content?.['application/json']?.schema;
        if (Number(status) >= 300 || !schema || route.path.startsWith('/docs')) continue;
        expect(refName(schema), `${label} ${status}`).to.be.a('string');
      }
    }
    // Every name of the table is a route that exists, and its names are components.
    const routes = new Set(app.api.routes.map((r) => `${r.method} ${r.path}`));
    for (const [key, names] of Object.entries(ROUTE_NAMES)) {
      expect(routes.has(key), `${key} is in ROUTE_NAMES but not a route`).to.equal(true);
      for (const name of [names.body, names.ok].filter(Boolean))
        expect(doc.components.schemas, `${key}: ${name}`).to.have.property(name!);
    }
    const schemas = doc.components.schemas;
    for (const name of [
      'List',
      'ListDetail',
      'Item',
      'Store',
      'Section',
      'Recipe',
      'Ingredient',
      'Product',
      'Unit',
      'Member',
      'Invitation',
      'Session',
      'Me',
      'Family',
    ]) {
      expect(schemas[name], name).to.include({ type: 'object' });
    }
    expect(schemas.ListDetail.properties.groups.items.properties.items.items.$ref).to.equal(
      '#/components/schemas/Item',
    );
    expect(
      Object.keys(schemas).filter((n) => /\d$/.test(n)),
      'no clashing names',
    ).to.deep.equal([]);
  });

  it('describes the replication pull and push bodies per collection', async () => {
    const { doc } = await openApi();
    const schemas = doc.components.schemas;
    const pull = doc.paths['/api/sync/{collection}/pull'].get;
    expect(refName(pull.responses['200'].content['application/json'].schema)).to.equal('PullResponse');
    expect(schemas.PullResponse.properties.documents.items.$ref).to.equal('#/components/schemas/Doc');
    expect(schemas.PullResponse.properties.checkpoint.anyOf[0].$ref).to.equal('#/components/schemas/Checkpoint');
    const docs = schemas.Doc.anyOf.map((s: { $ref: string }) => s.$ref.replace('#/components/schemas/', ''));
    expect(docs).to.have.length(COLLECTIONS.length);
    expect(docs).to.include.members(['ListDoc', 'ItemDoc', 'SectionMemoryDoc']);
    expect(schemas.ItemDoc.properties).to.include.keys('id', 'listId', 'name', '_deleted');

    const push = doc.paths['/api/sync/{collection}/push'].post;
    expect(refName(push.requestBody.content['application/json'].schema)).to.equal('PushRequest');
    expect(schemas.PushRequest).to.include({ type: 'array', maxItems: PUSH_MAX_ROWS });
    expect(schemas.PushRequest.items.$ref).to.equal('#/components/schemas/PushRow');
    expect(schemas.PushRow.required).to.deep.equal(['newDocumentState']);
    expect(refName(push.responses['200'].content['application/json'].schema)).to.equal('PushResponse');
    expect(schemas.PushResponse.properties.rejected.items.$ref).to.equal('#/components/schemas/RejectedRow');
  });

  it('shows an example of each stable code per error status, with the real codes', async () => {
    const { doc } = await openApi();
    const examplesOf = (path: string, method: string, status: number) => {
      const r = doc.paths[path][method].responses[String(status)];
      expect(r, `${method} ${path} ${status}`).to.be.an('object');
      return Object.keys(r.content['application/problem+json'].examples ?? {}).sort();
    };
    expect(examplesOf('/api/lists', 'post', 400)).to.deep.equal(['store_not_found', 'validation_failed']);
    expect(examplesOf('/api/lists', 'post', 401)).to.deep.equal(['unauthenticated']);
    expect(examplesOf('/api/lists', 'post', 409)).to.deep.equal(['id_conflict']);
    expect(examplesOf('/api/lists', 'post', 413)).to.deep.equal(['payload_too_large']);
    expect(examplesOf('/api/auth/login', 'post', 401)).to.deep.equal(['invalid_credentials']);
    expect(examplesOf('/api/auth/login', 'post', 429)).to.deep.equal(['rate_limited']);
    expect(examplesOf('/api/auth/invite/{token}', 'get', 404)).to.deep.equal(['invitation_invalid']);
    expect(examplesOf('/api/units', 'post', 409)).to.deep.equal(['abbreviation_taken', 'id_conflict']);
    expect(examplesOf('/api/sync/{collection}/pull', 'get', 410)).to.deep.equal(['checkpoint_expired']);
    expect(examplesOf('/api/sync/{collection}/pull', 'get', 426)).to.deep.equal(['schema_outdated']);
    expect(examplesOf('/api/family/invites', 'post', 403)).to.deep.equal(['forbidden']);
    expect(examplesOf('/api/lists/{listId}/items', 'post', 400)).to.include.members([
      'validation_failed',
      'unit_not_found',
      'product_not_found',
      'section_not_found',
    ]);
    expect(doc.paths['/api/auth/login'].post.responses['429'].headers).to.have.property('Retry-After');

    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!OPERATIONS.includes(method)) continue;
        const label = `${method.toUpperCase()} ${path}`;
        for (const [status, r] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue;
          const examples = r.content['application/problem+json'].examples;
          expect(Object.keys(examples), `${label} ${status}`).to.not.be.empty;
          for (const [code, example] of Object.entries<any>(examples)) {
            expect(example.value, `${label} ${status} ${code}`).to.include({ status: Number(status), code });
            expect(example.value.type, `${label} ${status} ${code}`).to.be.a('string');
            if (code === 'validation_failed') expect(status, label).to.equal('400');
          }
        }
        // Whatever needs the database can answer 503 with Retry-After while it is unreachable.
        if (path.startsWith('/api/') && op.tags[0] !== 'Docs') {
          expect(op.responses['503'], label).to.be.an('object');
          expect(Object.keys(op.responses['503'].content['application/problem+json'].examples), label).to.deep.equal([
            'service_unavailable',
          ]);
          expect(op.responses['503'].headers, label).to.have.property('Retry-After');
        }
      }
    }
  });
});
