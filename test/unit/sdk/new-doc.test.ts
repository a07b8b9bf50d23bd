// `newDoc(collection, fields)` (docs/sdk.md): what the caller names is kept, every other field of
// the collection's schema gets its empty value, and a field that has none must be named.
import { expect } from 'chai';
import { newDoc } from '@family-shopping/client';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('SDK: newDoc', () => {
  it('fills a fresh v4 id, null, false, 0, [], kind family and now for what is not named', () => {
    const before = new Date().toISOString();
    const item = newDoc('items', { listId: 'l1', name: 'Milk' });
    const after = new Date().toISOString();
    expect(item.id).to.match(UUID_V4);
    expect(item).to.deep.include({
      listId: 'l1',
      name: 'Milk',
      quantity: null,
      unitOfMeasureId: null,
      isApproximate: false,
      checked: false,
      sectionId: null,
      removedByUserId: null,
    });
    expect(item.createdAt >= before && item.createdAt <= after).to.equal(true);
    expect(item.updatedAt).to.equal(item.createdAt);
    expect(Object.keys(item).sort()).to.deep.equal(Object.keys(newDoc('items', { listId: 'x', name: 'y' })).sort());

    const product = newDoc('products', { name: 'Oats' });
    expect(product).to.deep.include({ kind: 'family', unitCategoryFlags: [], overridden: false, englishName: null });
    expect(newDoc('sections', { storeId: 's', name: 'Dairy' })).to.include({ position: 0, category: null });
    expect(newDoc('lists', { name: 'a' }).id).to.not.equal(newDoc('lists', { name: 'a' }).id);
  });

  it('keeps every named value, falsy ones too', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const named = { id: 'fixed-id', listId: 'l', name: '', quantity: 0, checked: true, createdAt: at, updatedAt: at };
    expect(newDoc('items', named)).to.include(named);
    expect(newDoc('units', { name: 'Crate', abbreviation: 'cr', category: 'Count', kind: 'family' })).to.include({
      code: null,
      kind: 'family',
    });
  });

  it('a field without an empty value must be named', () => {
    expect(() => newDoc('lists', {})).to.throw(TypeError, 'newDoc(lists): name is required');
    expect(() => newDoc('units', { name: 'Crate', category: 'Count' })).to.throw(
      TypeError,
      'newDoc(units): abbreviation is required',
    );
  });
});
