// The live channel (api-contract §5) at its edges: its path and limits, each frame's bounds,
// what a live patch may carry, and what a malformed frame decodes to.
import { expect } from 'chai';
import fc from 'fast-check';
import {
  AUTH_TIMEOUT_MS,
  COLLECTIONS,
  LIST_EVENT_TYPES,
  LIVE_PATCH_MAX_DOCS,
  LIVE_PATCH_MAX_FRAME_BYTES,
  OVERVIEW_EVENT_TYPES,
  REALTIME_PATH,
  changedFrameSchema,
  checkpointAtVersion,
  clientFrameSchema,
  decodeClientFrame,
  decodeServerFrame,
  encodeFrame,
  isCheckpointAtVersion,
  serverFrameSchema,
} from '@family-shopping/client/protocol';
import { arbDoc } from './arbitraries.js';
import { listRecord } from './records.js';

const L = '00000000-0000-4000-8000-0000000000aa';
const I = '00000000-0000-4000-8000-0000000000bb';
const LIST = listRecord({ id: L });

const clientOk = (frame: unknown) => decodeClientFrame(JSON.stringify(frame)).ok;
const serverOk = (frame: unknown) => decodeServerFrame(JSON.stringify(frame)).ok;

describe('protocol/realtime: path and limits', () => {
  it('has the path, the authentication window and the live patch bounds of the contract', () => {
    expect(REALTIME_PATH).to.equal('/api/realtime');
    expect(AUTH_TIMEOUT_MS).to.equal(10_000);
    expect(LIVE_PATCH_MAX_DOCS).to.equal(100);
    expect(LIVE_PATCH_MAX_FRAME_BYTES).to.equal(65536);
  });

  it('names the list group and the overview group events', () => {
    expect(LIST_EVENT_TYPES).to.deep.equal([
      'ItemAdded',
      'ItemUpdated',
      'ItemSectionChanged',
      'ItemChecked',
      'ItemRemoved',
      'ItemRestored',
    ]);
    expect(OVERVIEW_EVENT_TYPES).to.deep.equal([
      'ListCreated',
      'ListUpdated',
      'ListArchived',
      'ListDeleted',
      'ListProgress',
      'Changed',
    ]);
  });
});

