// The shared views' orders and edges, past the examples of views.test.ts: the ties of every
// order, which items and sections a list's views take, and the derived ids' exact values (a
// device and a server of another version must derive the same ids, so they are pinned).
import { expect } from 'chai';
import {
  SEARCH_LIMIT_DEFAULT,
  UNCATEGORIZED,
  compareItems,
  compareLists,
  compareSections,
  defaultSectionId,
  derivedId,
  isActiveItem,
  listDetail,
  listSummaries,
  listSummary,
  listSummarySchema,
  searchProducts,
  sectionMemoryId,
  sortUnits,
  type DocData,
} from '@family-shopping/client/protocol';
import { itemRecord } from './records.js';

const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const id = (n: number) => `0a000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const STORE = '55555555-5555-4555-8555-555555555555';
const OTHER_STORE = '66666666-6666-4666-8666-666666666666';

function list(fields: Partial<DocData<'lists'>> = {}): DocData<'lists'> {
  return { id: id(900), name: 'L', storeId: null, archivedAt: null, createdAt: t(0), updatedAt: t(0), ...fields };
}
function item(n: number, fields: Partial<DocData<'items'>> = {}): DocData<'items'> {
  return itemRecord({
    id: id(n),
    listId: id(900),
    name: `I${n}`,
    quantity: null,
    createdAt: t(0),
    updatedAt: t(0),
    ...fields,
  });
}
function section(n: number, position: number, fields: Partial<DocData<'sections'>> = {}): DocData<'sections'> {
  return {
    id: id(n),
    storeId: STORE,
    name: `S${n}`,
    position,
    category: null,
    createdAt: t(0),
    updatedAt: t(0),
    ...fields,
  };
}

describe('protocol/views: orders and their ties', () => {
  it('lists: newest first, then the greater id first', () => {
    const a = list({ id: id(1), createdAt: t(5) });
    const b = list({ id: id(2), createdAt: t(5) });
    const c = list({ id: id(3), createdAt: t(1) });
    expect([c, a, b].sort(compareLists).map((l) => l.id)).to.deep.equal([id(2), id(1), id(3)]);
    expect(compareLists(a, a)).to.equal(0);
  });

  it('items: unchecked first, then oldest, then the smaller id', () => {
    const items = [
      item(1, { checked: true, createdAt: t(0) }),
      item(2, { createdAt: t(9) }),
      item(4, { createdAt: t(1) }),
      item(3, { createdAt: t(1) }),
    ];
    expect([...items].sort(compareItems).map((i) => i.id)).to.deep.equal([id(3), id(4), id(2), id(1)]);
    expect(compareItems(items[0]!, items[0]!)).to.equal(0);
  });

  it('sections: position, then oldest, then the smaller id', () => {
    const sections = [section(1, 2), section(2, 1, { createdAt: t(5) }), section(4, 1), section(3, 1)];
    expect([...sections].sort(compareSections).map((s) => s.id)).to.deep.equal([id(3), id(4), id(2), id(1)]);
  });

  it('units: global first, then Count, Weight, Volume, then the name in any case, then the id', () => {
    const u = (n: number, kind: 'global' | 'family', category: 'Count' | 'Weight' | 'Volume', name: string) =>
      ({ id: id(n), kind, code: null, name, abbreviation: name, category, createdAt: t(0), updatedAt: t(0) }) as const;
    const units = [
      u(6, 'family', 'Count', 'a'),
      u(5, 'global', 'Volume', 'a'),
      u(4, 'global', 'Weight', 'b'),
      u(3, 'global', 'Weight', 'B'),
      u(2, 'global', 'Weight', 'A'),
      u(1, 'global', 'Count', 'z'),
    ];
    expect(sortUnits(units).map((x) => x.id)).to.deep.equal([id(1), id(2), id(3), id(4), id(5), id(6)]);
    expect(units[0]!.id).to.equal(id(6)); // the input is left in its order
  });

  it('product search: ties by name in any case, then by exact name, then id; at most 50 by default', () => {
    const p = (n: number, name: string): DocData<'products'> => ({
      id: id(n),
      kind: 'family',
      name,
      englishName: null,
      unitCategoryFlags: [],
      category: null,
      overridden: false,
      createdAt: t(0),
      updatedAt: t(0),
    });
    const found = searchProducts([p(4, 'tea'), p(3, 'Tea'), p(2, 'tea'), p(1, 'Iced tea')], 'TEA');
    expect(found.map((x) => x.id)).to.deep.equal([id(3), id(2), id(4), id(1)]);
    expect(searchProducts([p(1, 'Tea')], 'coffee')).to.deep.equal([]);
    // Only the product's own name is searched: one letter finds the names that hold it.
    expect(searchProducts([p(1, 'Tea'), p(2, 'Milk')], 'e').map((x) => x.name)).to.deep.equal(['Tea']);
    // The order is the lowercased name's: '_' (U+005F) sorts before 'b', though not before 'B'.
    expect(searchProducts([p(2, 'XB'), p(1, 'X_Y')]).map((x) => x.name)).to.deep.equal(['X_Y', 'XB']);
    const many = Array.from({ length: 60 }, (_, i) => p(i, `P${String(i).padStart(2, '0')}`));
    expect(searchProducts(many)).to.have.length(SEARCH_LIMIT_DEFAULT);
    expect(searchProducts(many, '   ')).to.have.length(SEARCH_LIMIT_DEFAULT);
  });
});

describe('protocol/views: what a list’s views take', () => {
  it('names the last group “Uncategorized”; a summary’s counts are whole numbers from 0', () => {
    expect(UNCATEGORIZED).to.equal('Uncategorized');
    const summary = listSummary(list(), []);
    expect(listSummarySchema.safeParse(summary).success).to.equal(true);
    expect(listSummarySchema.safeParse({ ...summary, itemCount: -1 }).success).to.equal(false);
    expect(listSummarySchema.safeParse({ ...summary, checkedCount: 1.5 }).success).to.equal(false);
  });

  it('an item is active until removed', () => {
    expect(isActiveItem({ removedAt: null })).to.equal(true);
    expect(isActiveItem({ removedAt: t(1) })).to.equal(false);
  });

  it('a summary counts the list’s own active items, and carries the list’s fields', () => {
    const l = list({ name: 'Weekly', storeId: STORE, createdAt: t(1), updatedAt: t(2) });
    const items = [
      item(1),
      item(2, { checked: true }),
      item(3, { checked: true, removedAt: t(3) }),
      item(4, { removedAt: t(3) }),
      item(5, { listId: id(901), checked: true }),
    ];
    expect(listSummary(l, items)).to.deep.equal({
      id: l.id,
      name: 'Weekly',
      storeId: STORE,
      archivedAt: null,
      itemCount: 2,
      checkedCount: 1,
      createdAt: t(1),
      updatedAt: t(2),
    });
    const [summary] = listSummaries([l], items);
    expect(summary).to.include({ itemCount: 2, checkedCount: 1 });
    expect(listSummaries([l], [], { archived: false })).to.have.length(1);
    expect(listSummaries([list({ archivedAt: t(1) })], [])).to.deep.equal([]);
  });

  it('a detail shows only the sections of the list’s store that hold an active item', () => {
    const l = list({ storeId: STORE, archivedAt: t(7), createdAt: t(1), updatedAt: t(2) });
    const mine = section(1, 0);
    const empty = section(2, 1);
    const onlyRemoved = section(3, 2);
    const foreign = section(4, 3, { storeId: OTHER_STORE });
    const items = [
      item(10, { sectionId: mine.id }),
      item(11, { sectionId: onlyRemoved.id, removedAt: t(1) }),
      item(12, { sectionId: foreign.id }),
      item(13, { sectionId: id(999) }),
    ];
    const detail = listDetail(l, [foreign, onlyRemoved, empty, mine], items);
    expect(detail.groups.map((g) => [g.sectionId, g.name, g.position, g.items.map((i) => i.id)])).to.deep.equal([
      [mine.id, 'S1', 0, [id(10)]],
      [null, UNCATEGORIZED, null, [id(12), id(13)]],
    ]);
    expect(detail).to.deep.include({
      id: l.id,
      name: 'L',
      storeId: STORE,
      archivedAt: t(7),
      createdAt: t(1),
      updatedAt: t(2),
    });
  });

  it('a detail without active items has no groups, not even Uncategorized', () => {
    const l = list({ storeId: STORE });
    expect(listDetail(l, [section(1, 0)], [item(1, { removedAt: t(1) })]).groups).to.deep.equal([]);
    expect(listDetail(l, [], [item(2, { listId: id(901) })]).groups).to.deep.equal([]);
  });

  it('sorts the items within every group, the last one included', () => {
    const l = list({ storeId: STORE });
    const s = section(1, 0);
    const items = [
      item(4, { sectionId: s.id, checked: true }),
      item(3, { sectionId: s.id }),
      item(2, { checked: true }),
      item(1),
    ];
    const groups = listDetail(l, [s], items).groups.map((g) => g.items.map((i) => i.id));
    expect(groups).to.deep.equal([
      [id(3), id(4)],
      [id(1), id(2)],
    ]);
  });
});

describe('protocol/views: derived ids', () => {
  it('are the exact values every version derives', () => {
    expect(derivedId('')).to.equal('8e5e3ba7-73af-8278-a545-bfef72a160dc');
    expect(derivedId('a')).to.equal('74539d0b-2c03-8a00-bcb0-b21b7d77fb5f');
    expect(defaultSectionId(STORE, 0)).to.equal('dd5d64f3-ee9d-88ea-bfb7-e891c3c70c78');
    expect(defaultSectionId(STORE, 10)).to.equal('d2d9db84-cdf6-8e21-afd9-4503254b1524');
    const product = '11111111-1111-4111-8111-111111111111';
    expect(sectionMemoryId(STORE, { productId: product })).to.equal('ce8d8b36-e4f9-8a98-8d4f-5537ace758f1');
    expect(sectionMemoryId(STORE.toUpperCase(), { familyProductId: product.toUpperCase() })).to.equal(
      '9acc91e8-fb05-8279-b51f-ff663f8f228e',
    );
    expect(sectionMemoryId(STORE, {})).to.equal('a7f365be-951d-8b55-92e6-4d83f3321f1c');
    // A store id in either letter case derives the same ids.
    const lettered = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    for (const store of [lettered, lettered.toUpperCase()]) {
      expect(defaultSectionId(store, 3)).to.equal('7ec2d30a-a39a-8c07-8612-535cdbd6c986');
      expect(sectionMemoryId(store, { productId: product })).to.equal('1ca900f1-a953-82ed-a916-c8a523ed178d');
    }
  });
});
