// A store created offline with its default sections, one of them deleted and one renamed before
// the device comes back: whichever of the two collections' pushes reaches the server first, the
// offline changes are kept, and the device and the server end with the same sections.
import { expect } from 'chai';
import type { FetchLike } from '@family-shopping/client';
import { makeFamily } from '../../helpers/factories.js';
import { heldFetch } from '../../helpers/sdk-gates.js';
import { fetchAs, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

describe('e2e SDK: a store made offline, its sections changed before the first push', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  for (const first of ['sections', 'stores'] as const) {
    const then = first === 'sections' ? 'stores' : 'sections';
    it(`keeps the deletion and the rename when the ${first}' push lands before the ${then}'`, async () => {
      const family = await makeFamily(sdk.app);
      const rest = restAs(sdk.app, family.admin.token);
      const sent: string[] = [];
      const base = fetchAs();
      const recording: FetchLike = (input, init) => {
        sent.push(`${init?.method ?? 'GET'} ${new URL(input).pathname}`);
        return base(input, init);
      };
      const net = heldFetch(recording);
      const c = sdk.track(await signedInClient(sdk.app, family.admin, { fetch: net.fetch }));

      // Offline (never started): the store, its default sections, then two section changes.
      const store = await c.stores.create({ name: 'Pop-up market' });
      const local = async () =>
        (await c.db.sections.find({ selector: { storeId: store.id }, sort: [{ position: 'asc' }] }).exec()).map(
          (d) => ({ id: d.id, name: d.name, position: d.position }),
        );
      const [, second, third] = await local();
      await c.sections.delete(store.id, second!.id);
      await c.sections.update(store.id, third!.id, { name: 'Cheese counter' });
      const wanted = await local();
      expect(wanted.map((s) => s.id)).not.to.include(second!.id);

      // The other collection's push waits until this one's has been sent.
      const heldPath = `/api/sync/${then}/push`;
      net.hold((method, path) => method === 'POST' && path === heldPath);
      await c.start();
      await waitFor(() => sent.includes(`POST /api/sync/${first}/push`), `the ${first}' push`);
      if (first === 'stores') {
        await waitFor(
          () =>
            rest('GET', `/api/stores/${store.id}`).then(
              () => true,
              () => false,
            ),
          'the store',
        );
      }
      net.release();
      await c.awaitInSync();

      const server = (await rest('GET', `/api/stores/${store.id}/sections`)) as { id: string; name: string }[];
      expect(server.map((s) => s.id)).not.to.include(second!.id);
      expect(server.find((s) => s.id === third!.id)?.name).to.equal('Cheese counter');
      expect(server.map((s) => s.id)).to.deep.equal(wanted.map((s) => s.id));
      expect((await local()).map((s) => s.id)).to.deep.equal(wanted.map((s) => s.id));
    });
  }

  it('a store made offline, a section of it deleted, then the store deleted: nothing on the server, the deletion not reported', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const reported: string[] = [];
    c.on('rejected', (e) => reported.push(...e.rows.map((r) => r.id)));
    const kept = await c.stores.create({ name: 'Kept' });
    const gone = await c.stores.create({ name: 'Gone' });
    const [first] = await c.db.sections.find({ selector: { storeId: gone.id } }).exec();
    await c.sections.delete(gone.id, first!.id);
    await c.stores.delete(gone.id);
    await c.start();
    await c.awaitInSync();
    const stores = (await rest('GET', '/api/stores')) as { id: string }[];
    expect(stores.map((s) => s.id)).to.include(kept.id);
    expect(stores.map((s) => s.id)).not.to.include(gone.id);
    expect(await c.db.sections.find({ selector: { storeId: gone.id } }).exec()).to.have.length(0);
    // The section deleted here was never on the server: its deletion is no loss to report.
    expect(reported).not.to.include(first!.id);
  });
});
