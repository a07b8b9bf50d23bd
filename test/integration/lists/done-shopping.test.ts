// Done shopping (api-contract §10): POST /api/lists/{listId}/clear-checked removes every active
// checked item in one commit, POST /api/lists/{listId}/restore-items undoes it. The live events,
// received on a real socket, are those of the single removals and restores of the same items
// (ListProgress goes out once per write, with the counts at commit).
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember, type TestUser } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { TestSocket, type Frame } from '../realtime/client.js';
import { bumps, client, uuid } from './helpers.js';

const LIVE = new Set(['ItemRemoved', 'ItemRestored', 'ListProgress', 'ItemAdded', 'ItemUpdated', 'ItemChecked']);
const NAMES = ['Apples', 'Bread', 'Cheese', 'Dates', 'Eggs'] as const;

/** A list with Apples, Bread (checked), Cheese (checked), Dates (checked, then removed), Eggs. */
async function stock(api: ReturnType<typeof client>, name: string) {
  const list = (await api('POST', '/lists', { name })).body;
  const ids: Record<string, string> = {};
  for (const item of NAMES) {
    const res = await api('POST', `/lists/${list.id}/items`, { name: item, quantity: 1 });
    expect(res.status).to.equal(201);
    ids[item] = res.body.id;
  }
  for (const item of ['Bread', 'Cheese', 'Dates'])
    expect((await api('POST', `/lists/${list.id}/items/${ids[item]}/toggle`)).status).to.equal(200);
  expect((await api('DELETE', `/lists/${list.id}/items/${ids.Dates}`)).status).to.equal(200);
  return { list, ids };
}

async function activeItems(api: ReturnType<typeof client>, listId: string) {
  const detail = (await api('GET', `/lists/${listId}`)).body;
  return detail.groups.flatMap((g: any) => g.items);
}

