// The daily loop's rules (api-contract §10) as the protocol states them: placement of a new
// item, suggestions, recipe scaling and merging. The server and the SDK's offline domain layer
// both call these, so each documented result is pinned here once.
import { expect } from 'chai';
import {
  SUGGESTIONS_LIMIT_DEFAULT,
  SUGGESTIONS_WINDOW_DAYS,
  addQuantities,
  buildSuggestions,
  findMergeTarget,
  mergedFields,
  placeItem,
  remembersPlacement,
  scaleQuantity,
  suggestionKey,
  suggestionsSince,
  type PlacementSection,
  type SuggestionSource,
} from '@family-shopping/client/protocol';

const LIST = 'a0000000-0000-4000-8000-000000000001';
const OTHER_LIST = 'a0000000-0000-4000-8000-000000000002';
const P = '11111111-1111-4111-8111-111111111111';
const FP = '22222222-2222-4222-8222-222222222222';
const U = '33333333-3333-4333-8333-333333333333';
const NOW = '2026-03-01T12:00:00.000Z';
const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (n: number) => new Date(Date.parse(NOW) - n * DAY).toISOString();

function section(id: string, position: number, category: PlacementSection['category'], createdAt = daysAgo(10)) {
  return { id, position, category, createdAt };
}

describe('protocol/daily: placement of a new item', () => {
  const sections = [section('s-3', 2, 'dairy'), section('s-2', 1, 'dairy'), section('s-1', 0, 'produce')];

  it('an explicit section first, then the remembered one, then the first of the category, else none', () => {
    const base = { remembered: 's-9', productCategory: 'produce' as const, sections };
    expect(placeItem({ ...base, sectionId: 's-7' })).to.deep.equal({ sectionId: 's-7', by: 'explicit' });
    expect(placeItem({ ...base, sectionId: null })).to.deep.equal({ sectionId: 's-9', by: 'memory' });
    expect(placeItem({ ...base, remembered: null })).to.deep.equal({ sectionId: 's-1', by: 'category' });
    expect(placeItem({ ...base, remembered: null, productCategory: null })).to.deep.equal({
      sectionId: null,
      by: 'none',
    });
    expect(placeItem({ ...base, remembered: null, productCategory: 'frozen' })).to.deep.equal({
      sectionId: null,
      by: 'none',
    });
  });

  it('by category: the first section in walking order (position, then createdAt, then id)', () => {
    expect(placeItem({ remembered: null, productCategory: 'dairy', sections })).to.deep.equal({
      sectionId: 's-2',
      by: 'category',
    });
    const level = [
      section('s-b', 1, 'dairy', daysAgo(1)),
      section('s-c', 1, 'dairy', daysAgo(3)),
      section('s-a', 1, 'dairy', daysAgo(1)),
    ];
    expect(placeItem({ remembered: null, productCategory: 'dairy', sections: level }).sectionId).to.equal('s-c');
    const same = [section('s-b', 1, 'dairy'), section('s-a', 1, 'dairy'), section('s-c', 1, 'dairy')];
    expect(placeItem({ remembered: null, productCategory: 'dairy', sections: same }).sectionId).to.equal('s-a');
    // The caller's array is left in its order.
    expect(sections.map((s) => s.id)).to.deep.equal(['s-3', 's-2', 's-1']);
  });

  it('a product without a category is not placed in a section without one', () => {
    const plain = [section('s-1', 0, null), section('s-2', 1, 'dairy')];
    expect(placeItem({ remembered: null, productCategory: null, sections: plain })).to.deep.equal({
      sectionId: null,
      by: 'none',
    });
  });

  it('only an explicit placement of an item with a product on a list with a store is remembered', () => {
    const explicit = { sectionId: 's-1', by: 'explicit' as const };
    expect(remembersPlacement(explicit, 'store', { productId: P, familyProductId: null })).to.equal(true);
    expect(remembersPlacement(explicit, 'store', { productId: null, familyProductId: FP })).to.equal(true);
    expect(remembersPlacement(explicit, 'store', { productId: null, familyProductId: null })).to.equal(false);
    expect(remembersPlacement(explicit, null, { productId: P, familyProductId: null })).to.equal(false);
    for (const by of ['memory', 'category', 'none'] as const) {
      expect(remembersPlacement({ sectionId: 's-1', by }, 'store', { productId: P, familyProductId: null })).to.equal(
        false,
      );
    }
  });
});

