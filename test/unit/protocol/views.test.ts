// The protocol's shared views and field rules as pure functions: the grouping and order of a
// list detail, list summaries, product search, unit order, derived ids, and the rules' edges.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_SECTIONS,
  UNCATEGORIZED,
  defaultSectionId,
  itemAddInput,
  listCreateInput,
  listDetail,
  listSummaries,
  sectionMemoryId,
  searchProducts,
  sortUnits,
  type DocData,
} from '@family-shopping/client/protocol';
import { itemRecord } from './records.js';

const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

function list(fields: Partial<DocData<'lists'>> = {}): DocData<'lists'> {
  return { id: randomUUID(), name: 'L', storeId: null, archivedAt: null, createdAt: t(0), updatedAt: t(0), ...fields };
}
function item(listId: string, fields: Partial<DocData<'items'>> = {}): DocData<'items'> {
  return itemRecord({
    id: randomUUID(),
    listId,
    name: 'I',
    quantity: null,
    createdAt: t(0),
    updatedAt: t(0),
    ...fields,
  });
}
function section(storeId: string, name: string, position: number): DocData<'sections'> {
  return { id: randomUUID(), storeId, name, position, category: null, createdAt: t(0), updatedAt: t(0) };
}

describe('protocol/views', () => {
  it('listDetail: sections with active items in walking order, then Uncategorized; unchecked first, then createdAt', () => {
    const storeId = randomUUID();
    const l = list({ storeId });
    const [dairy, produce, bakery] = [
      section(storeId, 'Dairy', 4),
      section(storeId, 'Produce', 0),
      section(storeId, 'Bakery', 1),
    ];
    const milk = item(l.id, { name: 'Milk', sectionId: dairy!.id, createdAt: t(5) });
    const cream = item(l.id, { name: 'Cream', sectionId: dairy!.id, createdAt: t(1), checked: true });
    const butter = item(l.id, { name: 'Butter', sectionId: dairy!.id, createdAt: t(9) });
    const apple = item(l.id, { name: 'Apple', sectionId: produce!.id });
    const gone = item(l.id, { name: 'Gone', sectionId: bakery!.id, removedAt: t(3) });
    const loose = item(l.id, { name: 'Loose' });
    const elsewhere = item(randomUUID(), { name: 'Other list' });
    const detail = listDetail(l, [dairy!, produce!, bakery!], [milk, cream, butter, apple, gone, loose, elsewhere]);
    expect(detail.groups.map((g) => [g.name, g.position, g.items.map((i) => i.name)])).to.deep.equal([
      ['Produce', 0, ['Apple']],
      ['Dairy', 4, ['Milk', 'Butter', 'Cream']],
      [UNCATEGORIZED, null, ['Loose']],
    ]);
    expect(detail).to.include({ id: l.id, name: 'L', storeId });
    // A list without a store: every item uncategorized.
    const bare = listDetail({ ...l, storeId: null }, [dairy!], [milk]);
    expect(bare.groups.map((g) => g.sectionId)).to.deep.equal([null]);
  });

  it('listSummaries: newest first, active items counted, archived filtered', () => {
    const a = list({ name: 'A', createdAt: t(1) });
    const b = list({ name: 'B', createdAt: t(2) });
    const c = list({ name: 'C', createdAt: t(3), archivedAt: t(4) });
    const items = [item(a.id), item(a.id, { checked: true }), item(a.id, { removedAt: t(5) }), item(c.id)];
    expect(listSummaries([a, b, c], items).map((s) => [s.name, s.itemCount, s.checkedCount])).to.deep.equal([
      ['B', 0, 0],
      ['A', 2, 1],
    ]);
    expect(listSummaries([a, b, c], items, { archived: true }).map((s) => s.name)).to.deep.equal(['C']);
  });

  it('searchProducts: case-insensitive substring, prefix matches first, then by name; limit', () => {
    const p = (name: string): DocData<'products'> => ({
      id: randomUUID(),
      kind: 'family',
      name,
      englishName: null,
      unitCategoryFlags: [],
      category: null,
      overridden: false,
      createdAt: t(0),
      updatedAt: t(0),
    });
    const all = ['Pineapple', 'apple juice', 'Apples', 'Bread', 'Crab apple'].map(p);
    expect(searchProducts(all, ' APP ').map((x) => x.name)).to.deep.equal([
      'apple juice',
      'Apples',
      'Crab apple',
      'Pineapple',
    ]);
    expect(searchProducts(all, '', 2).map((x) => x.name)).to.deep.equal(['apple juice', 'Apples']);
  });

  it('searchProducts: also matches the English name, ordered by the name', () => {
    const g = (name: string, englishName: string | null): DocData<'products'> => ({
      id: randomUUID(),
      kind: 'global',
      name,
      englishName,
      unitCategoryFlags: [],
      category: null,
      overridden: englishName === null,
      createdAt: t(0),
      updatedAt: t(0),
    });
    const all = [
      g('Milch', 'Milk'),
      g('Buttermilch', 'Buttermilk'),
      g('Hafermilch', null),
      g('Milkshake', 'Milkshake'),
    ];
    // "milk": a prefix of Milk and Milkshake, inside Buttermilk; the renamed one is found by its name alone.
    expect(searchProducts(all, 'milk').map((x) => x.name)).to.deep.equal(['Milch', 'Milkshake', 'Buttermilch']);
    expect(searchProducts(all, 'MILCH').map((x) => x.name)).to.deep.equal(['Milch', 'Buttermilch', 'Hafermilch']);
    expect(searchProducts(all, 'oat')).to.deep.equal([]);
  });

  it('sortUnits: global before family, then Count, Weight, Volume, then name', () => {
    const u = (name: string, kind: 'global' | 'family', category: 'Count' | 'Weight' | 'Volume'): DocData<'units'> => ({
      id: randomUUID(),
      kind,
      code: null,
      name,
      abbreviation: name,
      category,
      createdAt: t(0),
      updatedAt: t(0),
    });
    const sorted = sortUnits([
      u('litre', 'global', 'Volume'),
      u('bunch', 'family', 'Count'),
      u('gram', 'global', 'Weight'),
      u('each', 'global', 'Count'),
    ]);
    expect(sorted.map((x) => x.name)).to.deep.equal(['each', 'gram', 'litre', 'bunch']);
  });

  it('derived ids are stable lowercase UUIDs, distinct per store, position and product', () => {
    const store = randomUUID();
    const ids = DEFAULT_SECTIONS.map((_, i) => defaultSectionId(store, i));
    expect(new Set(ids).size).to.equal(DEFAULT_SECTIONS.length);
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(defaultSectionId(store.toUpperCase(), 3)).to.equal(ids[3]);
    const product = randomUUID();
    expect(sectionMemoryId(store, { productId: product })).to.equal(sectionMemoryId(store, { productId: product }));
    expect(sectionMemoryId(store, { productId: product })).to.not.equal(
      sectionMemoryId(store, { familyProductId: product }),
    );
  });
});

