import { expect } from 'chai';
import fc from 'fast-check';
import {
  CLOSE_CODES,
  LIST_EVENT_TYPES,
  MAX_CLIENT_FRAME_BYTES,
  OVERVIEW_EVENT_TYPES,
  clientFrameSchema,
  decodeClientFrame,
  decodeServerFrame,
  encodeFrame,
  serverFrameSchema,
  checkpointAtVersion,
  isCheckpointAtVersion,
  type ServerFrame,
} from '@family-shopping/client/protocol';
import { arbDoc } from './arbitraries.js';
import { listRecord } from './records.js';

const L = '00000000-0000-4000-8000-0000000000aa';
const I = '00000000-0000-4000-8000-0000000000bb';
const S = '00000000-0000-4000-8000-0000000000cc';

describe('protocol/realtime', () => {
  it('has the close codes and frame limit of the contract', () => {
    expect(CLOSE_CODES).to.deep.equal({
      GOING_AWAY: 1001,
      MESSAGE_TOO_BIG: 1009,
      SERVICE_RESTART: 1012,
      PROTOCOL_ERROR: 4400,
      UNAUTHENTICATED: 4401,
      REMOVED_FROM_FAMILY: 4403,
      SLOW_CONSUMER: 4408,
      TOO_MANY_SOCKETS: 4429,
    });
    expect(MAX_CLIENT_FRAME_BYTES).to.equal(65536);
  });

  it('parses client frames', () => {
    expect(decodeClientFrame('{"type":"Authenticate","token":"abc"}')).to.deep.equal({
      ok: true,
      frame: { type: 'Authenticate', token: 'abc' },
    });
    expect(decodeClientFrame(JSON.stringify({ type: 'JoinList', listId: L, requestId: 'r1' }))).to.deep.include({
      ok: true,
    });
    expect(decodeClientFrame(JSON.stringify({ type: 'JoinList', listId: L, requestId: 7 }))).to.deep.include({
      ok: true,
    });
    expect(decodeClientFrame('{"type":"Ping","requestId":"p1"}')).to.deep.equal({
      ok: true,
      frame: { type: 'Ping', requestId: 'p1' },
    });
    expect(decodeClientFrame('{"type":"Ping"}')).to.deep.equal({ ok: true, frame: { type: 'Ping' } });
    expect(clientFrameSchema.parse({ type: 'LeaveList', listId: L, extra: 1 })).to.deep.equal({
      type: 'LeaveList',
      listId: L,
    });
    for (const bad of [
      'not json',
      '[]',
      '{"type":"Authenticate"}',
      '{"type":"Authenticate","token":""}',
      '{"type":"JoinList","listId":"nope"}',
      '{"type":"Shout"}',
      '{"token":"abc"}',
      JSON.stringify({ type: 'Authenticated', familyId: L }), // a server frame
    ]) {
      const r = decodeClientFrame(bad);
      expect(r.ok, bad).to.equal(false);
      if (!r.ok) expect(r.error).to.be.a('string').and.not.equal('');
    }
  });

  it('parses every server frame type, and round-trips through encodeFrame', () => {
    const [item] = fc.sample(arbDoc('items'), { numRuns: 1, seed: 3 });
    const { _deleted, ...itemRecord } = item!;
    void _deleted;
    const list = listRecord({ id: L });
    const frames: ServerFrame[] = [
      { type: 'Authenticated', familyId: L },
      { type: 'JoinedList', listId: L, requestId: 'r1' },
      { type: 'JoinedList', listId: L },
      { type: 'Error', code: 'not_found', requestId: 'r2' },
      { type: 'Error', code: 'bad_frame', message: 'expected Authenticate' },
      { type: 'ItemAdded', listId: L, item: itemRecord },
      { type: 'ItemUpdated', listId: L, item: itemRecord },
      { type: 'ItemSectionChanged', listId: L, itemId: I, sectionId: S, previousSectionId: null },
      { type: 'ItemChecked', listId: L, itemId: I, checked: true },
      { type: 'ItemRemoved', listId: L, itemId: I, removedByUserId: S },
      { type: 'ItemRestored', listId: L, item: itemRecord },
      { type: 'ListCreated', list },
      { type: 'ListUpdated', list: { ...list, itemCount: 3, checkedCount: 1 } },
      { type: 'ListArchived', listId: L },
      { type: 'ListDeleted', listId: L },
      { type: 'ListProgress', listId: L, itemCount: 3, checkedCount: 1 },
      { type: 'Changed', version: 42 },
      { type: 'Changed', version: 42, previous: 41, collections: ['items'] },
      {
        type: 'Changed',
        version: 42,
        previous: 41,
        collections: ['items'],
        docs: { items: { documents: [{ ...item!, _deleted: false }], checkpoint: checkpointAtVersion(42) } },
      },
      { type: 'Pong', requestId: 'p1' },
      { type: 'Pong' },
    ];
    const seen = new Set(frames.map((f) => f.type));
    for (const t of [...LIST_EVENT_TYPES, ...OVERVIEW_EVENT_TYPES, 'Authenticated', 'JoinedList', 'Pong', 'Error']) {
      expect(seen.has(t as ServerFrame['type']), t).to.equal(true);
    }
    for (const f of frames) {
      expect(decodeServerFrame(encodeFrame(f)), f.type).to.deep.equal({ ok: true, frame: f });
    }
  });

  it('a live patch checkpoint stands at the end of a version; a mid-walk one does not', () => {
    expect(isCheckpointAtVersion(checkpointAtVersion(7), 7)).to.equal(true);
    expect(isCheckpointAtVersion(checkpointAtVersion(7), 6)).to.equal(false);
    expect(isCheckpointAtVersion({ version: 7, id: `${I}/9` }, 7)).to.equal(false);
    expect(isCheckpointAtVersion(null, 0)).to.equal(false);
  });

  it('rejects malformed server frames', () => {
    for (const bad of [
      { type: 'Changed', version: -1 },
      { type: 'Changed', version: 2, previous: -1 },
      {
        type: 'Changed',
        version: 2,
        previous: 1,
        docs: { items: { documents: [{ id: I }], checkpoint: checkpointAtVersion(2) } },
      },
      { type: 'Changed', version: 2, previous: 1, docs: { items: { documents: [] } } },
      { type: 'ListProgress', listId: L, itemCount: 1 },
      { type: 'ItemAdded', listId: L, item: { id: I } },
      { type: 'ItemChecked', listId: L, itemId: I, checked: 'yes' },
      { type: 'Unknown' },
    ]) {
      expect(serverFrameSchema.safeParse(bad).success, JSON.stringify(bad)).to.equal(false);
    }
  });
});
