// The family-data write inputs (api-contract §4, §7, §10): what each REST body and domain call
// keeps, what it refuses and how the refusal reads. The same schemas judge REST, push and the
// SDK's domain layer, so a field dropped or a rule loosened here changes all three.
import { expect } from 'chai';
import * as z from 'zod/mini';
import {
  CATALOG_REFUSALS,
  QUANTITY_REFS,
  fieldErrors,
  inputSchemas,
  copyToListInput,
  ingredientAddInput,
  ingredientUpdateInput,
  itemAddInput,
  itemUpdateInput,
  listCreateInput,
  listUpdateInput,
  productCreateInput,
  productOverrideInput,
  productUpdateInput,
  recipeCreateInput,
  recipeUpdateInput,
  restoreItemsInput,
  sectionAddInput,
  sectionOrderInput,
  sectionUpdateInput,
  storeCreateInput,
  storeUpdateInput,
  unitCreateInput,
  unitUpdateInput,
} from '@family-shopping/client/protocol';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const D = '00000000-0000-4000-8000-00000000000d';
const UPPER = 'ABCDEF00-0000-4000-8000-00000000000E';

type Schema = z.ZodMiniType;
const refused = (schema: Schema, input: unknown) => schema.safeParse(input).success === false;
/** The field errors of a refused input (fails when the input is accepted). */
function errorsOf(schema: Schema, input: unknown) {
  const r = schema.safeParse(input);
  expect(r.success, JSON.stringify(input)).to.equal(false);
  return fieldErrors(r.error!);
}

/** Every quantity field set, as an item or an ingredient may carry them. */
const QUANTITY = {
  quantity: 2.5,
  unitOfMeasureId: A,
  familyUnitOfMeasureId: null,
  isApproximate: true,
  quantityNote: 'about',
  productId: null,
  familyProductId: B,
};

