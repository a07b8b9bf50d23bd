// The lists the live channel joins for the app (client/list-joins.ts), seen as the frames the
// app gets: a list joined twice is joined once (one JoinedList); a list the server refused
// (not the family's) is forgotten, so a reconnect does not ask for it again, while the lists
// the app joined are joined again.
import { expect } from 'chai';
import { makeFamily } from '../../helpers/factories.js';
import type { FamilyClientEvent } from '@family-shopping/client';
import { recordEvents, restAs, sdkSuite, signedInClient, waitFor } from './helpers.js';
import { startProxy } from './proxy.js';

const answers = (events: FamilyClientEvent[], type: string, listId: string) =>
  events.filter(
    (e) =>
      e.type === 'frame' && e.frame.type === type && (e.frame as { requestId?: string }).requestId === `join:${listId}`,
  ).length;

describe('e2e SDK: the lists the live channel joins', function () {
  this.timeout(60_000);
  const sdk = sdkSuite();

  it('a list joined twice is joined once; a refused one is not asked for again after a reconnect', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const ours = await rest('POST', '/api/lists', { name: 'Ours' });
    const later = await rest('POST', '/api/lists', { name: 'Later' });
    const stranger = await makeFamily(sdk.app);
    const theirs = await restAs(sdk.app, stranger.admin.token)('POST', '/api/lists', { name: 'Theirs' });
    const proxy = sdk.track(await startProxy(sdk.app));
    const c = sdk.track(
      await signedInClient({ url: proxy.url }, family.admin, { backoff: { baseMs: 20, maxMs: 200 } }),
    );
    const events = recordEvents(c);
    await c.start();
    await waitFor(() => c.online, 'online');

    c.joinList(ours.id);
    c.joinList(ours.id.toUpperCase()); // the same list
    c.joinList(theirs.id);
    // Frames are answered in order: once the refusal is here, every join before it was answered.
    await waitFor(() => answers(events, 'Error', theirs.id) === 1, 'the foreign list refused');
    expect(answers(events, 'JoinedList', ours.id), 'joined once').to.equal(1);

    await proxy.cut();
    await waitFor(() => !c.online, 'offline');
    await proxy.restore();
    await waitFor(() => c.online, 'online again');
    // The joins of the reconnect go first; a join made after it is answered after them.
    c.joinList(later.id);
    await waitFor(() => answers(events, 'JoinedList', later.id) === 1, 'the list joined after the reconnect');
    expect(answers(events, 'JoinedList', ours.id), 'ours joined again').to.equal(2);
    expect(answers(events, 'Error', theirs.id), 'the refused list not asked for again').to.equal(1);
  });
});