describe('protocol/realtime: checkpoints of a version', () => {
  it('the end of a version is its last possible row id, as a pull that read everything returns', () => {
    expect(checkpointAtVersion(0)).to.deep.equal({ version: 0, id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' });
    expect(checkpointAtVersion(12)).to.deep.equal({ version: 12, id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' });
  });

  it('only a checkpoint of that version and that id stands at its end', () => {
    expect(isCheckpointAtVersion({ version: 12, id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' }, 12)).to.equal(true);
    expect(isCheckpointAtVersion({ version: 12, id: '' }, 12)).to.equal(false);
    expect(isCheckpointAtVersion({ version: 11, id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' }, 12)).to.equal(false);
    expect(isCheckpointAtVersion(undefined, 12)).to.equal(false);
    expect(isCheckpointAtVersion(null, 12)).to.equal(false);
  });
});

describe('protocol/realtime: client frame bounds', () => {
  it('a token of 1 to 8192 characters', () => {
    expect(clientOk({ type: 'Authenticate', token: 't'.repeat(8192) })).to.equal(true);
    expect(clientOk({ type: 'Authenticate', token: 't'.repeat(8193) })).to.equal(false);
    expect(clientOk({ type: 'Authenticate', token: 5 })).to.equal(false);
  });

  it('a request id: a string of up to 128 characters or a whole number', () => {
    for (const type of ['JoinList', 'Ping'] as const) {
      const base = type === 'JoinList' ? { type, listId: L } : { type };
      expect(clientOk({ ...base, requestId: 'r'.repeat(128) }), type).to.equal(true);
      expect(clientOk({ ...base, requestId: 'r'.repeat(129) }), type).to.equal(false);
      expect(clientOk({ ...base, requestId: 7 }), type).to.equal(true);
      expect(clientOk({ ...base, requestId: 1.5 }), type).to.equal(false);
      expect(clientOk({ ...base, requestId: true }), type).to.equal(false);
    }
    expect(clientFrameSchema.parse({ type: 'JoinList', listId: L, requestId: 3 })).to.deep.equal({
      type: 'JoinList',
      listId: L,
      requestId: 3,
    });
  });

  it('JoinList and LeaveList need a list uuid', () => {
    for (const type of ['JoinList', 'LeaveList']) {
      expect(clientOk({ type, listId: L }), type).to.equal(true);
      expect(clientOk({ type }), type).to.equal(false);
      expect(clientOk({ type, listId: 'x' }), type).to.equal(false);
    }
    expect(clientFrameSchema.parse({ type: 'LeaveList', listId: L, requestId: 'r' })).to.deep.equal({
      type: 'LeaveList',
      listId: L,
    });
  });

  it('not JSON says so; an invalid frame names what is wrong', () => {
    expect(decodeClientFrame('{')).to.deep.equal({ ok: false, error: 'frame is not valid JSON' });
    expect(decodeServerFrame('')).to.deep.equal({ ok: false, error: 'frame is not valid JSON' });
    const r = decodeClientFrame('{"type":"Authenticate"}');
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.error).to.include('token');
  });
});

describe('protocol/realtime: server frame bounds', () => {
  it('each frame needs its fields; ids are uuids', () => {
    const ok = [
      { type: 'Authenticated', familyId: L },
      { type: 'JoinedList', listId: L, requestId: 2 },
      { type: 'Pong', requestId: 2 },
      { type: 'Error', code: 'x', message: 'm', requestId: 'r' },
      { type: 'ItemSectionChanged', listId: L, itemId: I, sectionId: null, previousSectionId: I },
      { type: 'ItemRemoved', listId: L, itemId: I, removedByUserId: null },
      { type: 'ListArchived', listId: L },
      { type: 'ListDeleted', listId: L },
      { type: 'ListProgress', listId: L, itemCount: 0, checkedCount: 0 },
      { type: 'ListCreated', list: { ...LIST, itemCount: 0, checkedCount: 0 } },
    ];
    for (const f of ok) {
      expect(decodeServerFrame(JSON.stringify(f)), f.type).to.deep.equal({ ok: true, frame: f });
    }
    for (const bad of [
      { type: 'Authenticated' },
      { type: 'Authenticated', familyId: 'x' },
      { type: 'JoinedList' },
      { type: 'JoinedList', listId: L, requestId: 'r'.repeat(129) },
      { type: 'Pong', requestId: false },
      { type: 'Error' },
      { type: 'Error', code: 'x', message: 5 },
      { type: 'Error', code: 'x', requestId: [] },
      { type: 'ItemSectionChanged', listId: L, itemId: I, sectionId: 'x', previousSectionId: null },
      { type: 'ItemSectionChanged', listId: L, itemId: I, sectionId: null },
      { type: 'ItemSectionChanged', listId: L, sectionId: null, previousSectionId: null },
      { type: 'ItemChecked', listId: L, checked: true },
      { type: 'ItemChecked', itemId: I, checked: true },
      { type: 'ItemRemoved', listId: L, itemId: I },
      { type: 'ItemRemoved', listId: L, itemId: I, removedByUserId: 'x' },
      { type: 'ItemRemoved', listId: 'x', itemId: I, removedByUserId: null },
      { type: 'ItemAdded', item: {} },
      { type: 'ItemUpdated', listId: L },
      { type: 'ItemRestored', listId: L },
      { type: 'ListArchived' },
      { type: 'ListArchived', listId: 'x' },
      { type: 'ListDeleted', listId: 'x' },
      { type: 'ListProgress', listId: L, itemCount: -1, checkedCount: 0 },
      { type: 'ListProgress', listId: L, itemCount: 1, checkedCount: -1 },
      { type: 'ListProgress', listId: L, itemCount: 1.5, checkedCount: 0 },
      { type: 'ListProgress', itemCount: 1, checkedCount: 0 },
      { type: 'ListCreated', list: { ...LIST, itemCount: -1 } },
      { type: 'ListUpdated', list: { ...LIST, checkedCount: -1 } },
      { type: 'ListUpdated', list: { ...LIST, itemCount: 0.5 } },
      { type: 'ListCreated', list: { id: L } },
      { type: 'ListUpdated' },
      { type: 'Changed' },
      { type: 'Changed', version: 1.5 },
      { type: 'Changed', version: 2, previous: 0.5 },
      { type: 'Changed', version: 2, collections: ['nope'] },
      { type: 'Changed', version: 2, collections: 'items' },
    ]) {
      expect(serverOk(bad), JSON.stringify(bad)).to.equal(false);
    }
  });

  it('a list event: the list record, counts optional', () => {
    expect(decodeServerFrame(JSON.stringify({ type: 'ListUpdated', list: LIST }))).to.deep.equal({
      ok: true,
      frame: { type: 'ListUpdated', list: LIST },
    });
  });

  it('Changed: version from 0, any collection named, a patch of any collection with its checkpoint', () => {
    expect(serverOk({ type: 'Changed', version: 0, previous: 0, collections: [...COLLECTIONS] })).to.equal(true);
    for (const c of COLLECTIONS) {
      const [doc] = fc.sample(arbDoc(c), { numRuns: 1, seed: 5 });
      const frame = {
        type: 'Changed' as const,
        version: 3,
        previous: 2,
        collections: [c],
        docs: { [c]: { documents: [doc], checkpoint: checkpointAtVersion(3) } },
      };
      expect(decodeServerFrame(encodeFrame(frame as never)), c).to.deep.equal({ ok: true, frame });
      expect(
        changedFrameSchema.safeParse({
          ...frame,
          docs: { [c]: { documents: [{ id: I }], checkpoint: checkpointAtVersion(3) } },
        }).success,
        c,
      ).to.equal(false);
      expect(changedFrameSchema.safeParse({ ...frame, docs: { [c]: { documents: [doc] } } }).success, c).to.equal(
        false,
      );
    }
  });

  it('a client frame is not a server frame, nor the other way round', () => {
    expect(serverFrameSchema.safeParse({ type: 'Ping' }).success).to.equal(false);
    expect(clientFrameSchema.safeParse({ type: 'Pong' }).success).to.equal(false);
  });
});