describe('done shopping: clear checked and restore items (§10)', () => {
  let app: RunningServer;
  const sockets: TestSocket[] = [];
  before(async () => {
    app = await testApp();
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });

  async function world() {
    const family = await makeFamily(app);
    const shopper: TestUser = await makeMember(app, family);
    const api = client(app, shopper);
    const one = await stock(api, 'Batch');
    const two = await stock(api, 'One by one');
    // The same items of the second list, named by the first list's ids (to compare events).
    const twin = new Map<string, string>([[two.list.id, one.list.id]]);
    for (const n of NAMES) twin.set(two.ids[n]!, one.ids[n]!);
    const socket = await TestSocket.connect(app, family.admin.token);
    sockets.push(socket);
    await socket.join(one.list.id, 'one');
    await socket.join(two.list.id, 'two');
    /** The live frames of the list received while `fn` runs (times replaced, ids of `twin` mapped). */
    const liveOf = async (listId: string, fn: () => Promise<unknown>) => {
      const from = socket.frames.length;
      await fn();
      await socket.sync();
      const frames = socket.frames.slice(from).filter((f: Frame) => LIVE.has(f.type) && f.listId === listId);
      return JSON.parse(
        JSON.stringify(frames, (key, v) =>
          typeof v === 'string' && twin.has(v) ? twin.get(v) : /At$/.test(key) && v != null ? '(time)' : v,
        ),
      ) as Frame[];
    };
    return { family, shopper, api, one, two, socket, liveOf };
  }

  it('clear-checked removes every active checked item in one write, with the events of single removals', async () => {
    const { family, shopper, api, one, two, liveOf } = await world();
    let response: any;
    let delta = 0;
    const batch = await liveOf(one.list.id, async () => {
      const r = await bumps(app, family.familyId, () => api('POST', `/lists/${one.list.id}/clear-checked`));
      response = r.result;
      delta = r.delta;
    });
    expect(response.status, response.text).to.equal(200);
    expect(delta).to.equal(1);
    expect(Object.keys(response.body)).to.deep.equal(['items']);
    const removed = response.body.items;
    expect(removed.map((i: any) => i.name)).to.deep.equal(['Bread', 'Cheese']); // Dates was removed already
    for (const item of removed) {
      expect(item).to.include({ listId: one.list.id, checked: true, removedByUserId: shopper.userId });
      expect(item.removedAt).to.be.a('string');
      expect(item.removedAt).to.equal(item.updatedAt);
    }
    expect((await activeItems(api, one.list.id)).map((i: any) => i.name)).to.deep.equal(['Apples', 'Eggs']);
    const summary = (await api('GET', '/lists')).body.find((l: any) => l.id === one.list.id);
    expect(summary).to.include({ itemCount: 2, checkedCount: 0 });

    const single = await liveOf(two.list.id, async () => {
      for (const n of ['Bread', 'Cheese'])
        expect((await api('DELETE', `/lists/${two.list.id}/items/${two.ids[n]}`)).status).to.equal(200);
    });
    // The same removals, announced the same way; progress once per write, with the counts at commit.
    const without = (frames: Frame[]) => frames.filter((f) => f.type !== 'ListProgress');
    expect(without(batch)).to.deep.equal(without(single));
    expect(without(batch)).to.deep.equal(
      removed.map((i: any) => ({
        type: 'ItemRemoved',
        listId: one.list.id,
        itemId: i.id,
        removedByUserId: shopper.userId,
      })),
    );
    // One ListProgress (its counts are those at commit, wherever it falls among the removals).
    const progress = (frames: Frame[]) => frames.filter((f) => f.type === 'ListProgress');
    expect(progress(batch)).to.deep.equal([single.at(-1)]);
    expect(progress(batch)).to.deep.equal([
      { type: 'ListProgress', listId: one.list.id, itemCount: 2, checkedCount: 0 },
    ]);

    // Nothing checked any more: an empty answer and no item event.
    const again = await liveOf(one.list.id, async () => {
      const r = await api('POST', `/lists/${one.list.id}/clear-checked`);
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ items: [] });
    });
    expect(again.filter((f) => f.type.startsWith('Item'))).to.deep.equal([]);
  });

  it('restore-items makes the items active again (already active: unchanged), with the events of single restores', async () => {
    const { family, api, one, two, liveOf } = await world();
    await api('POST', `/lists/${one.list.id}/clear-checked`);
    for (const n of ['Bread', 'Cheese']) await api('DELETE', `/lists/${two.list.id}/items/${two.ids[n]}`);
    const apples = (await activeItems(api, one.list.id)).find((i: any) => i.name === 'Apples');

    let response: any;
    let delta = 0;
    const batch = await liveOf(one.list.id, async () => {
      const r = await bumps(app, family.familyId, () =>
        api('POST', `/lists/${one.list.id}/restore-items`, {
          itemIds: [one.ids.Cheese, one.ids.Bread!.toUpperCase(), one.ids.Apples, one.ids.Cheese],
        }),
      );
      response = r.result;
      delta = r.delta;
    });
    expect(response.status, response.text).to.equal(200);
    expect(delta).to.equal(1);
    const items = response.body.items;
    // In the order given, each once; Apples (active) exactly as it was.
    expect(items.map((i: any) => i.name)).to.deep.equal(['Cheese', 'Bread', 'Apples']);
    expect(items[2]).to.deep.equal(apples);
    for (const item of items.slice(0, 2)) {
      expect(item).to.include({ removedAt: null, removedByUserId: null, checked: true });
    }
    const active = await activeItems(api, one.list.id);
    expect(active.map((i: any) => i.name)).to.have.members(['Apples', 'Bread', 'Cheese', 'Eggs']);
    expect(active.find((i: any) => i.name === 'Dates')).to.equal(undefined);

    const single = await liveOf(two.list.id, async () => {
      for (const n of ['Cheese', 'Bread', 'Apples'])
        expect((await api('POST', `/lists/${two.list.id}/items/${two.ids[n]}/restore`)).status).to.equal(200);
    });
    const without = (frames: Frame[]) => frames.filter((f) => f.type !== 'ListProgress');
    expect(without(batch)).to.deep.equal(without(single));
    expect(without(batch).map((f) => [f.type, f.item.name])).to.deep.equal([
      ['ItemRestored', 'Cheese'],
      ['ItemRestored', 'Bread'],
    ]);
    expect(without(batch)[0]!.item).to.include({ removedAt: null, removedByUserId: null });
    const progress = (frames: Frame[]) => frames.filter((f) => f.type === 'ListProgress');
    expect(progress(batch)).to.deep.equal([single.at(-1)]);
    expect(progress(batch)).to.deep.equal([
      { type: 'ListProgress', listId: one.list.id, itemCount: 4, checkedCount: 2 },
    ]);
  });

  it('restore-items refuses an id that is not an item of this list (400) and restores nothing', async () => {
    const { family, api, one, two, liveOf } = await world();
    const them = await makeFamily(app);
    const theirs = client(app, them.admin);
    const theirList = (await theirs('POST', '/lists', { name: 'Theirs' })).body;
    const theirItem = (await theirs('POST', `/lists/${theirList.id}/items`, { name: 'Theirs' })).body;
    const gone = await stock(api, 'Gone');
    expect((await api('DELETE', `/lists/${gone.list.id}`)).status).to.equal(204);

    for (const [bad, why] of [
      [theirItem.id, "another family's item"],
      [uuid(), 'an unknown id'],
      [two.ids.Dates, "another list's item"],
      [gone.ids.Dates, 'an item of a deleted list'],
    ] as const) {
      let res: any;
      let delta = -1;
      const frames = await liveOf(one.list.id, async () => {
        const r = await bumps(app, family.familyId, () =>
          api('POST', `/lists/${one.list.id}/restore-items`, { itemIds: [one.ids.Dates, bad] }),
        );
        res = r.result;
        delta = r.delta;
      });
      expect(res.status, why).to.equal(400);
      expect(res.body.code, why).to.equal('validation_failed');
      expect(res.body.errors, why).to.deep.equal([{ path: 'body.itemIds.1', message: 'not an item of this list' }]);
      expect(res.body.detail, why).to.equal('Every id must be an item of this list');
      expect(delta, why).to.equal(0);
      expect(frames, why).to.deep.equal([]);
      expect(
        (await activeItems(api, one.list.id)).map((i: any) => i.name),
        why,
      ).to.not.include('Dates');
    }
    // Their item is untouched too.
    expect((await theirs('GET', `/lists/${theirList.id}`)).body.groups[0].items[0]).to.deep.equal(theirItem);
  });

  it('restore-items takes 1 to 500 ids; a malformed body is 400 and changes nothing', async () => {
    const { family, api, one } = await world();
    const path = `/lists/${one.list.id}/restore-items`;
    for (const [body, field] of [
      [{ itemIds: [] }, 'body.itemIds'],
      [{ itemIds: Array(501).fill(one.ids.Dates) }, 'body.itemIds'],
      [{ itemIds: ['not-an-id'] }, 'body.itemIds.0'],
      [{ itemIds: one.ids.Dates }, 'body.itemIds'],
      [{}, 'body.itemIds'],
    ] as const) {
      const { result, delta } = await bumps(app, family.familyId, () => api('POST', path, body));
      expect(result.status, JSON.stringify(body).slice(0, 60)).to.equal(400);
      expect(result.body.code).to.equal('validation_failed');
      expect(result.body.errors.map((e: any) => e.path)).to.include(field);
      expect(delta).to.equal(0);
    }
    // 500 ids (here one id 500 times) are accepted: the item once.
    const res = await api('POST', path, { itemIds: Array(500).fill(one.ids.Dates) });
    expect(res.status).to.equal(200);
    expect(res.body.items.map((i: any) => [i.name, i.removedAt])).to.deep.equal([['Dates', null]]);
  });

  it("is 404 for a list that is not the family's, and changes nothing there", async () => {
    const { api, one } = await world();
    const them = await makeFamily(app);
    const theirs = client(app, them.admin);
    const doomed = (await api('POST', '/lists', { name: 'Doomed' })).body;
    await api('DELETE', `/lists/${doomed.id}`);
    for (const listId of [uuid(), doomed.id]) {
      for (const res of [
        await api('POST', `/lists/${listId}/clear-checked`),
        await api('POST', `/lists/${listId}/restore-items`, { itemIds: [one.ids.Dates] }),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body).to.include({ code: 'not_found', detail: 'List not found' });
      }
    }
    const before = await activeItems(api, one.list.id);
    const clear = await theirs('POST', `/lists/${one.list.id}/clear-checked`);
    expect(clear.status).to.equal(404);
    expect(clear.body.code).to.equal('not_found');
    const restore = await theirs('POST', `/lists/${one.list.id}/restore-items`, { itemIds: [one.ids.Dates] });
    expect(restore.status).to.equal(404);
    expect(await activeItems(api, one.list.id)).to.deep.equal(before);
  });
});
