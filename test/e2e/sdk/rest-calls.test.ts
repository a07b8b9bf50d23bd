// `client.rest(method, path, body?)` against the real app (rest.ts, transport.ts): the JSON
// body of a success (undefined for 204), the server's problem+json as FamilyApiError, and no
// request at all without a session.
import { expect } from 'chai';
import { makeFamily } from '../../helpers/factories.js';
import type { FetchLike } from '@family-shopping/client';
import { apiError, fetchAs, loginSession, newClient, restAs, sdkSuite } from './helpers.js';

describe('e2e SDK: client.rest', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('creates, reads and deletes (204: undefined) with the session’s token; refusals are problem+json', async () => {
    const family = await makeFamily(sdk.app);
    const base = fetchAs();
    const sent: { method: string; url: string; headers: Record<string, string>; body?: unknown }[] = [];
    const fetch: FetchLike = (input, init) => {
      sent.push({
        method: init!.method!,
        url: input,
        headers: init!.headers as Record<string, string>,
        body: init!.body,
      });
      return base(input, init);
    };
    // a base URL with a trailing slash reaches the same paths
    const c = sdk.track(
      await newClient({ url: `${sdk.app.url}/` }, { fetch, session: await loginSession(sdk.app, family.admin) }),
    );
    const list = await c.rest<{ id: string; name: string }>('POST', '/api/lists', { name: 'Via rest' });
    expect(list.name).to.equal('Via rest');
    expect(sent.at(-1)).to.deep.include({
      method: 'POST',
      url: `${sdk.app.url}/api/lists`,
      body: '{"name":"Via rest"}',
    });
    expect(sent.at(-1)!.headers).to.include({
      'content-type': 'application/json',
      authorization: `Bearer ${c.auth.session!.accessToken}`,
    });
    const read = await c.rest('GET', `/api/lists/${list.id}`);
    expect(read).to.include({ id: list.id, name: 'Via rest' });
    expect(sent.at(-1)!.headers).to.not.have.property('content-type');
    expect(sent.at(-1)!.body).to.equal(undefined);

    expect(await c.rest('DELETE', `/api/lists/${list.id}`)).to.equal(undefined);
    const gone = await apiError(c.rest('GET', `/api/lists/${list.id}`));
    expect(gone.status).to.equal(404);
    expect(gone.code).to.not.match(/^http_/);
    const invalid = await apiError(c.rest('POST', '/api/lists', { name: '' }));
    expect(invalid.status).to.equal(400);
    expect(invalid.errors).to.be.an('array').that.is.not.empty;
    expect((await restAs(sdk.app, family.admin.token)('GET', '/api/lists')).map((l: any) => l.id)).to.not.include(
      list.id,
    );
  });

  it('without a session: 401 unauthenticated, and nothing is sent', async () => {
    let sent = 0;
    const base = fetchAs();
    const c = sdk.track(
      await newClient(sdk.app, {
        fetch: (input, init) => {
          sent++;
          return base(input, init);
        },
      }),
    );
    const err = await apiError(c.rest('GET', '/api/lists'));
    expect(err).to.include({ status: 401, code: 'unauthenticated' });
    expect(sent).to.equal(0);
  });
});
