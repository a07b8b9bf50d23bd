// Section categories (api-contract §10): a new store's default sections carry the categories in
// their order (REST and push alike); an admin sets a section's category on create and with PATCH
// (name and/or category); a section a user adds has none unless given one; an unknown key is
// 400 validation_failed and changes nothing; docs carry it, and an admin may push it.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { DEFAULT_SECTIONS, DEFAULT_SECTION_CATEGORIES } from '@family-shopping/client/protocol';
import { familyVersion, pullAll, push, sectionDoc, storeDoc } from '../sync/helpers.js';

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const member = await makeMember(app, family);
  const as = (token: string) => (method: string, path: string, body?: unknown) =>
    request(app, method, `/api${path}`, { token, body });
  return { app, family, member, admin: as(family.admin.token), asMember: as(member.token) };
}

const EXPECTED = DEFAULT_SECTIONS.map((name, i) => [name, DEFAULT_SECTION_CATEGORIES[i]]);

describe('section categories (§10)', () => {
  before(async function () {
    this.timeout(120_000); // the shared app's start, on a busy machine
    await testApp();
  });

  it('default sections carry their categories, by REST and by push, in every view', async () => {
    const { app, family, admin, asMember } = await setup();
    expect(EXPECTED[0]).to.deep.equal(['Produce', 'produce']);
    expect(EXPECTED[10]).to.deep.equal(['Personal Care', 'personal_care']);
    const store = (await asMember('POST', '/stores', { name: 'Corner' })).body;
    expect(store.sections.map((s: any) => [s.name, s.category])).to.deep.equal(EXPECTED);
    const sections = (await admin('GET', `/stores/${store.id}/sections`)).body;
    expect(sections).to.deep.equal(store.sections);

    const pushed = storeDoc();
    expect((await push(app, family.admin.token, 'stores', [{ newDocumentState: pushed }])).body.rejected).to.deep.equal(
      [],
    );
    const docs = [...(await pullAll(app, family.admin.token, 'sections')).docs.values()];
    for (const storeId of [store.id, pushed.id]) {
      const mine = docs.filter((d) => d.storeId === storeId).sort((a, b) => a.position - b.position);
      expect(mine.map((d) => [d.name, d.category])).to.deep.equal(EXPECTED);
    }
  });

  it('an admin adds a section with or without a category, and patches name and/or category; members get 403', async () => {
    const { app, family, admin, asMember } = await setup();
    const store = (await admin('POST', '/stores', { name: 'Market' })).body;
    const plain = await admin('POST', `/stores/${store.id}/sections`, { name: 'Seasonal' });
    expect([plain.status, plain.body.category]).to.deep.equal([201, null]);
    const fish = await admin('POST', `/stores/${store.id}/sections`, { name: 'Fish counter', category: 'meat' });
    expect([fish.status, fish.body.category]).to.deep.equal([201, 'meat']);
    expect(Object.keys(fish.body)).to.deep.equal([
      'id',
      'storeId',
      'name',
      'position',
      'category',
      'createdAt',
      'updatedAt',
    ]);

    const path = `/stores/${store.id}/sections/${plain.body.id}`;
    let r = await admin('PATCH', path, { category: 'produce' });
    expect([r.status, r.body.name, r.body.category]).to.deep.equal([200, 'Seasonal', 'produce']);
    r = await admin('PATCH', path, { name: 'Fruit stand' });
    expect([r.body.name, r.body.category]).to.deep.equal(['Fruit stand', 'produce']);
    r = await admin('PATCH', path, { name: 'Stand', category: null });
    expect([r.body.name, r.body.category]).to.deep.equal(['Stand', null]);

    const version = await familyVersion(app, family.familyId);
    expect((await asMember('PATCH', path, { category: 'dairy' })).status).to.equal(403);
    expect((await asMember('POST', `/stores/${store.id}/sections`, { name: 'X', category: 'dairy' })).status).to.equal(
      403,
    );
    expect(await familyVersion(app, family.familyId)).to.equal(version);
  });

  it('bad bodies are 400 validation_failed and change nothing', async () => {
    const { app, family, admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'Depot' })).body;
    const first = store.sections[0];
    const version = await familyVersion(app, family.familyId);
    for (const [method, path, body] of [
      ['POST', `/stores/${store.id}/sections`, { name: 'Toys', category: 'toys' }],
      ['POST', `/stores/${store.id}/sections`, { name: 'Toys', category: 'Produce' }],
      ['PATCH', `/stores/${store.id}/sections/${first.id}`, { category: 'garden' }],
      ['PATCH', `/stores/${store.id}/sections/${first.id}`, { name: 'Garden', category: 7 }],
      ['PATCH', `/stores/${store.id}/sections/${first.id}`, {}],
    ] as const) {
      const r = await admin(method, path, body);
      expect([r.status, r.body.code], `${method} ${JSON.stringify(body)}`).to.deep.equal([400, 'validation_failed']);
    }
    expect(await familyVersion(app, family.familyId)).to.equal(version);
    expect((await admin('GET', `/stores/${store.id}/sections`)).body).to.deep.equal(store.sections);
  });

  it('push: an admin adds and changes a section category; a member is refused; an unknown key is rejected', async () => {
    const { app, family, member, admin } = await setup();
    const store = (await admin('POST', '/stores', { name: 'Pushed' })).body;
    const t = family.admin.token;
    const added = sectionDoc(store.id, { name: 'Cold room', position: 11, category: 'frozen' });
    expect((await push(app, t, 'sections', [{ newDocumentState: added }])).body).to.deep.equal({
      conflicts: [],
      rejected: [],
    });
    const read = async () =>
      (await admin('GET', `/stores/${store.id}/sections`)).body.find((s: any) => s.id === added.id);
    expect(await read()).to.include({ name: 'Cold room', category: 'frozen' });

    const doc = (await pullAll(app, t, 'sections')).docs.get(added.id)!;
    expect(doc.category).to.equal('frozen');
    let res = await push(app, t, 'sections', [
      { assumedMasterState: doc, newDocumentState: { ...doc, category: 'dairy' } },
    ]);
    expect(res.body).to.deep.equal({ conflicts: [], rejected: [] });
    expect((await read()).category).to.equal('dairy');

    const now = (await pullAll(app, t, 'sections')).docs.get(added.id)!;
    res = await push(app, member.token, 'sections', [
      { assumedMasterState: now, newDocumentState: { ...now, category: 'snacks' } },
    ]);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal(['forbidden']);
    res = await push(app, t, 'sections', [{ assumedMasterState: now, newDocumentState: { ...now, category: 'toys' } }]);
    expect(res.body.rejected.map((r) => r.code)).to.deep.equal(['validation_failed']);
    expect((await read()).category).to.equal('dairy');
  });
});
