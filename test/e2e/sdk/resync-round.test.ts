// `sync()` asked for while a push is under way: RxDB first finishes that push (here it meets a
// conflict, and the merge is written locally), then runs the resync, whose first round pushes
// every local change again (the merge) while its pull runs beside it. The server's stamps of the
// merge must still reach the device before `sync()` resolves. RxDB's writes of what the server
// acknowledged are slowed down (a phone's storage under load): a pull handled before such a
// write would take the merge for a change not yet pushed and pass the server's doc over.
import { expect } from 'chai';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import type { RxStorage } from 'rxdb';
import { makeFamily } from '../../helpers/factories.js';
import { fetchAs, localDoc, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';
import { sleep } from '../../helpers/wait.js';

/** Memory storage whose writes of replication state (RxDB's assumed server states and
 *  checkpoints) each take `delay.ms` longer. */
function slowReplicationState(delay: { ms: number }): RxStorage<any, any> {
  const memory = getRxStorageMemory();
  return {
    ...memory,
    async createStorageInstance(params) {
      const instance = await memory.createStorageInstance(params);
      if (!params.collectionName.startsWith('rx-replication-meta-')) return instance;
      const bulkWrite = instance.bulkWrite.bind(instance);
      instance.bulkWrite = async (rows, context) => {
        if (delay.ms > 0 && context === 'replication-up-write-meta') await sleep(delay.ms);
        return bulkWrite(rows, context);
      };
      return instance;
    },
  };
}

describe('e2e SDK: a merge pushed in a resync round', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  for (const realtime of [true, false]) {
    it(`comes back with the server's stamps before sync() resolves (live channel ${realtime ? 'on' : 'off'})`, async () => {
      const family = await makeFamily(sdk.app);
      const rest = restAs(sdk.app, family.admin.token);
      const list = await rest('POST', '/api/lists', { name: 'Resync' });
      const milk = await rest('POST', `/api/lists/${list.id}/items`, { name: 'Milk', quantity: 1 });

      const delay = { ms: 0 };
      const base = fetchAs();
      let hold: Promise<void> | null = null;
      let held = false;
      let release!: () => void;
      const c = sdk.track(
        await signedInClient(sdk.app, family.admin, {
          realtime,
          storage: slowReplicationState(delay),
          fetch: async (input, init) => {
            if (hold && /\/api\/sync\/items\/push/.test(input)) {
              const wait = hold;
              hold = null;
              held = true;
              await wait;
            }
            return base(input, init);
          },
        }),
      );
      await c.start();
      await waitFor(() => localDoc(c, 'items', milk.id), 'the item locally');
      await c.awaitInSync();

      // This device renames the item; its push is held. Meanwhile another device changes the
      // quantity, so the push meets a conflict once it goes through.
      hold = new Promise((r) => (release = r));
      const doc = await c.db.items.findOne(milk.id).exec();
      await doc!.incrementalPatch({ name: 'Oat milk' });
      await waitFor(() => held, 'the push under way');
      await rest('PATCH', `/api/lists/${list.id}/items/${milk.id}`, { quantity: 3 });
      delay.ms = 150;
      const syncing = c.sync();
      await sleep(50);
      release();
      await syncing;
      delay.ms = 0;

      const detail = await rest('GET', `/api/lists/${list.id}`);
      const server = detail.groups
        .flatMap((g: { items: any[] }) => g.items)
        .find((i: { id: string }) => i.id === milk.id);
      const local = await localDoc(c, 'items', milk.id);
      const fields = (d: any) => ({ name: d.name, quantity: d.quantity, updatedAt: d.updatedAt });
      expect(fields(server)).to.include({ name: 'Oat milk', quantity: 3 });
      expect(fields(local)).to.deep.equal(fields(server));
    });
  }
});
