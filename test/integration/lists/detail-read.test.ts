// GET /api/lists/{id} checks the membership (spec 5.2) in the statement of its read, and builds
// the detail again only when the family was written since the copy it holds
// (server/lists/detail-cache.ts). What a user sees must not change: a removed member is refused
// at once whatever was read before, and every write shows in the next read.
import { expect } from 'chai';
import { testApp, request, startTestApp } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { newId } from '../../../server/db/ids.js';
import { signAccessToken } from '../../../server/auth/tokens.js';
import { listDetailJson } from '../../../server/lists/queries.js';

type App = Awaited<ReturnType<typeof testApp>>;

async function setup(app: App) {
  const family = await makeFamily(app);
  const token = family.admin.token;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await request(app, method, `/api${path}`, { token, body });
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.below(300);
    return res.body;
  };
  const store = await api('POST', '/stores', { name: 'Main' });
  const section = await api('POST', `/stores/${store.id}/sections`, { name: 'Fruit' });
  const list = await api('POST', '/lists', { name: 'Weekly', storeId: store.id });
  const item = await api('POST', `/lists/${list.id}/items`, { name: 'Apples', sectionId: section.id });
  return { family, token, api, store, section, list, item };
}

describe('list detail: the membership check in the read, and copies of details', () => {
  let app: App;
  before(async () => {
    app = await testApp();
  });

  it('refuses a removed member at once (401), after reads of the same detail, whatever the path', async () => {
    const { family, list } = await setup(app);
    const member = await makeMember(app, family);
    const path = `/api/lists/${list.id}`;
    for (let k = 0; k < 2; k++) expect((await request(app, 'GET', path, { token: member.token })).status).to.equal(200);

    const removed = await request(app, 'DELETE', `/api/family/members/${member.userId}`, { token: family.admin.token });
    expect(removed.status).to.equal(204);
    for (const p of [path, `/api/lists/${newId()}`, '/api/lists/not-a-uuid']) {
      const res = await request(app, 'GET', p, { token: member.token });
      expect(res.status, p).to.equal(401);
      expect(res.body.code).to.equal('unauthenticated');
      expect(res.text).to.not.contain('Weekly');
    }
    expect((await request(app, 'GET', path, { token: family.admin.token })).status).to.equal(200);
  });

  it('refuses a token issued before the membership began, a tampered one, and none', async () => {
    const { family, list } = await setup(app);
    const path = `/api/lists/${list.id}`;
    expect((await request(app, 'GET', path, { token: family.admin.token })).status).to.equal(200);
    const early = signAccessToken(
      app.deps.jwtSecret,
      { userId: family.admin.userId, familyId: family.familyId, role: 'admin' },
      3600 * 24,
      Date.now() - 3600_000,
    );
    const tampered = family.admin.token.slice(0, -2) + (family.admin.token.endsWith('A') ? 'BB' : 'AA');
    for (const token of [early, tampered, undefined]) {
      const res = await request(app, 'GET', path, { token });
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('unauthenticated');
    }
  });

  it('shows every write of the family in the next read, byte for byte as built afresh', async () => {
    const { family, api, store, section, list, item } = await setup(app);
    const other = await api('POST', '/lists', { name: 'Other', storeId: store.id });
    const read = async (listId = list.id) => {
      const res = await request(app, 'GET', `/api/lists/${listId}`, { token: family.admin.token });
      if (res.status === 200) expect(res.text).to.equal(await listDetailJson(app.deps.db, family.familyId, listId));
      return res;
    };
    const names = async () =>
      (await read()).body.groups.flatMap((g: { name: string; items: Array<{ name: string; checked: boolean }> }) =>
        g.items.map((i) => `${g.name}/${i.name}${i.checked ? '✓' : ''}`),
      );
    expect(await names()).to.deep.equal(['Fruit/Apples']);
    expect(await names()).to.deep.equal(['Fruit/Apples']);

    await api('POST', `/lists/${list.id}/items`, { name: 'Bread' });
    expect(await names()).to.deep.equal(['Fruit/Apples', 'Uncategorized/Bread']);
    await api('POST', `/lists/${list.id}/items/${item.id}/toggle`);
    expect(await names()).to.deep.equal(['Fruit/Apples✓', 'Uncategorized/Bread']);
    await api('PATCH', `/stores/${store.id}/sections/${section.id}`, { name: 'Fruit & veg' });
    expect(await names()).to.deep.equal(['Fruit & veg/Apples✓', 'Uncategorized/Bread']);
    await api('PATCH', `/lists/${list.id}`, { name: 'Saturday' });
    expect((await read()).body.name).to.equal('Saturday');
    // A write to another list of the family, then this one unchanged.
    await api('POST', `/lists/${other.id}/items`, { name: 'Milk' });
    expect((await read(other.id)).body.groups[0].items[0].name).to.equal('Milk');
    expect(await names()).to.deep.equal(['Fruit & veg/Apples✓', 'Uncategorized/Bread']);

    await api('DELETE', `/lists/${list.id}`);
    const gone = await read();
    expect(gone.status).to.equal(404);
    expect(gone.body).to.include({ code: 'not_found', detail: 'List not found' });
  });

  it('answers a read at the version of its copy from the copy, and builds it again after a write', async () => {
    const { family, api, list } = await setup(app);
    const key = `${family.familyId}/${list.id}`;
    const get = () => request(app, 'GET', `/api/lists/${list.id}`, { token: family.admin.token });
    const first = await get();
    const copy = app.deps.listDetailCache!.get(key);
    expect(copy?.body.toString()).to.equal(first.text);
    // The copy, marked, is what the next read at its version answers: no detail was built for it.
    const marked = JSON.stringify({ ...first.body, name: 'From the copy' });
    app.deps.listDetailCache!.set(key, copy!.version, Buffer.from(marked));
    expect((await get()).text).to.equal(marked);
    await api('POST', `/lists/${list.id}/items`, { name: 'Bread' });
    const after = await get();
    expect(after.body.name).to.equal('Weekly');
    expect(after.text).to.equal(await listDetailJson(app.deps.db, family.familyId, list.id));
  });

  it('answers the same without copies (LIST_DETAIL_CACHE_MB=0)', async () => {
    const bare = await startTestApp({ envOverrides: { LIST_DETAIL_CACHE_MB: '0' } });
    try {
      expect(bare.deps.listDetailCache).to.equal(undefined);
      const { family, api, list } = await setup(bare);
      const get = () => request(bare, 'GET', `/api/lists/${list.id}`, { token: family.admin.token });
      expect((await get()).body.groups[0].items.map((i: { name: string }) => i.name)).to.deep.equal(['Apples']);
      await api('POST', `/lists/${list.id}/items`, { name: 'Bread' });
      const res = await get();
      expect(res.text).to.equal(await listDetailJson(bare.deps.db, family.familyId, list.id));
      expect(res.body.groups.length).to.equal(2);
    } finally {
      await bare.close();
    }
  });

  describe('every path of the detail refuses as every other route does', () => {
    let bare: App;
    before(async () => {
      bare = await startTestApp({ envOverrides: { LIST_DETAIL_CACHE_MB: '0' } });
    });
    after(async () => {
      await bare?.close();
    });

    /** What a client can tell of an answer: status, headers (but the per-request ones), body. */
    const seen = (res: Awaited<ReturnType<typeof request>>) => ({
      status: res.status,
      headers: [...res.headers.entries()].filter(([h]) => !['date', 'x-request-id', 'content-length'].includes(h)),
      body: res.body,
    });

    for (const copies of [true, false]) {
      const which = copies ? 'with copies' : 'without copies (LIST_DETAIL_CACHE_MB=0)';
      const appOf = () => (copies ? app : bare);

      it(`a removed member gets the refusal of authenticate, copy warm and cold, ${which}`, async () => {
        const a = appOf();
        expect(a.deps.listDetailCache === undefined).to.equal(!copies);
        const { family, api, list } = await setup(a);
        const cold = await api('POST', '/lists', { name: 'Never read' });
        const member = await makeMember(a, family);
        for (let k = 0; k < 2; k++)
          expect((await request(a, 'GET', `/api/lists/${list.id}`, { token: member.token })).status).to.equal(200);
        const removed = await request(a, 'DELETE', `/api/family/members/${member.userId}`, {
          token: family.admin.token,
        });
        expect(removed.status).to.equal(204);

        // The same token on a route that authenticates before its handler runs.
        const reference = seen(await request(a, 'GET', '/api/lists', { token: member.token }));
        expect(reference.status).to.equal(401);
        for (const listId of [list.id, cold.id]) {
          const res = await request(a, 'GET', `/api/lists/${listId}`, { token: member.token });
          expect(seen(res), listId === list.id ? 'warm' : 'cold').to.deep.equal(reference);
          expect(res.text).to.not.contain('Weekly').and.to.not.contain('Never read');
        }
        // The family's own members still read both, and their copies were not spoilt.
        for (const listId of [list.id, cold.id]) {
          const res = await request(a, 'GET', `/api/lists/${listId}`, { token: family.admin.token });
          expect(res.status).to.equal(200);
          expect(res.text).to.equal(await listDetailJson(a.deps.db, family.familyId, listId));
        }
      });

      it(`a member of another family gets 404 and nothing of the list, copy warm and cold, ${which}`, async () => {
        const a = appOf();
        const { family, api, list } = await setup(a);
        const cold = await api('POST', '/lists', { name: 'Never read' });
        expect((await request(a, 'GET', `/api/lists/${list.id}`, { token: family.admin.token })).status).to.equal(200);
        const other = await makeFamily(a);
        const stranger = await makeMember(a, other);
        for (const token of [other.admin.token, stranger.token])
          for (const listId of [list.id, cold.id]) {
            const res = await request(a, 'GET', `/api/lists/${listId}`, { token });
            expect(res.status, listId === list.id ? 'warm' : 'cold').to.equal(404);
            expect(res.body.code).to.equal('not_found');
            expect(res.text).to.not.contain('Weekly').and.to.not.contain('Never read').and.to.not.contain('Apples');
          }
        expect((await request(a, 'GET', `/api/lists/${list.id}`, { token: family.admin.token })).status).to.equal(200);
      });
    }
  });
});