describe('protocol/inputs: what each input keeps', () => {
  const cases: [string, Schema, unknown][] = [
    ['listCreate', listCreateInput, { id: A, name: 'Weekly', storeId: B }],
    ['listUpdate', listUpdateInput, { name: 'Weekly', storeId: null }],
    ['itemAdd', itemAddInput, { id: A, name: 'Milk', ...QUANTITY, sectionId: C }],
    ['itemUpdate', itemUpdateInput, { name: 'Milk', ...QUANTITY, sectionId: null, checked: true }],
    ['storeCreate', storeCreateInput, { id: A, name: 'Corner' }],
    ['storeUpdate', storeUpdateInput, { name: 'Corner' }],
    ['sectionAdd', sectionAddInput, { id: A, name: 'Dairy', position: 3, category: 'dairy' }],
    ['sectionUpdate', sectionUpdateInput, { name: 'Dairy', category: null }],
    ['sectionOrder', sectionOrderInput, { sectionIds: [A, B] }],
    [
      'recipeCreate',
      recipeCreateInput,
      {
        id: A,
        name: 'Pancakes',
        servings: 4,
        instructions: 'Mix.',
        ingredients: [{ id: B, name: 'Flour', ...QUANTITY, position: 0 }],
      },
    ],
    ['recipeUpdate', recipeUpdateInput, { name: 'Pancakes', servings: null, instructions: null }],
    ['ingredientAdd', ingredientAddInput, { id: A, name: 'Flour', ...QUANTITY, position: 1 }],
    ['ingredientUpdate', ingredientUpdateInput, { name: 'Flour', ...QUANTITY, position: 2 }],
    ['copyToList', copyToListInput, { listId: A, ingredientIds: [B, C], servings: 100, merge: false }],
    ['restoreItems', restoreItemsInput, { itemIds: [A] }],
    [
      'productCreate',
      productCreateInput,
      { id: A, name: 'Oat milk', unitCategoryFlags: ['Volume'], category: 'dairy' },
    ],
    ['productUpdate', productUpdateInput, { name: 'Oat milk', unitCategoryFlags: [], category: null }],
    ['productOverride', productOverrideInput, { name: 'Oat milk', unitCategoryFlags: null, category: 'dairy' }],
    ['unitCreate', unitCreateInput, { id: A, name: 'Gram', abbreviation: 'g', category: 'Weight' }],
    ['unitUpdate', unitUpdateInput, { name: 'Gram', abbreviation: 'g', category: 'Weight' }],
  ];

  for (const [name, schema, input] of cases) {
    it(`${name}: every field it names, as given`, () => {
      expect(schema.parse({ ...(input as object), unknownField: 1 })).to.deep.equal(input);
      expect(inputSchemas[name as keyof typeof inputSchemas]).to.equal(schema);
    });
  }

  it('the inputs by name: each one once', () => {
    expect(Object.keys(inputSchemas)).to.have.members(cases.map(([n]) => n));
  });

  it('references are UUIDs in any letter case, kept in lower case', () => {
    expect(listCreateInput.parse({ id: UPPER, name: 'L', storeId: UPPER })).to.deep.equal({
      id: UPPER.toLowerCase(),
      name: 'L',
      storeId: UPPER.toLowerCase(),
    });
    expect(itemAddInput.parse({ productId: UPPER, sectionId: UPPER })).to.deep.equal({
      productId: UPPER.toLowerCase(),
      sectionId: UPPER.toLowerCase(),
    });
    for (const [schema, input] of [
      [listCreateInput, { name: 'L', storeId: 'store' }],
      [itemUpdateInput, { sectionId: 'x' }],
      [sectionOrderInput, { sectionIds: ['x'] }],
      [copyToListInput, { listId: 'x' }],
      [restoreItemsInput, { itemIds: ['x'] }],
    ] as [Schema, unknown][]) {
      expect(refused(schema, input), JSON.stringify(input)).to.equal(true);
    }
  });

  it('names the reference fields of a quantity', () => {
    expect(QUANTITY_REFS).to.deep.equal(['unitOfMeasureId', 'familyUnitOfMeasureId', 'productId', 'familyProductId']);
  });
});

