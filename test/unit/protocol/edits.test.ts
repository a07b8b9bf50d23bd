// The edit rules of items and ingredients (api-contract §4 "Item rules", §10) as the protocol
// states them: the REST handlers, the replication push and the SDK's offline domain layer all
// call these, so each documented result is pinned here once.
import { expect } from 'chai';
import {
  ACTIVE,
  checkEdit,
  completePairs,
  hasProduct,
  nameForAdd,
  patchRefs,
  patchedProduct,
  removal,
  restoration,
  sectionEdit,
  type QuantityPatch,
} from '@family-shopping/client/protocol';

const P = '11111111-1111-4111-8111-111111111111';
const FP = '22222222-2222-4222-8222-222222222222';
const U = '33333333-3333-4333-8333-333333333333';
const FU = '44444444-4444-4444-8444-444444444444';
const STORE = '55555555-5555-4555-8555-555555555555';
const SEC = '66666666-6666-4666-8666-666666666666';
const SEC2 = '77777777-7777-4777-8777-777777777777';
const NONE = { productId: null, familyProductId: null };

describe('protocol/edits: pairs of ids', () => {
  it('an item has a product when either id of the pair is set', () => {
    expect(hasProduct(NONE)).to.equal(false);
    expect(hasProduct({ productId: P, familyProductId: null })).to.equal(true);
    expect(hasProduct({ productId: null, familyProductId: FP })).to.equal(true);
  });

  it('setting one id of a pair clears the other side that was not sent', () => {
    expect(completePairs({ unitOfMeasureId: U })).to.deep.equal({ unitOfMeasureId: U, familyUnitOfMeasureId: null });
    expect(completePairs({ familyUnitOfMeasureId: FU })).to.deep.equal({
      familyUnitOfMeasureId: FU,
      unitOfMeasureId: null,
    });
    expect(completePairs({ productId: P })).to.deep.equal({ productId: P, familyProductId: null });
    expect(completePairs({ familyProductId: FP })).to.deep.equal({ familyProductId: FP, productId: null });
  });

  it('leaves a pair alone when nothing of it is set, or both sides are sent', () => {
    const named: QuantityPatch = { name: 'Milk' };
    expect(completePairs(named)).to.deep.equal({ name: 'Milk' });
    expect(completePairs({ unitOfMeasureId: null })).to.deep.equal({ unitOfMeasureId: null });
    expect(completePairs({ familyProductId: null })).to.deep.equal({ familyProductId: null });
    expect(completePairs({ productId: P, familyProductId: null })).to.deep.equal({
      productId: P,
      familyProductId: null,
    });
    expect(completePairs({ unitOfMeasureId: null, familyUnitOfMeasureId: FU })).to.deep.equal({
      unitOfMeasureId: null,
      familyUnitOfMeasureId: FU,
    });
  });

  it('leaves a patch that sets both ids of a pair as it is, for the input rules to refuse', () => {
    const both = { unitOfMeasureId: U, familyUnitOfMeasureId: FU, productId: P, familyProductId: FP };
    expect(completePairs(both)).to.deep.equal(both);
  });

  it('returns a new patch and leaves the one given as it was', () => {
    const patch = { productId: P };
    const out = completePairs(patch);
    expect(out).to.not.equal(patch);
    expect(patch).to.deep.equal({ productId: P });
  });

  it('the references a patch sets: a side not sent is null', () => {
    expect(patchRefs({})).to.deep.equal({
      unit: { unitOfMeasureId: null, familyUnitOfMeasureId: null },
      product: { productId: null, familyProductId: null },
    });
    expect(patchRefs({ unitOfMeasureId: U, familyProductId: FP })).to.deep.equal({
      unit: { unitOfMeasureId: U, familyUnitOfMeasureId: null },
      product: { productId: null, familyProductId: FP },
    });
    expect(patchRefs({ familyUnitOfMeasureId: FU, productId: P })).to.deep.equal({
      unit: { unitOfMeasureId: null, familyUnitOfMeasureId: FU },
      product: { productId: P, familyProductId: null },
    });
  });

  it('the product after a patch: each side the patch sends (null too), else the record’s', () => {
    const current = { productId: P, familyProductId: null };
    expect(patchedProduct(current, {})).to.deep.equal(current);
    expect(patchedProduct(current, { productId: null, familyProductId: FP })).to.deep.equal({
      productId: null,
      familyProductId: FP,
    });
    expect(patchedProduct({ productId: null, familyProductId: FP }, { productId: P })).to.deep.equal({
      productId: P,
      familyProductId: FP,
    });
  });
});

