// Pulls page by page. A device's own write comes back with the server's stamps (updatedAt, the version) even when the
// live channel's nudge for it, and the pull it starts, arrive before the push's answer: RxDB then
// still takes the pushed state as unacknowledged and passes the pulled doc over, while the pull's
// checkpoint moves past it. The replication must pull those docs again once the push has been
// acknowledged, and `awaitInSync()` must not resolve before.
import { expect } from 'chai';
import { makeFamily } from '../../helpers/factories.js';
import { fetchAs, localDoc, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

describe('e2e SDK: paged pulls and own writes pulled back', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('a pull of many pages brings every doc once, with writes made between its pages', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Pages' });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push((await rest('POST', `/api/lists/${list.id}/items`, { name: `Item ${i}` })).id);

    // Each items page is answered only after a write by another device (the first pages see
    // the writes that follow them only through a later pull).
    const base = fetchAs();
    const pages: string[] = [];
    let written = 0;
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        pullBatchSize: 7,
        fetch: async (input, init) => {
          if (/\/api\/sync\/items\/pull/.test(input)) {
            pages.push(new URL(input).searchParams.get('checkpoint') ?? '');
            if (written < 3) {
              written++;
              await rest('PATCH', `/api/lists/${list.id}/items/${ids[written]}`, { name: `Renamed ${written}` });
            }
          }
          return base(input, init);
        },
      }),
    );
    await c.start();
    await c.awaitInSync();
    const local = await Promise.all(ids.map((id) => localDoc(c, 'items', id)));
    expect(local.map((d) => d?.name)).to.deep.equal(
      ids.map((_, i) => (i >= 1 && i <= 3 ? `Renamed ${i}` : `Item ${i}`)),
    );
    // Every page was asked for once: no checkpoint repeats.
    expect(new Set(pages).size, pages.join('\n')).to.equal(pages.length);
    expect(pages.length).to.be.at.least(Math.ceil(40 / 7));
  });

  it('a merge pushed while a pull runs still brings the server stamp back', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const list = await rest('POST', '/api/lists', { name: 'Stamps' });
    const milk = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Milk', quantity: 1 });

    // Once armed: the next items pull is sent only after a push has been applied on the server
    // (so it reads that push's commit), and that push's answer reaches the client only after the
    // pull's answer has (so RxDB handles the pulled doc before it takes the push as done).
    const base = fetchAs();
    let armed = false;
    let pushApplied = false;
    let pullAnswered = false;
    const until = async (condition: () => boolean) => {
      const deadline = Date.now() + 3000;
      while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    };
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        realtime: false,
        fetch: async (input, init) => {
          if (armed && /\/api\/sync\/items\/pull/.test(input)) {
            armed = false;
            await until(() => pushApplied);
            const res = await base(input, init);
            pullAnswered = true;
            return res;
          }
          const res = await base(input, init);
          if (/\/api\/sync\/items\/push/.test(input) && !pushApplied && !armed) {
            const body = await res.clone().json();
            if (body.conflicts.length === 0 && body.rejected.length === 0) {
              pushApplied = true;
              await until(() => pullAnswered);
              await new Promise((r) => setTimeout(r, 100));
            }
          }
          return res;
        },
      }),
    );
    await c.start();
    await waitFor(() => localDoc(c, 'items', milk.id), 'the item locally');
    await c.awaitInSync();

    // Another device changes the quantity; this one, not knowing, renames the item: the push
    // meets a conflict, the merge is pushed again, while a pull is under way.
    await rest('PATCH', `/api/lists/${list.id}/items/${milk.id}`, { quantity: 3 });
    armed = true;
    const syncing = c.sync();
    await waitFor(() => !armed, 'the pull under way');
    const doc = await c.db.items.findOne(milk.id).exec();
    await doc!.incrementalPatch({ name: 'Oat milk' });
    await syncing;
    await c.awaitInSync();
    expect({ pushApplied, pullAnswered }, 'the pull overlapped the merge push').to.deep.equal({
      pushApplied: true,
      pullAnswered: true,
    });

    const detail = await rest('GET', `/api/lists/${list.id}`);
    const server = detail.groups
      .flatMap((g: { items: any[] }) => g.items)
      .find((i: { id: string }) => i.id === milk.id);
    expect({ name: server.name, quantity: server.quantity }).to.deep.equal({ name: 'Oat milk', quantity: 3 });
    const local = await localDoc(c, 'items', milk.id);
    expect({ name: local.name, quantity: local.quantity, updatedAt: local.updatedAt }).to.deep.equal({
      name: 'Oat milk',
      quantity: 3,
      updatedAt: server.updatedAt,
    });
  });
});
