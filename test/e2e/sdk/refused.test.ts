// A change the server refuses (a rule or a role): the SDK reports it once and the local copy goes
// back to the server's state, instead of keeping the refused change and pushing it again.
import { expect } from 'chai';
import type { RunningServer } from '../../../server/server.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { request } from '../../helpers/app.js';
import type { FamilyClient } from '../../../client-sdk/src/index.js';
import { localDoc, recordEvents, signedInClient, startSdkApp, waitFor } from './helpers.js';

describe('e2e SDK: refused changes', function () {
  this.timeout(60_000);
  let app: RunningServer;
  let client: FamilyClient | undefined;

  before(async () => {
    app = await startSdkApp();
  });
  after(async () => {
    await app.close();
  });
  afterEach(async () => {
    await client?.destroy();
    client = undefined;
  });

  const familyVersion = async (familyId: string) =>
    Number((await app.deps.db('family_counters').where({ family_id: familyId }).first('version')).version);

  it('a member renaming a section (admin only) gets one `rejected` event, the section reverts, and nothing is pushed again', async () => {
    const family = await makeFamily(app);
    const member = await makeMember(app, family);
    const store = (await request(app, 'POST', '/api/stores', { token: member.token, body: { name: 'Bakery lane' } })).body;
    const section = store.sections[1];
    client = await signedInClient(app, member, { retryTime: 50 });
    const c = client;
    const events = recordEvents(c);
    await c.start();
    await waitFor(async () => (await localDoc(c, 'sections', section.id))?.name === section.name, 'the section locally');

    const doc = await c.db.sections.findOne(section.id).exec();
    await doc!.incrementalPatch({ name: 'Bread & cakes' });
    await waitFor(() => events.some((e) => e.type === 'rejected'), 'the rejected event');
    await waitFor(async () => (await localDoc(c, 'sections', section.id))?.name === section.name, 'the section reverted');
    await c.sync();

    const rejected = events.filter((e) => e.type === 'rejected');
    expect(rejected).to.have.length(1);
    expect(rejected[0]).to.deep.include({ collection: 'sections' });
    expect((rejected[0] as any).rows.map((r: any) => [r.id, r.code])).to.deep.equal([[section.id, 'forbidden']]);
    // Settled: later sync rounds push nothing, so the family version stays put.
    const settled = await familyVersion(family.familyId);
    await new Promise((r) => setTimeout(r, 500));
    await c.sync();
    expect(await familyVersion(family.familyId)).to.equal(settled);
    expect(events.filter((e) => e.type === 'rejected')).to.have.length(1);
    const server = (await request(app, 'GET', `/api/stores/${store.id}/sections`, { token: member.token })).body;
    expect(server.find((s: any) => s.id === section.id).name).to.equal(section.name);
  });
});