describe('protocol/edits: names, sections, checks, removal', () => {
  it('an explicit name wins over the product’s; without one the product’s is taken', () => {
    expect(nameForAdd('Oat milk', 'Milk')).to.equal('Oat milk');
    expect(nameForAdd(undefined, 'Milk')).to.equal('Milk');
    expect(nameForAdd(null, 'Milk')).to.equal('Milk');
  });

  it('an explicit section is taken, and remembered only with a store and a product', () => {
    const product = { productId: P, familyProductId: null };
    const base = { storeId: STORE, current: SEC2, productChanged: false };
    expect(sectionEdit({ ...base, sectionId: SEC, product })).to.deep.equal({
      recall: false,
      section: SEC,
      remember: SEC,
    });
    expect(sectionEdit({ ...base, sectionId: SEC, product: NONE })).to.deep.equal({
      recall: false,
      section: SEC,
      remember: null,
    });
    expect(sectionEdit({ ...base, storeId: null, sectionId: SEC, product })).to.deep.equal({
      recall: false,
      section: SEC,
      remember: null,
    });
    // Taking the item out of its section: nothing to remember.
    expect(sectionEdit({ ...base, sectionId: null, product })).to.deep.equal({
      recall: false,
      section: null,
      remember: null,
    });
  });

  it('a new product: an item without a section recalls the store’s, one in a section places the product there', () => {
    const product = { productId: null, familyProductId: FP };
    expect(
      sectionEdit({ storeId: STORE, current: null, sectionId: undefined, product, productChanged: true }),
    ).to.deep.equal({ recall: true, remember: null });
    expect(
      sectionEdit({ storeId: STORE, current: SEC, sectionId: undefined, product, productChanged: true }),
    ).to.deep.equal({ recall: false, section: SEC, remember: SEC });
    expect(
      sectionEdit({ storeId: null, current: SEC, sectionId: undefined, product, productChanged: true }),
    ).to.deep.equal({
      recall: false,
      section: SEC,
      remember: null,
    });
  });

  it('no section sent and no new product: the section stays and nothing is remembered', () => {
    const product = { productId: P, familyProductId: null };
    expect(
      sectionEdit({ storeId: STORE, current: SEC, sectionId: undefined, product, productChanged: false }),
    ).to.deep.equal({ recall: false, section: SEC, remember: null });
    expect(
      sectionEdit({ storeId: STORE, current: null, sectionId: undefined, product, productChanged: false }),
    ).to.deep.equal({ recall: false, section: null, remember: null });
    // The product taken away: no product to place.
    expect(
      sectionEdit({ storeId: STORE, current: null, sectionId: undefined, product: NONE, productChanged: true }),
    ).to.deep.equal({ recall: false, section: null, remember: null });
  });

  it('checking: only a changed flag is an edit; checking stamps the time, unchecking clears it', () => {
    let reads = 0;
    const now = () => {
      reads += 1;
      return 'T1';
    };
    expect(checkEdit(false, undefined, now)).to.equal(null);
    expect(checkEdit(true, true, now)).to.equal(null);
    expect(checkEdit(false, false, now)).to.equal(null);
    expect(reads).to.equal(0);
    expect(checkEdit(true, false, now)).to.deep.equal({ checked: false, checkedAt: null });
    expect(reads).to.equal(0);
    expect(checkEdit(false, true, now)).to.deep.equal({ checked: true, checkedAt: 'T1' });
    expect(reads).to.equal(1);
  });

  it('removal stamps the time and the user, once; restore clears both, once', () => {
    expect(removal(null, U, 'T1')).to.deep.equal({ removedAt: 'T1', removedByUserId: U });
    expect(removal(undefined, U, 'T1')).to.deep.equal({ removedAt: 'T1', removedByUserId: U });
    expect(removal('T0', U, 'T1')).to.equal(null);
    expect(ACTIVE).to.deep.equal({ removedAt: null, removedByUserId: null });
    expect(restoration('T0')).to.deep.equal({ removedAt: null, removedByUserId: null });
    expect(restoration(null)).to.equal(null);
    expect(restoration(undefined)).to.equal(null);
    // Each restore is a fresh record: changing one never changes the next.
    const first = restoration('T0')!;
    expect(first).to.not.equal(ACTIVE);
  });
});