let seq = 0;
function source(over: Partial<SuggestionSource> = {}): SuggestionSource {
  seq += 1;
  return {
    id: `b0000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    listId: OTHER_LIST,
    name: 'Milk',
    productId: null,
    familyProductId: null,
    quantity: null,
    unitOfMeasureId: null,
    familyUnitOfMeasureId: null,
    isApproximate: false,
    quantityNote: null,
    removedAt: null,
    createdAt: daysAgo(1),
    ...over,
  };
}

describe('protocol/daily: suggestions', () => {
  it('groups by product id, then family product id, then the trimmed name in any case', () => {
    expect(suggestionKey({ productId: P, familyProductId: FP, name: 'x' })).to.equal(`p:${P}`);
    expect(suggestionKey({ productId: null, familyProductId: FP, name: 'x' })).to.equal(`f:${FP}`);
    expect(suggestionKey({ productId: null, familyProductId: null, name: '  Oat Milk ' })).to.equal('n:oat milk');
  });

  it('looks back SUGGESTIONS_WINDOW_DAYS days from a date or an ISO string', () => {
    expect(SUGGESTIONS_WINDOW_DAYS).to.equal(180);
    expect(suggestionsSince(NOW).toISOString()).to.equal(daysAgo(180));
    expect(suggestionsSince(new Date(NOW)).toISOString()).to.equal(daysAgo(180));
  });

  it('counts each group, shows its newest item, and orders by count, then newest, then name', () => {
    const items = [
      source({ name: 'milk', createdAt: daysAgo(5), quantity: 1 }),
      source({ name: 'Milk ', createdAt: daysAgo(2), quantity: 2, quantityNote: 'low fat', isApproximate: true }),
      source({ name: 'Bread', createdAt: daysAgo(1) }),
      source({ name: 'Eggs', createdAt: daysAgo(3), productId: P, unitOfMeasureId: U, quantity: 6 }),
      source({ name: 'Apples', createdAt: daysAgo(3) }),
    ];
    const out = buildSuggestions(items, LIST, NOW);
    expect(out.map((s) => [s.name, s.count])).to.deep.equal([
      ['Milk ', 2],
      ['Bread', 1],
      ['Apples', 1],
      ['Eggs', 1],
    ]);
    expect(out[0]).to.deep.equal({
      name: 'Milk ',
      productId: null,
      familyProductId: null,
      quantity: 2,
      unitOfMeasureId: null,
      familyUnitOfMeasureId: null,
      isApproximate: true,
      quantityNote: 'low fat',
      count: 2,
      lastAddedAt: daysAgo(2),
    });
    expect(out[3]).to.include({ productId: P, unitOfMeasureId: U, quantity: 6 });
  });

  it('of two items added at the same moment, the one with the greater id is the newest', () => {
    const at = daysAgo(1);
    const a = source({ id: 'c0000000-0000-4000-8000-000000000001', createdAt: at, quantity: 1 });
    const b = source({ id: 'c0000000-0000-4000-8000-000000000002', createdAt: at, quantity: 2 });
    expect(buildSuggestions([a, b], LIST, NOW)[0]!.quantity).to.equal(2);
    expect(buildSuggestions([b, a], LIST, NOW)[0]!.quantity).to.equal(2);
    // An older item seen later never replaces the newest.
    const old = source({ createdAt: daysAgo(9), quantity: 9 });
    expect(buildSuggestions([b, old], LIST, NOW)[0]).to.include({ quantity: 2, count: 2 });
  });

  it('groups level in count, newest and name stay in the order they first appear', () => {
    const at = daysAgo(2);
    const byName = source({ name: 'Milk', createdAt: at, quantity: 1 });
    const byProduct = source({ name: 'Milk', createdAt: at, productId: P, quantity: 2 });
    const byFamilyProduct = source({ name: 'Milk', createdAt: at, familyProductId: FP, quantity: 3 });
    const order = (items: SuggestionSource[]) => buildSuggestions(items, LIST, NOW).map((s) => s.quantity);
    expect(order([byName, byProduct])).to.deep.equal([1, 2]);
    expect(order([byProduct, byName])).to.deep.equal([2, 1]);
    expect(order([byFamilyProduct, byName, byProduct])).to.deep.equal([3, 1, 2]);
  });

  it('leaves out what is on the list now (checked or not) but not what was removed from it', () => {
    const items = [
      source({ name: 'Milk' }),
      source({ name: 'milk', listId: LIST, createdAt: daysAgo(400) }),
      source({ name: 'Bread' }),
      source({ name: 'Bread', listId: LIST, removedAt: daysAgo(1) }),
    ];
    const out = buildSuggestions(items, LIST, NOW);
    expect(out.map((s) => [s.name, s.count])).to.deep.equal([['Bread', 2]]);
  });

  it('ignores items older than the window; the window’s first instant still counts', () => {
    const items = [source({ name: 'Old', createdAt: daysAgo(181) }), source({ name: 'Edge', createdAt: daysAgo(180) })];
    expect(buildSuggestions(items, LIST, NOW).map((s) => s.name)).to.deep.equal(['Edge']);
  });

  it('returns at most `limit` (SUGGESTIONS_LIMIT_DEFAULT unless given), none for a limit below one', () => {
    const many = Array.from({ length: 25 }, (_, i) => source({ name: `Thing ${String(i).padStart(2, '0')}` }));
    expect(buildSuggestions(many, LIST, NOW)).to.have.length(SUGGESTIONS_LIMIT_DEFAULT);
    expect(buildSuggestions(many, LIST, NOW, 3).map((s) => s.name)).to.deep.equal(['Thing 00', 'Thing 01', 'Thing 02']);
    expect(buildSuggestions(many, LIST, NOW, 0)).to.deep.equal([]);
    expect(buildSuggestions(many, LIST, NOW, -2)).to.deep.equal([]);
  });
});

describe('protocol/daily: recipe copy', () => {
  it('scales by servings / recipe servings, rounded half-up to 3 decimals', () => {
    expect(scaleQuantity(null, 4, 2)).to.equal(null);
    expect(scaleQuantity(1.5, 4, 4)).to.equal(1.5);
    // Equal servings: verbatim, even a quantity the thousandths would round.
    expect(scaleQuantity(1.23456, 4, 4)).to.equal(1.23456);
    expect(scaleQuantity(3, 4, 2)).to.equal(1.5);
    expect(scaleQuantity(1, 3, 1)).to.equal(0.333);
    expect(scaleQuantity(2, 3, 1)).to.equal(0.667);
    expect(scaleQuantity(0.001, 2, 1)).to.equal(0.001); // 0.0005 rounds half up
    expect(scaleQuantity(0.003, 2, 1)).to.equal(0.002); // 0.0015 rounds half up
    expect(scaleQuantity(0.1, 1, 3)).to.equal(0.3); // exact, not 0.30000000000000004
    expect(scaleQuantity(2, 1, 3)).to.equal(6);
  });

  it('adds quantities exactly to the thousandth', () => {
    expect(addQuantities(0.1, 0.2)).to.equal(0.3);
    expect(addQuantities(1.005, 2)).to.equal(3.005);
    expect(addQuantities(2, 0)).to.equal(2);
  });

  const ingredient = { productId: P, familyProductId: null, unitOfMeasureId: U, familyUnitOfMeasureId: null };
  let n = 0;
  function item(over: Record<string, unknown> = {}) {
    n += 1;
    return {
      id: `d0000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      ...ingredient,
      quantity: 1,
      checked: false,
      removedAt: null as string | null,
      createdAt: daysAgo(1),
      ...over,
    };
  }

  it('merges into the oldest active, unchecked item with the same product and unit and a quantity', () => {
    const target = item({ createdAt: daysAgo(3) });
    const items = [
      item({ createdAt: daysAgo(9), removedAt: daysAgo(1) }),
      item({ createdAt: daysAgo(9), checked: true }),
      item({ createdAt: daysAgo(9), quantity: null }),
      item({ createdAt: daysAgo(9), productId: null, familyProductId: FP }),
      item({ createdAt: daysAgo(9), familyProductId: FP }),
      item({ createdAt: daysAgo(9), unitOfMeasureId: null }),
      item({ createdAt: daysAgo(9), familyUnitOfMeasureId: U }),
      item({ createdAt: daysAgo(2) }),
      target,
      item({ createdAt: daysAgo(1) }),
    ];
    expect(findMergeTarget(ingredient, 2, items)).to.equal(target);
  });

  it('of two equally old targets, the smaller id; no quantity or no product: no merge', () => {
    const at = daysAgo(2);
    const a = item({ id: 'e0000000-0000-4000-8000-000000000001', createdAt: at });
    const b = item({ id: 'e0000000-0000-4000-8000-000000000002', createdAt: at });
    expect(findMergeTarget(ingredient, 1, [b, a])).to.equal(a);
    expect(findMergeTarget(ingredient, 1, [a, b])).to.equal(a);
    expect(findMergeTarget(ingredient, null, [a])).to.equal(null);
    expect(findMergeTarget({ ...ingredient, productId: null }, 1, [a])).to.equal(null);
    expect(findMergeTarget({ ...ingredient, productId: null, familyProductId: FP }, 1, [a])).to.equal(null);
    const fam = item({ productId: null, familyProductId: FP });
    expect(findMergeTarget({ ...ingredient, productId: null, familyProductId: FP }, 1, [fam])).to.equal(fam);
    expect(findMergeTarget(ingredient, 1, [])).to.equal(null);
  });

  it('an ingredient without a product never merges, even into an item without one', () => {
    const bare = { productId: null, familyProductId: null, unitOfMeasureId: U, familyUnitOfMeasureId: null };
    expect(findMergeTarget(bare, 1, [item(bare)])).to.equal(null);
  });

  it('an item of another global product is no target', () => {
    const other = item({ productId: '44444444-4444-4444-8444-444444444444' });
    expect(findMergeTarget(ingredient, 1, [other])).to.equal(null);
  });

  it('the oldest target wins even when a newer one has the smaller id', () => {
    const older = item({ id: 'f0000000-0000-4000-8000-000000000009', createdAt: daysAgo(5) });
    const newer = item({ id: 'f0000000-0000-4000-8000-000000000001', createdAt: daysAgo(2) });
    expect(findMergeTarget(ingredient, 1, [older, newer])).to.equal(older);
    expect(findMergeTarget(ingredient, 1, [newer, older])).to.equal(older);
  });

  it('a merge sums the quantities and is approximate when either side is', () => {
    expect(
      mergedFields({ quantity: 1.25, isApproximate: false }, { quantity: 0.5, isApproximate: false }),
    ).to.deep.equal({ quantity: 1.75, isApproximate: false });
    expect(mergedFields({ quantity: null, isApproximate: false }, { quantity: 2, isApproximate: true })).to.deep.equal({
      quantity: 2,
      isApproximate: true,
    });
    expect(mergedFields({ quantity: 1, isApproximate: true }, { quantity: 2, isApproximate: false })).to.deep.equal({
      quantity: 3,
      isApproximate: true,
    });
  });
});