describe('protocol/inputs: what each input refuses', () => {
  it('a name is required to create a list, a store, a section, a recipe, a product or a unit', () => {
    expect(refused(listCreateInput, {})).to.equal(true);
    expect(refused(storeCreateInput, {})).to.equal(true);
    expect(refused(storeUpdateInput, {})).to.equal(true);
    expect(refused(sectionAddInput, {})).to.equal(true);
    expect(refused(recipeCreateInput, {})).to.equal(true);
    expect(refused(productCreateInput, {})).to.equal(true);
    expect(refused(unitCreateInput, { abbreviation: 'g', category: 'Weight' })).to.equal(true);
    expect(refused(unitCreateInput, { name: 'Gram', category: 'Weight' })).to.equal(true);
    expect(refused(unitCreateInput, { name: 'Gram', abbreviation: 'g' })).to.equal(true);
    expect(refused(copyToListInput, {})).to.equal(true);
    expect(refused(restoreItemsInput, {})).to.equal(true);
  });

  it('an item or ingredient needs a name unless it names a product', () => {
    for (const schema of [itemAddInput, ingredientAddInput]) {
      expect(errorsOf(schema, {})).to.deep.equal([
        { path: 'name', message: 'required unless productId or familyProductId is given' },
      ]);
      expect(errorsOf(schema, { productId: null, familyProductId: null }).map((e) => e.path)).to.deep.equal(['name']);
      expect(schema.parse({ productId: A })).to.deep.equal({ productId: A });
      expect(schema.parse({ familyProductId: A })).to.deep.equal({ familyProductId: A });
      expect(schema.parse({ name: 'Milk' })).to.deep.equal({ name: 'Milk' });
      expect(schema.parse({ name: 'Milk', productId: null })).to.deep.equal({ name: 'Milk', productId: null });
    }
    // An update leaves the name as it is.
    expect(itemUpdateInput.parse({})).to.deep.equal({});
    expect(ingredientUpdateInput.parse({})).to.deep.equal({});
  });

  it('not both ids of a unit pair or of a product pair', () => {
    for (const schema of [itemAddInput, itemUpdateInput, ingredientAddInput, ingredientUpdateInput]) {
      expect(errorsOf(schema, { name: 'x', unitOfMeasureId: A, familyUnitOfMeasureId: B })).to.deep.equal([
        { path: 'familyUnitOfMeasureId', message: 'unitOfMeasureId and familyUnitOfMeasureId cannot both be set' },
      ]);
      expect(errorsOf(schema, { name: 'x', productId: C, familyProductId: D })).to.deep.equal([
        { path: 'familyProductId', message: 'productId and familyProductId cannot both be set' },
      ]);
      expect(refused(schema, { name: 'x', unitOfMeasureId: A, familyProductId: D })).to.equal(false);
    }
  });

  it('a quantity within its rule; a note without NUL; a whole position', () => {
    for (const schema of [itemAddInput, itemUpdateInput, ingredientAddInput, ingredientUpdateInput]) {
      for (const bad of [
        { quantity: -1 },
        { quantity: 1.2345 },
        { isApproximate: 'yes' },
        { quantityNote: 'a\u0000b' },
        { unitOfMeasureId: 'g' },
        { familyUnitOfMeasureId: 'g' },
        { productId: 'p' },
        { familyProductId: 'p' },
      ]) {
        expect(refused(schema, { name: 'x', ...bad }), JSON.stringify(bad)).to.equal(true);
      }
    }
    for (const schema of [sectionAddInput, ingredientAddInput, ingredientUpdateInput]) {
      expect(refused(schema, { name: 'x', position: -1 })).to.equal(true);
      expect(refused(schema, { name: 'x', position: 1.5 })).to.equal(true);
    }
    expect(refused(itemUpdateInput, { checked: 'yes' })).to.equal(true);
  });

  it('a section update sets a name, a category, or both; a category may be cleared', () => {
    expect(errorsOf(sectionUpdateInput, {})).to.deep.equal([{ path: 'name', message: 'set name or category' }]);
    expect(sectionUpdateInput.parse({ name: 'Dairy' })).to.deep.equal({ name: 'Dairy' });
    expect(sectionUpdateInput.parse({ category: null })).to.deep.equal({ category: null });
    expect(sectionUpdateInput.parse({ category: 'frozen' })).to.deep.equal({ category: 'frozen' });
    expect(refused(sectionUpdateInput, { category: 'toys' })).to.equal(true);
    expect(refused(sectionAddInput, { name: 'x', category: 'toys' })).to.equal(true);
  });

  it('a product override sets at least one field; null follows the global product', () => {
    const message = 'set name, unitCategoryFlags or category (DELETE the override to drop it)';
    for (const empty of [{}, { name: null, unitCategoryFlags: null, category: null }, { category: null }]) {
      expect(errorsOf(productOverrideInput, empty), JSON.stringify(empty)).to.deep.equal([{ path: 'name', message }]);
    }
    expect(productOverrideInput.parse({ name: 'Soy milk' })).to.deep.equal({ name: 'Soy milk' });
    expect(productOverrideInput.parse({ unitCategoryFlags: ['Count'] })).to.deep.equal({
      unitCategoryFlags: ['Count'],
    });
    expect(productOverrideInput.parse({ category: 'dairy', name: null })).to.deep.equal({
      category: 'dairy',
      name: null,
    });
  });

  it('recipes: servings within bounds or null, instructions without NUL, ingredients each checked', () => {
    expect(refused(recipeCreateInput, { name: 'R', servings: 0 })).to.equal(true);
    expect(refused(recipeUpdateInput, { servings: 0 })).to.equal(true);
    expect(refused(recipeUpdateInput, { instructions: 'a\u0000' })).to.equal(true);
    expect(refused(recipeCreateInput, { name: 'R', instructions: 'a\u0000' })).to.equal(true);
    expect(refused(recipeUpdateInput, { name: '\u200B' })).to.equal(true);
    expect(recipeUpdateInput.parse({})).to.deep.equal({});
    expect(errorsOf(recipeCreateInput, { name: 'R', ingredients: [{ name: 'a' }, {}] })).to.deep.equal([
      { path: 'ingredients.1.name', message: 'required unless productId or familyProductId is given' },
    ]);
  });

  it('a copy to a list: servings 1 to 100, merge a boolean', () => {
    expect(copyToListInput.parse({ listId: A, servings: 1 })).to.deep.equal({ listId: A, servings: 1 });
    for (const bad of [{ servings: 0 }, { servings: 101 }, { servings: 1.5 }, { merge: 'yes' }, { ingredientIds: A }]) {
      expect(refused(copyToListInput, { listId: A, ...bad }), JSON.stringify(bad)).to.equal(true);
    }
  });

  it('a restore names at least one item', () => {
    expect(refused(restoreItemsInput, { itemIds: [] })).to.equal(true);
  });

  it('catalog inputs: known categories and unit categories only', () => {
    expect(refused(productCreateInput, { name: 'x', category: 'toys' })).to.equal(true);
    expect(refused(productCreateInput, { name: 'x', unitCategoryFlags: ['Weight', 'Weight'] })).to.equal(true);
    expect(refused(productUpdateInput, { unitCategoryFlags: ['Length'] })).to.equal(true);
    expect(refused(productUpdateInput, { name: '' })).to.equal(true);
    expect(productUpdateInput.parse({})).to.deep.equal({});
    expect(refused(unitCreateInput, { name: 'Gram', abbreviation: 'g', category: 'Length' })).to.equal(true);
    expect(refused(unitUpdateInput, { category: 'Length' })).to.equal(true);
    expect(refused(unitUpdateInput, { abbreviation: '' })).to.equal(true);
    expect(refused(unitUpdateInput, { name: '' })).to.equal(true);
    expect(unitUpdateInput.parse({})).to.deep.equal({});
    expect(refused(listUpdateInput, { name: '' })).to.equal(true);
    expect(listUpdateInput.parse({})).to.deep.equal({});
  });
});

