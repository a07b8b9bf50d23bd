// stop() ends everything the client had open with the server: its live socket closes (the
// server counts no socket of it), no frame or change reaches it afterwards, and nothing it writes
// locally is sent until it starts again; then it catches up.
import { expect } from 'chai';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { newDoc } from '@family-shopping/client';
import { TestSocket } from '../../integration/realtime/client.js';
import { fetchAs, localDoc, recordEvents, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';

describe('e2e SDK: stop() closes what the client had open', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('no live socket, no frame, no request after stop(); started again it catches up', async () => {
    const family = await makeFamily(sdk.app);
    const member = await makeMember(sdk.app, family);
    const api = restAs(sdk.app, member.token);
    const list = await api('POST', '/api/lists', { name: 'Stopped' });
    const sockets = () => sdk.app.deps.realtime!.hub.stats().sockets;
    let requests = 0;
    const base = fetchAs();
    const c = sdk.track(
      await signedInClient(sdk.app, family.admin, {
        fetch: (input, init) => {
          requests++;
          return base(input, init);
        },
      }),
    );
    // A plain live socket of the family, to know when a write's frame has gone out.
    const other = await TestSocket.connect(sdk.app, member.token);
    sdk.track({ close: async () => other.close() });
    await c.start();
    await waitFor(async () => (await localDoc(c, 'lists', list.id)) && c.state === 'idle' && c.online, 'in sync');
    expect(sockets()).to.equal(2);

    await c.stop();
    expect(c.state).to.equal('stopped');
    await waitFor(() => sockets() === 1, "the stopped client's socket closed", 10_000);
    const events = recordEvents(c);
    const sent = requests;

    const item = await api('POST', `/api/lists/${list.id}/items`, { name: 'While stopped' });
    await other.next((f) => f.type === 'Changed');
    const mine = newDoc('items', { listId: list.id, name: 'Written while stopped' });
    await c.db.items.insert(mine);
    await new Promise((r) => setTimeout(r, 500));
    expect(events.map((e) => e.type)).to.deep.equal([]);
    expect(await localDoc(c, 'items', item.id)).to.equal(undefined);
    expect(requests, 'requests sent after stop()').to.equal(sent);
    expect(sockets()).to.equal(1);

    await c.start();
    await c.awaitInSync();
    expect(await localDoc(c, 'items', item.id)).to.include({ name: 'While stopped' });
    expect(JSON.stringify(await api('GET', `/api/lists/${list.id}`))).to.include('Written while stopped');
    await waitFor(() => sockets() === 2, 'one socket each again');
  });
});
