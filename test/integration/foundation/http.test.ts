import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';

describe('cross-cutting HTTP', () => {
  it('answers /healthz and /readyz', async () => {
    const app = await testApp();
    const h = await request(app, 'GET', '/healthz');
    expect(h.status).to.equal(200);
    expect(h.body).to.deep.equal({ status: 'ok' });
    const r = await request(app, 'GET', '/readyz');
    expect(r.status).to.equal(200);
    expect(r.body.status).to.equal('ready');
  });

  it('answers an unknown route with 404 problem+json', async () => {
    const app = await testApp();
    const res = await request(app, 'GET', '/api/nope/nothing');
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ status: 404, code: 'not_found', title: 'Not Found' });
    expect(res.body.type).to.be.a('string');
    expect(res.body.detail).to.be.a('string');
  });

  it('sets a request id, echoing a sane incoming one', async () => {
    const app = await testApp();
    const a = await request(app, 'GET', '/healthz');
    expect(a.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const b = await request(app, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(b.headers.get('x-request-id')).to.equal('abc-123');
  });

  it('rejects malformed JSON with 400 problem+json', async () => {
    const app = await testApp();
    const res = await request(app, 'POST', '/api/lists', {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body.code).to.equal('invalid_json');
    expect(res.text).not.to.match(/at .*\.(ts|js):\d+/); // no stack trace
  });

  it('rejects a body over 1 MiB with 413', async () => {
    const app = await testApp();
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await request(app, 'POST', '/api/lists', {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(413);
    expect(res.body.code).to.equal('payload_too_large');
  });

  it('rejects a non-JSON body with 415', async () => {
    const app = await testApp();
    const res = await request(app, 'POST', '/api/lists', {
      rawBody: 'name=milk',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expect(res.body.code).to.equal('unsupported_media_type');
  });
});