describe('protocol/inputs: refusals as callers see them', () => {
  it('field errors name the field under a prefix, or the root', () => {
    const r = recipeCreateInput.safeParse({ name: '\u200B', ingredients: [{}] });
    expect(r.success).to.equal(false);
    const plain = fieldErrors(r.error!);
    expect(plain.map((e) => e.path)).to.deep.equal(['name', 'ingredients.0.name']);
    expect(fieldErrors(r.error!, 'body').map((e) => e.path)).to.deep.equal(['body.name', 'body.ingredients.0.name']);
    expect(plain[1]!.message).to.equal('required unless productId or familyProductId is given');
    const root = restoreItemsInput.safeParse('nope');
    expect(fieldErrors(root.error!)).to.have.length(1);
    expect(fieldErrors(root.error!)[0]!.path).to.equal('(root)');
    expect(fieldErrors(root.error!, 'body')[0]!.path).to.equal('body');
  });

  it('the catalog refusals have their codes and messages', () => {
    expect(CATALOG_REFUSALS).to.deep.equal({
      idTaken: { code: 'id_conflict', message: 'That id is already taken' },
      duplicateProductName: { code: 'duplicate_name', message: 'A product with that name already exists' },
      abbreviationTaken: { code: 'abbreviation_taken', message: 'That abbreviation is already used' },
      unitInUse: { code: 'unit_in_use', message: 'The unit is used by a recipe ingredient or a list item' },
    });
  });
});
