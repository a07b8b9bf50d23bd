// What the SDK makes of an answer that is not a success (api-contract §1: problem+json), of a
// request that got none, and of a server's Retry-After: the FamilyApiError an app catches.
import { expect } from 'chai';
import { FamilyApiError, FamilyClientError } from '@family-shopping/client';
import { networkError, problemFrom, retryAfterMs } from '../../../client-sdk/src/errors.js';

const problem = (status: number, body: unknown, init: { statusText?: string; headers?: Record<string, string> } = {}) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    statusText: init.statusText,
    headers: { 'content-type': 'application/problem+json', ...init.headers },
  });

describe('SDK: errors from answers', () => {
  it('a problem+json answer becomes a FamilyApiError with every field of the body', async () => {
    const errors = [{ path: 'body.name', message: 'Required' }];
    const err = await problemFrom(
      problem(
        422,
        {
          type: 'https://example.com/probs/validation',
          title: 'Unprocessable',
          code: 'validation_failed',
          detail: 'bad',
          errors,
        },
        { statusText: 'Unprocessable Entity' },
      ),
    );
    expect(err).to.be.instanceOf(FamilyApiError).and.instanceOf(Error);
    expect(err).to.include({
      name: 'FamilyApiError',
      status: 422,
      code: 'validation_failed',
      title: 'Unprocessable',
      detail: 'bad',
      type: 'https://example.com/probs/validation',
      message: '422 validation_failed: bad',
    });
    expect(err.errors).to.deep.equal(errors);
    expect(err.retryAfterMs).to.equal(undefined);
    expect(err.transient).to.equal(false);
  });

  it('an answer without a usable body keeps its status: http_<status>, the status text, no detail', async () => {
    for (const body of ['', '<html>Bad gateway</html>', 'null', '42', '"text"']) {
      const err = await problemFrom(problem(502, body, { statusText: 'Bad Gateway' }));
      expect(err, body).to.include({ status: 502, code: 'http_502', title: 'Bad Gateway', message: '502 http_502' });
      expect(err.detail, body).to.equal(undefined);
      expect(err.errors, body).to.equal(undefined);
      expect(err.type, body).to.equal(undefined);
    }
    // fields of the wrong kind are not taken
    const odd = await problemFrom(problem(400, { code: 7, title: ['x'], detail: {}, errors: 'no', type: 1 }));
    expect(odd).to.include({ code: 'http_400', detail: undefined, errors: undefined, type: undefined });
    expect(odd.title).to.be.a('string');
  });

  it('an answer without a status text (HTTP/2) is titled by its status', async () => {
    const err = await problemFrom(new Response('', { status: 502 }));
    expect(err).to.include({ status: 502, code: 'http_502', title: 'HTTP 502' });
    const titled = await problemFrom(problem(409, { code: 'conflict', title: 'Conflict here' }));
    expect(titled.title).to.equal('Conflict here');
  });

  it('a body that cannot be read keeps the status only', async () => {
    const res = new Response(
      new ReadableStream({
        start(c) {
          c.error(new Error('connection reset'));
        },
      }),
      { status: 503, statusText: 'Service Unavailable' },
    );
    const err = await problemFrom(res);
    expect(err).to.include({ status: 503, code: 'http_503', title: 'Service Unavailable' });
    expect(err.transient).to.equal(true);
  });

  it('Retry-After (seconds or an HTTP date) is kept in ms on the error', async () => {
    const err = await problemFrom(
      problem(429, { code: 'rate_limited', title: 'Too Many Requests' }, { headers: { 'retry-after': '7' } }),
    );
    expect(err.retryAfterMs).to.equal(7_000);
    expect(err.transient).to.equal(true);
    const now = Date.parse('2026-11-28T10:00:00Z');
    expect(retryAfterMs(' 12 ', now)).to.equal(12_000);
    expect(retryAfterMs('0', now)).to.equal(0);
    expect(retryAfterMs('Sat, 28 Nov 2026 10:00:30 GMT', now)).to.equal(30_000);
    // a date in the past: no wait; more than an hour: an hour
    expect(retryAfterMs('Sat, 28 Nov 2026 09:00:00 GMT', now)).to.equal(0);
    expect(retryAfterMs('86400', now)).to.equal(3_600_000);
    expect(retryAfterMs('3599', now)).to.equal(3_599_000);
    for (const none of [null, '', 'soon', '1.5', '-5', '12 s'])
      expect(retryAfterMs(none, now), String(none)).to.equal(undefined);
    // now defaults to this device's clock
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(retryAfterMs(inAMinute)).to.be.within(58_000, 60_000);
  });

  it('worth retrying: no answer, 429 and 5xx; not 4xx', () => {
    const transient = (status: number) => new FamilyApiError(status, 'c', 't').transient;
    expect([0, 429, 500, 503, 599].map(transient)).to.deep.equal([true, true, true, true, true]);
    expect([400, 401, 404, 409, 428, 430, 499].map(transient)).to.deep.equal([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('a request that got no answer is network_error, status 0, with its cause', () => {
    const cause = new TypeError('fetch failed');
    const err = networkError(cause);
    expect(err).to.include({ status: 0, code: 'network_error', title: 'Network error', detail: 'fetch failed' });
    expect(err.message).to.equal('0 network_error: fetch failed');
    expect(err.cause).to.equal(cause);
    expect(err.transient).to.equal(true);
    expect(networkError('aborted').detail).to.equal('aborted');
  });

  it('a FamilyClientError carries its code, message and refused fields', () => {
    const errors = [{ path: 'name', message: 'Required' }];
    const err = new FamilyClientError('validation_failed', 'name is required', { errors });
    expect(err).to.be.instanceOf(Error);
    expect(err).to.include({ name: 'FamilyClientError', code: 'validation_failed', message: 'name is required' });
    expect(err.errors).to.deep.equal(errors);
    expect(new FamilyClientError('stopped', 'x').errors).to.equal(undefined);
  });
});
