import { expect } from 'chai';
import {
  conflictHandlerFor,
  RefusedRows,
  docsEqual,
  fieldEqual,
  mergeDoc,
  parseDoc,
  type Doc,
  type ItemDoc,
} from '@family-shopping/client/protocol';
import { T0, itemRecord } from './records.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const SEC_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const SEC_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const T1 = '2024-05-01T10:00:00.000Z';
const T2 = '2024-05-01T11:00:00.000Z';
const T3 = '2024-05-01T12:00:00.000Z';

function item(over: Partial<ItemDoc> = {}): ItemDoc {
  return parseDoc('items', { ...itemRecord(), _deleted: false, ...over });
}

describe('protocol/merge: mergeDoc examples', () => {
  it('keeps a change made on the local side only', () => {
    const base = item();
    const local = item({ name: 'Oat milk' });
    const remote = item({ updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out.name).to.equal('Oat milk');
    expect(out.updatedAt).to.equal(T1); // server field from remote
  });

  it('keeps a change made on the remote side only', () => {
    const base = item();
    const local = item({ name: 'Oat milk' });
    const remote = item({ checked: true, checkedAt: T1, quantity: 3, updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ name: 'Oat milk', checked: true, checkedAt: T1, quantity: 3 });
  });

  it('takes the local (newer push) value for a field changed on both sides', () => {
    const base = item({ quantity: 1, sectionId: null });
    const local = item({ quantity: 2, sectionId: SEC_A });
    const remote = item({ quantity: 3, sectionId: SEC_B, updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ quantity: 2, sectionId: SEC_A });
  });

  it('checkedAt follows remote even when checked comes from local', () => {
    const base = item({ checked: true, checkedAt: T1 });
    const local = item({ checked: false, checkedAt: T1 });
    const remote = item({ checked: true, checkedAt: T1, name: 'Bread', updatedAt: T2 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ checked: false, checkedAt: T1, name: 'Bread' });
  });

  it('a concurrent removal wins over an offline edit (and the edit is kept)', () => {
    const base = item();
    const local = item({ name: 'Milk (2)', checked: true });
    const remote = item({ removedAt: T1, removedByUserId: U2, updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ removedAt: T1, removedByUserId: U2, name: 'Milk (2)', checked: true });
  });

  it('a removal the local side never saw beats its own concurrent removal', () => {
    const base = item();
    const local = item({ removedAt: T2 });
    const remote = item({ removedAt: T1, removedByUserId: U2, updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ removedAt: T1, removedByUserId: U2 });
  });

  it('a local removal of an item that is active on the server wins', () => {
    const base = item();
    const local = item({ removedAt: T2 });
    const remote = item({ name: 'Bread', updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ removedAt: T2, name: 'Bread' });
  });

  it('a removal the local side never saw beats its re-removal of an older one', () => {
    const base = item({ removedAt: T1, removedByUserId: U1 });
    const local = item({ removedAt: T3 }); // restored T1 offline, then removed again
    const remote = item({ removedAt: T2, removedByUserId: U2, updatedAt: T2 });
    expect(mergeDoc('items', { base, local, remote })).to.include({ removedAt: T2, removedByUserId: U2 });
  });

  it('a client that saw the removal may re-remove it (restore, then remove offline)', () => {
    const base = item({ removedAt: T1, removedByUserId: U1 });
    const local = item({ removedAt: T3 });
    const remote = item({ removedAt: T1, removedByUserId: U1, updatedAt: T2 });
    expect(mergeDoc('items', { base, local, remote }).removedAt).to.equal(T3);
  });

  it('restores when the client saw exactly the removal it clears', () => {
    const base = item({ removedAt: T1, removedByUserId: U2 });
    const local = item({ removedAt: null, removedByUserId: U2 });
    const remote = item({ removedAt: T1, removedByUserId: U2, quantity: 5, updatedAt: T2 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out.removedAt).to.equal(null);
    expect(out.quantity).to.equal(5);
  });

  it('a restore compares removal instants, not spellings', () => {
    const base = item({ removedAt: '2024-05-01T10:00:00Z' });
    const local = item({ removedAt: null });
    const remote = item({ removedAt: '2024-05-01T12:00:00.000+02:00', updatedAt: T2 });
    expect(mergeDoc('items', { base, local, remote }).removedAt).to.equal(null);
  });

  it('does not restore a newer removal than the one the client saw', () => {
    const base = item({ removedAt: T1, removedByUserId: U1 });
    const local = item({ removedAt: null });
    const remote = item({ removedAt: T3, removedByUserId: U2, updatedAt: T3 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ removedAt: T3, removedByUserId: U2 });
  });

  it('does not restore a removal the client never saw (restore of an older state)', () => {
    const base = item({ removedAt: null });
    const local = item({ removedAt: null, name: 'x' });
    const remote = item({ removedAt: T1, removedByUserId: U2, updatedAt: T1 });
    expect(mergeDoc('items', { base, local, remote }).removedAt).to.equal(T1);
  });

  it('keeps a restore done remotely when local did not touch removedAt', () => {
    const base = item({ removedAt: T1, removedByUserId: U1 });
    const local = item({ removedAt: T1, removedByUserId: U1, name: 'Eggs' });
    const remote = item({ removedAt: null, updatedAt: T2 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ removedAt: null, name: 'Eggs' });
  });

  it('a remote hard delete wins over everything', () => {
    const base = item();
    const local = item({ name: 'Oat milk', removedAt: T2 });
    const remote = item({ _deleted: true, updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.deep.equal(remote);
    expect(out).not.to.equal(remote); // a copy
  });

  it('a local hard delete wins when the server row is alive', () => {
    const base = item();
    const local = item({ _deleted: true });
    const remote = item({ name: 'Bread', updatedAt: T1 });
    const out = mergeDoc('items', { base, local, remote });
    expect(out).to.include({ _deleted: true, name: 'Bread' });
  });

  describe('without a base (insert of an id that already exists on the server)', () => {
    it('local values win wherever they differ from remote', () => {
      const local = item({ name: 'Oat milk', quantity: 2 });
      const remote = item({ name: 'Milk', quantity: 1, checked: true, checkedAt: T1, updatedAt: T1 });
      const out = mergeDoc('items', { base: null, local, remote });
      expect(out).to.include({ name: 'Oat milk', quantity: 2, checked: false, checkedAt: T1, updatedAt: T1 });
      expect(mergeDoc('items', { local, remote })).to.deep.equal(out);
    });

    it('a removed server doc stays removed (the inserting client saw no removal)', () => {
      const local = item({ removedAt: null });
      const remote = item({ removedAt: T1, removedByUserId: U2, updatedAt: T1 });
      expect(mergeDoc('items', { local, remote })).to.include({ removedAt: T1, removedByUserId: U2 });
    });

    it('an inserted removed doc removes an active server doc', () => {
      const local = item({ removedAt: T2 });
      const remote = item({ updatedAt: T1 });
      expect(mergeDoc('items', { local, remote }).removedAt).to.equal(T2);
    });
  });

  it('merges other collections field by field too', () => {
    const base: Doc<'products'> = parseDoc('products', {
      id: UUID('p'),
      kind: 'global',
      name: 'Apples',
      englishName: 'Apples',
      unitCategoryFlags: ['Count', 'Weight'],
      category: 'produce',
      overridden: false,
      createdAt: T0,
      updatedAt: T0,
      _deleted: false,
    });
    const local = { ...base, name: 'Green apples' };
    const remote = {
      ...base,
      unitCategoryFlags: ['Weight' as const],
      category: 'snacks' as const,
      overridden: true,
      updatedAt: T1,
    };
    const out = mergeDoc('products', { base, local, remote });
    expect(out).to.deep.equal({ ...remote, name: 'Green apples' });
  });

  it('does not mutate its inputs', () => {
    const base = item();
    const local = item({ name: 'a', removedAt: T1 });
    const remote = item({ name: 'b', removedAt: T2, updatedAt: T2 });
    const snapshot = structuredClone({ base, local, remote });
    mergeDoc('items', { base, local, remote });
    expect({ base, local, remote }).to.deep.equal(snapshot);
  });
});

describe('protocol/merge: docsEqual / fieldEqual', () => {
  it('ignores server-stamped fields', () => {
    expect(docsEqual('items', item(), item({ updatedAt: T3, checkedAt: T2, removedByUserId: U1 }))).to.equal(true);
    expect(docsEqual('items', item(), item({ checked: true }))).to.equal(false);
    expect(docsEqual('items', item(), item({ _deleted: true }))).to.equal(false);
  });

  it('compares timestamps by instant and flags as sets', () => {
    expect(fieldEqual('removedAt', '2024-05-01T10:00:00Z', '2024-05-01T10:00:00.000Z')).to.equal(true);
    expect(fieldEqual('removedAt', '2024-05-01T10:00:00Z', '2024-05-01T10:00:01Z')).to.equal(false);
    expect(fieldEqual('removedAt', null, undefined)).to.equal(true);
    expect(fieldEqual('removedAt', null, T1)).to.equal(false);
    expect(fieldEqual('unitCategoryFlags', ['Count', 'Weight'], ['Weight', 'Count'])).to.equal(true);
    expect(fieldEqual('unitCategoryFlags', ['Count'], ['Count', 'Weight'])).to.equal(false);
    expect(fieldEqual('name', 'Milk', 'milk')).to.equal(false);
    expect(fieldEqual('quantity', 0, null)).to.equal(false);
  });

  it('conflictHandlerFor adapts mergeDoc and docsEqual to RxDB', async () => {
    const h = conflictHandlerFor('items');
    expect(h.isEqual(item(), item({ updatedAt: T1 }))).to.equal(true);
    const base = item();
    const out = await h.resolve({
      assumedMasterState: base,
      newDocumentState: item({ name: 'a' }),
      realMasterState: item({ removedAt: T1, updatedAt: T1 }),
    });
    expect(out).to.include({ name: 'a', removedAt: T1 });
  });

  it('conflictHandlerFor takes the server state as is for a refused row, once', async () => {
    const refused = new RefusedRows();
    const h = conflictHandlerFor('items', refused);
    const base = item();
    const input = {
      assumedMasterState: base,
      newDocumentState: item({ name: 'refused' }),
      realMasterState: item({ updatedAt: T1 }),
    };
    refused.note('items', [base.id]);
    refused.note('lists', [base.id]); // another collection's refusal is not this one's
    expect(await h.resolve(input)).to.deep.equal(input.realMasterState);
    // A later conflict of the same doc merges again (the refusal was taken).
    expect(await h.resolve(input)).to.include({ name: 'refused' });
  });
});

function UUID(seed: string): string {
  const hex = Buffer.from(seed).toString('hex').padEnd(12, '0').slice(0, 12);
  return `00000000-0000-4000-8000-${hex}`;
}
