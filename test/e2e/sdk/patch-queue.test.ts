// A live patch goes to RxDB only while that collection's replication is idle (docs/sync.md "Live
// patches", "Why idle only"). RxDB holds a patch that arrives during a push until the push ends;
// a pull queued before it (behind a write of the local database) may begin meanwhile, and a
// patch added after a pull began is not dropped: its older docs would land on the pull's newer
// ones, and the list would show an item's earlier name again. Here the device's own parts put
// RxDB's queue in exactly that order: its local database is slow to take a pulled write, its push
// is still on the way, and the frame of a later commit comes late.
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { heldFetch, heldFrames, slowStorage } from '../../helpers/sdk-gates.js';
import { fetchAs, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

/** Lets every promise callback queued so far run (and what they queue in turn). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('e2e SDK: a live patch never lands behind a newer pull', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  it('a frame that arrives while the device pushes, with a pull queued, never brings an older name back', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const api = restAs(sdk.app, member.token);
    const list = await api('POST', '/api/lists', { name: 'Groceries' });
    const jam = await api('POST', `/api/lists/${list.id}/items`, { name: 'Jam' });
    const bread = await api('POST', `/api/lists/${list.id}/items`, { name: 'Bread' });
    const names = ['Jam', 'Jam 1', 'Jam 2', 'Jam 3']; // the names the member gives it, in order

    const db = slowStorage(getRxStorageMemory(), 'items');
    const net = heldFetch(fetchAs());
    const live = heldFrames();
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, { storage: db.storage, fetch: net.fetch, WebSocket: live.WebSocket }),
    );
    await c.start();
    await c.awaitInSync();
    await waitFor(() => c.online && c.state === 'idle', 'the live channel up, in sync');

    // Every name of the item the list has shown, in order.
    const shown: string[] = [];
    const nameIn = (detail: any) =>
      detail?.groups.flatMap((g: any) => g.items).find((i: any) => i.id === jam.id)?.name as string | undefined;
    const watching = c.lists.detail$(list.id).subscribe((detail) => {
      const name = nameIn(detail);
      if (name !== undefined && name !== shown.at(-1)) shown.push(name);
    });

    try {
      // 1. The member renames it; the device's database is slow to write what it got.
      db.hold();
      await api('PATCH', `/api/lists/${list.id}/items/${jam.id}`, { name: names[1] });
      await waitFor(() => db.caught > 0, `the write of "${names[1]}" held`);
      // 2. A pull of every collection, queued behind that write.
      const syncing = c.sync().catch(() => undefined);
      await settle();
      // 3. A change on the device: its push is on the way (held before it reaches the server).
      net.hold((method, path) => method === 'POST' && path === '/api/sync/items/push');
      await c.items.update(list.id, bread.id, { quantity: 3 });
      await waitFor(() => net.waiting === 1, 'the push of Bread on its way');
      // 4. The member renames it again; its frame arrives while the device pushes.
      await api('PATCH', `/api/lists/${list.id}/items/${jam.id}`, { name: names[2] });
      await waitFor(
        () => live.changed.some((f) => f.docs?.items?.documents.some((d: any) => d.name === names[2])),
        `the frame of "${names[2]}"`,
      );
      // 5. And once more; that frame comes late (the pull below brings the name).
      live.holding = true;
      await api('PATCH', `/api/lists/${list.id}/items/${jam.id}`, { name: names[3] });
      await waitFor(() => live.heldCount() === 1, `the frame of "${names[3]}" held`);
      // 6. The database catches up: the queued pull runs and brings the newest name.
      db.release();
      await waitFor(() => shown.at(-1) === names[3], `"${names[3]}" shown`);
      // 7. The push reaches the server and is answered; the late frame arrives.
      net.release();
      live.release();
      await syncing;
      await c.awaitInSync();

      const server = await api('GET', `/api/lists/${list.id}`);
      expect(nameIn(server)).to.equal(names[3]);
      expect(await firstValueFrom(c.lists.detail$(list.id))).to.deep.equal(server);
      const order = shown.map((n) => names.indexOf(n));
      expect(order, `names shown: ${shown.join(' → ')}`).to.deep.equal([...order].sort((a, b) => a - b));
    } finally {
      watching.unsubscribe();
      db.release();
      net.release();
      live.release();
    }
  });
});
