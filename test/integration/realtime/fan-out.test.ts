// One commit's frames fanned out to many sockets (each frame encoded once for its audience and a
// socket's frames written together): every socket gets exactly its audience's frames, in the
// commit's order, with the same content; a member removed in the middle of a commit gets the
// frames before the removal and nothing after; another family gets nothing.
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { familyWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import type { RunningServer } from '../../../server/server.js';
import type { FamilyEvent } from '../../../server/events/bus.js';
import { TestSocket, type Frame } from './client.js';

describe('realtime: fan-out of a commit', function () {
  let app: RunningServer;
  const sockets: TestSocket[] = [];
  const connect = async (token: string) => {
    const s = await TestSocket.connect(app, token);
    sockets.push(s);
    return s;
  };
  /** The frames after authentication and joins, without the type-only frames of the setup. */
  const events = (s: TestSocket): Frame[] =>
    s.frames.filter((f) => !['Authenticated', 'JoinedList'].includes(f.type) && f.requestId === undefined);

  before(async () => {
    app = await testApp();
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });

  it("each socket gets its audience's frames in commit order; a member removed mid-commit gets none after", async () => {
    const f = await makeFamily(app);
    const member = await makeMember(app, f);
    const other = await makeFamily(app);
    const list = newId();
    const theirs = newId();
    await familyWrite(app.deps, f.familyId, (w) => w.insert('shopping_lists', { id: list, name: 'Weekly' }));
    await familyWrite(app.deps, other.familyId, (w) => w.insert('shopping_lists', { id: theirs, name: 'Weekly' }));

    const admins = await Promise.all(Array.from({ length: 6 }, () => connect(f.admin.token)));
    for (const s of admins.slice(0, 3)) await s.join(list);
    const memberJoined = await connect(member.token);
    await memberJoined.join(list);
    const memberOverview = await connect(member.token);
    const stranger = await connect(other.admin.token);
    await stranger.join(theirs);

    const [a, b] = [newId(), newId()];
    const commit: FamilyEvent[] = [
      { type: 'ItemChecked', listId: list, itemId: a, checked: true },
      { type: 'ListProgress', listId: list, itemCount: 2, checkedCount: 1 },
      { type: 'MemberRemoved', userId: member.userId },
      { type: 'ItemChecked', listId: list, itemId: b, checked: true },
      { type: 'ListProgress', listId: list, itemCount: 2, checkedCount: 2 },
    ];
    await familyWrite(app.deps, f.familyId, async (w) => {
      for (const e of commit) w.emit(e);
    });

    const [checkedA, progress1, , checkedB, progress2] = commit;
    for (const s of admins) await s.next((e) => e.type === 'Changed');
    const changed = admins[0]!.ofType('Changed')[0]!;
    // Joined: the list events and the overview; overview only: the overview.
    for (const s of admins.slice(0, 3)) {
      expect(events(s)).to.deep.equal([checkedA, progress1, checkedB, progress2, changed]);
    }
    for (const s of admins.slice(3)) expect(events(s)).to.deep.equal([progress1, progress2, changed]);

    // The removed member: what came before the removal, then the close; nothing after it.
    expect((await memberJoined.closed).code).to.equal(4403);
    expect((await memberOverview.closed).code).to.equal(4403);
    expect(events(memberJoined)).to.deep.equal([checkedA, progress1]);
    expect(events(memberOverview)).to.deep.equal([progress1]);

    await stranger.sync();
    expect(events(stranger)).to.deep.equal([]);
  });
});
