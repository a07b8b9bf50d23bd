// The merge's notions of equality (api-contract §6), which decide whether RxDB sees a conflict
// or pushes at all: field equality (sets, instants), client-field and stamp equality, and the
// conflict handler's isEqual before a push. Plus the removal rule's edges that merge.test.ts
// does not reach: the spelling a restore keeps, and a removal made again after a remote restore.
import { expect } from 'chai';
import {
  conflictHandlerFor,
  docsEqual,
  fieldEqual,
  mergeDoc,
  parseDoc,
  stampsEqual,
  type ItemDoc,
} from '@family-shopping/client/protocol';
import { itemRecord } from './records.js';

const T1 = '2024-05-01T10:00:00.000Z';
const T1_SHORT = '2024-05-01T10:00:00Z';
const T2 = '2024-05-01T11:00:00.000Z';

function item(over: Partial<ItemDoc> = {}): ItemDoc {
  return parseDoc('items', { ...itemRecord(), _deleted: false, ...over });
}

describe('protocol/merge: equality of fields', () => {
  it('flags compare as sets: the same members in any order, and no others', () => {
    expect(fieldEqual('unitCategoryFlags', ['Weight', 'Count'], ['Count', 'Weight'])).to.equal(true);
    expect(fieldEqual('unitCategoryFlags', ['Count'], ['Weight'])).to.equal(false);
    expect(fieldEqual('unitCategoryFlags', ['Count', 'Weight'], ['Count', 'Volume'])).to.equal(false);
    expect(fieldEqual('unitCategoryFlags', ['Count'], ['Count', 'Weight'])).to.equal(false);
  });

  it('only `…At` fields compare by instant; other texts compare as written', () => {
    expect(fieldEqual('removedAt', T1, T1_SHORT)).to.equal(true);
    expect(fieldEqual('removedAt', T1, '2024-05-01T12:00:00+02:00')).to.equal(true);
    expect(fieldEqual('removedAt', 'not a time', 'not a time!')).to.equal(false);
    expect(fieldEqual('name', T1, T1_SHORT)).to.equal(false);
    expect(fieldEqual('quantityNote', T1, T1_SHORT)).to.equal(false);
  });

  it('null and missing are the same; null and a value are not', () => {
    expect(fieldEqual('sectionId', null, undefined)).to.equal(true);
    expect(fieldEqual('sectionId', null, 'x')).to.equal(false);
    expect(fieldEqual('removedAt', T1, null)).to.equal(false);
  });
});

describe('protocol/merge: equality of docs and of stamps', () => {
  it('stamps: every server-stamped field counts, client fields and RxDB’s bookkeeping do not', () => {
    const a = item();
    expect(stampsEqual('items', a, item())).to.equal(true);
    expect(stampsEqual('items', a, item({ name: 'Oat milk', checked: true, quantity: 3 }))).to.equal(true);
    expect(stampsEqual('items', a, item({ updatedAt: T1 }))).to.equal(false);
    expect(stampsEqual('items', a, item({ checkedAt: T1 }))).to.equal(false);
    expect(stampsEqual('items', a, item({ updatedAt: '2024-05-01T09:00:00Z' }))).to.equal(true);
    const stored = { ...a, _rev: '2-abc', _meta: { lwt: 1 }, _attachments: {} } as unknown as ItemDoc;
    const other = { ...a, _rev: '3-def', _meta: { lwt: 2 }, _attachments: { x: 1 } } as unknown as ItemDoc;
    expect(stampsEqual('items', stored, other)).to.equal(true);
    expect(stampsEqual('items', stored, a)).to.equal(true);
    // Who removed an item is a stamp too.
    const extra = { ...a, removedByUserId: '11111111-1111-4111-8111-111111111111' } as ItemDoc;
    expect(stampsEqual('items', a, extra)).to.equal(false);
    expect(stampsEqual('items', extra, a)).to.equal(false);
  });

  it('isEqual: the client fields; before a push, the stamps too', () => {
    const handler = conflictHandlerFor('items');
    const a = item();
    expect(handler.isEqual(a, item())).to.equal(true);
    expect(handler.isEqual(a, item({ name: 'Oat milk' }))).to.equal(false);
    expect(handler.isEqual(a, item({ name: 'Oat milk' }), 'upstream-check-if-equal')).to.equal(false);
    expect(docsEqual('items', a, item({ updatedAt: T1 }))).to.equal(true);
    expect(handler.isEqual(a, item({ updatedAt: T1 }))).to.equal(true);
    expect(handler.isEqual(a, item({ updatedAt: T1 }), 'downstream-check-if-equal-0')).to.equal(true);
    expect(handler.isEqual(a, item({ updatedAt: T1 }), 'upstream-check-if-equal')).to.equal(false);
    expect(handler.isEqual(a, item(), 'upstream-check-if-equal')).to.equal(true);
  });
});

describe('protocol/merge: removal edges', () => {
  it('a restore of the removal the device saw takes remote’s spelling when both sides agree', () => {
    // The device saw the removal (spelled …00Z), the server holds the same instant spelled
    // …00.000Z, and the device's copy still holds it: nothing changed, remote's bytes are kept.
    const base = item({ removedAt: T1_SHORT });
    const local = item({ removedAt: '2024-05-01T12:00:00+02:00' });
    const remote = item({ removedAt: T1 });
    expect(mergeDoc('items', { base, local, remote }).removedAt).to.equal(T1);
  });

  it('a removal made again on the device after the server restored the item stays', () => {
    const base = item({ removedAt: T1 });
    const local = item({ removedAt: T2 });
    const remote = item({ removedAt: null });
    expect(mergeDoc('items', { base, local, remote }).removedAt).to.equal(T2);
    // The device did not touch the removal: the server's restore is kept.
    expect(mergeDoc('items', { base, local: item({ removedAt: T1, name: 'Oat milk' }), remote })).to.include({
      removedAt: null,
      name: 'Oat milk',
    });
  });
});