describe('protocol/inputs: field rules', () => {
  it('names are trimmed, then 1..max code points; NUL is refused', () => {
    expect(listCreateInput.parse({ name: '  Weekly \n' }).name).to.equal('Weekly');
    expect(listCreateInput.safeParse({ name: '   ' }).success).to.equal(false);
    expect(listCreateInput.safeParse({ name: '😀'.repeat(200) }).success).to.equal(true); // 400 UTF-16 units
    expect(listCreateInput.safeParse({ name: '😀'.repeat(201) }).success).to.equal(false);
    expect(listCreateInput.safeParse({ name: 'a\u0000b' }).success).to.equal(false);
  });

  it('references are UUIDs in any case, taken in lower case', () => {
    const id = randomUUID();
    expect(listCreateInput.parse({ name: 'L', storeId: id.toUpperCase() }).storeId).to.equal(id);
    expect(listCreateInput.safeParse({ name: 'L', storeId: 'nope' }).success).to.equal(false);
  });

  it('item by product: name may be left out only when a product id is given', () => {
    expect(itemAddInput.safeParse({ productId: randomUUID() }).success).to.equal(true);
    expect(itemAddInput.safeParse({ familyProductId: randomUUID() }).success).to.equal(true);
    const none = itemAddInput.safeParse({ quantity: 1 });
    expect(none.success).to.equal(false);
    expect(none.error!.issues.map((i) => i.path.join('.'))).to.deep.equal(['name']);
    expect(itemAddInput.safeParse({ productId: randomUUID(), familyProductId: randomUUID() }).success).to.equal(false);
    expect(itemAddInput.safeParse({ name: 'x', quantity: 1.2345 }).success).to.equal(false);
  });
});
