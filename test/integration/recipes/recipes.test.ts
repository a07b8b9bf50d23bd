import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import {
  bumps,
  captureEvents,
  client,
  familyVersion,
  globalUnitId,
  seedFamilyProduct,
  seedFamilyUnit,
  seedGlobalProduct,
  uuid,
} from '../lists/helpers.js';

const INGREDIENT_KEYS = [
  'id',
  'recipeId',
  'name',
  'quantity',
  'unitOfMeasureId',
  'familyUnitOfMeasureId',
  'isApproximate',
  'quantityNote',
  'productId',
  'familyProductId',
  'position',
  'createdAt',
  'updatedAt',
];

async function setup() {
  const app = await testApp();
  const family = await makeFamily(app);
  const member = client(app, await makeMember(app, family));
  return { app, family, member };
}

describe('recipes', () => {
  it('creates a recipe with ordered ingredients (201), reads, lists with counts, edits and deletes it', async () => {
    const { app, family, member } = await setup();
    const unitId = await globalUnitId(app);
    const { result, delta } = await bumps(app, family.familyId, () =>
      member('POST', '/recipes', {
        name: 'Pancakes',
        servings: 4,
        instructions: 'Mix and fry.',
        ingredients: [
          { name: 'Flour', quantity: 0.25, unitOfMeasureId: unitId },
          { name: 'Eggs', quantity: 2 },
          { name: 'Salt', quantityNote: 'a pinch', isApproximate: true },
        ],
      }),
    );
    expect(result.status).to.equal(201);
    expect(delta).to.equal(1);
    const recipe = result.body;
    expect(Object.keys(recipe)).to.deep.equal([
      'id',
      'name',
      'servings',
      'instructions',
      'ingredients',
      'createdAt',
      'updatedAt',
    ]);
    expect(recipe).to.include({ name: 'Pancakes', servings: 4, instructions: 'Mix and fry.' });
    expect(recipe.ingredients.map((i: any) => [i.name, i.position])).to.deep.equal([
      ['Flour', 0],
      ['Eggs', 1],
      ['Salt', 2],
    ]);
    expect(Object.keys(recipe.ingredients[0])).to.deep.equal(INGREDIENT_KEYS);
    expect(recipe.ingredients[0]).to.include({ quantity: 0.25, unitOfMeasureId: unitId, recipeId: recipe.id });
    expect(recipe.ingredients[2]).to.include({ quantity: null, quantityNote: 'a pinch', isApproximate: true });

    expect((await member('GET', `/recipes/${recipe.id}`)).body).to.deep.equal(recipe);
    const list = (await member('GET', '/recipes')).body;
    expect(list).to.deep.equal([
      {
        id: recipe.id,
        name: 'Pancakes',
        servings: 4,
        ingredientCount: 3,
        createdAt: recipe.createdAt,
        updatedAt: recipe.updatedAt,
      },
    ]);

    const patched = await bumps(app, family.familyId, () =>
      member('PATCH', `/recipes/${recipe.id}`, { servings: null, instructions: 'Fry.' }),
    );
    expect(patched.result.status).to.equal(200);
    expect(patched.delta).to.equal(1);
    expect(patched.result.body).to.include({ name: 'Pancakes', servings: null, instructions: 'Fry.' });
    expect(patched.result.body.ingredients).to.have.length(3);

    const deleted = await bumps(app, family.familyId, () => member('DELETE', `/recipes/${recipe.id}`));
    expect(deleted.result.status).to.equal(204);
    expect(deleted.delta).to.equal(1);
    expect((await member('GET', `/recipes/${recipe.id}`)).status).to.equal(404);
    expect((await member('GET', '/recipes')).body).to.deep.equal([]);
    const rows = await app.deps.db('recipe_ingredients').where({ recipe_id: recipe.id });
    expect(rows).to.have.length(3);
    expect(rows.every((r: any) => r.deleted)).to.equal(true);
    const version = await familyVersion(app, family.familyId);
    expect(rows.every((r: any) => Number(r.version) === version)).to.equal(true);
  });

  it('an edit that changes nothing answers the recipe and the ingredient as they were (updatedAt too)', async () => {
    const { member } = await setup();
    const recipe = (
      await member('POST', '/recipes', {
        name: 'Bread',
        servings: 4,
        instructions: 'Knead.',
        ingredients: [{ name: 'Flour', quantity: 2.5, isApproximate: true, quantityNote: 'about' }],
      })
    ).body;
    const { ingredients, ...fields } = recipe;
    // Numbers compared as numbers (a quantity column reads back as "2.500"), booleans as truth.
    for (const body of [{ name: 'Bread', servings: 4 }, { instructions: 'Knead.' }, {}]) {
      const res = await member('PATCH', `/recipes/${recipe.id}`, body);
      expect(res.status).to.equal(200);
      const { ingredients: _same, ...after } = res.body;
      expect(after, JSON.stringify(body)).to.deep.equal(fields);
    }
    const ingredient = ingredients[0];
    for (const body of [{ quantity: 2.5, isApproximate: true }, { name: 'Flour', quantityNote: 'about' }, {}]) {
      const res = await member('PATCH', `/recipes/${recipe.id}/ingredients/${ingredient.id}`, body);
      expect(res.status).to.equal(200);
      expect(res.body, JSON.stringify(body)).to.deep.equal(ingredient);
    }
  });

  it('adds (appended or at a position), edits and deletes ingredients', async () => {
    const { app, family, member } = await setup();
    const recipe = (await member('POST', '/recipes', { name: 'Soup', ingredients: [{ name: 'Water' }] })).body;
    const base = `/recipes/${recipe.id}/ingredients`;
    const added = await bumps(app, family.familyId, () => member('POST', base, { name: 'Carrots', quantity: 3 }));
    expect(added.result.status).to.equal(201);
    expect(added.delta).to.equal(1);
    expect(added.result.body.position).to.equal(1);
    const first = (await member('POST', base, { name: 'Oil', position: 0 })).body;
    expect(first.position).to.equal(0);

    const familyUnit = await seedFamilyUnit(app, family.familyId);
    const edit = await bumps(app, family.familyId, () =>
      member('PATCH', `${base}/${added.result.body.id}`, {
        name: 'Big carrots',
        familyUnitOfMeasureId: familyUnit,
        position: 5,
      }),
    );
    expect(edit.result.status).to.equal(200);
    expect(edit.delta).to.equal(1);
    expect(edit.result.body).to.include({
      name: 'Big carrots',
      familyUnitOfMeasureId: familyUnit,
      position: 5,
      quantity: 3,
    });
    const detail = (await member('GET', `/recipes/${recipe.id}`)).body;
    expect(detail.ingredients.map((i: any) => i.name)).to.deep.equal(['Water', 'Oil', 'Big carrots']);

    const del = await bumps(app, family.familyId, () => member('DELETE', `${base}/${first.id}`));
    expect(del.result.status).to.equal(204);
    expect(del.delta).to.equal(1);
    expect((await member('DELETE', `${base}/${first.id}`)).status).to.equal(404);
    expect((await member('GET', `/recipes/${recipe.id}`)).body.ingredients.map((i: any) => i.name)).to.deep.equal([
      'Water',
      'Big carrots',
    ]);

    // Client ids: re-send 200; taken elsewhere 409.
    const id = uuid();
    expect((await member('POST', base, { id, name: 'Pepper' })).status).to.equal(201);
    const again = await member('POST', base, { id, name: 'Pepper' });
    expect(again.status).to.equal(200);
    expect(again.body.id).to.equal(id);
    const other = await makeFamily(app);
    const theirs = (await client(app, other.admin)('POST', '/recipes', { name: 'X' })).body;
    const taken = await client(app, other.admin)('POST', `/recipes/${theirs.id}/ingredients`, { id, name: 'Pepper' });
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal('id_conflict');
  });

  it("counts and appends each recipe's own live ingredients: not another recipe's, not deleted ones", async () => {
    const { member } = await setup();
    const bread = (
      await member('POST', '/recipes', {
        name: 'Bread',
        ingredients: [{ name: 'Flour' }, { name: 'Water' }, { name: 'Yeast' }, { name: 'Salt' }],
      })
    ).body;
    const soup = (await member('POST', '/recipes', { name: 'soup', ingredients: [{ name: 'Stock' }] })).body;
    expect((await member('DELETE', `/recipes/${bread.id}/ingredients/${bread.ingredients[3].id}`)).status).to.equal(
      204,
    );
    // Appended after the soup's own last ingredient (0), whatever the bread's positions (up to 3).
    const leek = await member('POST', `/recipes/${soup.id}/ingredients`, { name: 'Leek' });
    expect(leek.body.position).to.equal(1);
    const counts = (await member('GET', '/recipes')).body.map((r: any) => [r.name, r.ingredientCount]);
    expect(counts).to.deep.equal([
      ['Bread', 3],
      ['soup', 2],
    ]);
  });

  it('applies the unit and product rules to ingredients, and rejects bad input naming the field (nothing changed)', async () => {
    const { app, family, member } = await setup();
    const other = await makeFamily(app);
    const unitId = await globalUnitId(app);
    const familyUnit = await seedFamilyUnit(app, family.familyId);
    const foreignUnit = await seedFamilyUnit(app, other.familyId);
    const foreignProduct = await seedFamilyProduct(app, other.familyId);
    const recipe = (await member('POST', '/recipes', { name: 'R' })).body;
    const base = `/recipes/${recipe.id}/ingredients`;
    const cases: Array<[string, string, unknown, string, string]> = [
      [
        'POST',
        base,
        { name: 'x', unitOfMeasureId: unitId, familyUnitOfMeasureId: familyUnit },
        'validation_failed',
        'body.familyUnitOfMeasureId',
      ],
      ['POST', base, { name: 'x', familyUnitOfMeasureId: foreignUnit }, 'unit_not_found', 'body.familyUnitOfMeasureId'],
      ['POST', base, { name: 'x', familyProductId: foreignProduct }, 'product_not_found', 'body.familyProductId'],
      ['POST', base, { name: 'x', quantity: 0.0001 }, 'validation_failed', 'body.quantity'],
      ['POST', base, { name: 'x', position: -1 }, 'validation_failed', 'body.position'],
      ['POST', base, { name: 'x'.repeat(501) }, 'validation_failed', 'body.name'],
      [
        'POST',
        '/recipes',
        { name: 'R2', ingredients: [{ name: 'ok' }, { name: 'x', unitOfMeasureId: foreignUnit }] },
        'unit_not_found',
        'body.ingredients.1.unitOfMeasureId',
      ],
      ['POST', '/recipes', { name: 'R2', ingredients: [{ name: '' }] }, 'validation_failed', 'body.ingredients.0.name'],
      ['POST', '/recipes', { name: '' }, 'validation_failed', 'body.name'],
      ['POST', '/recipes', { name: 'R2', servings: 0 }, 'validation_failed', 'body.servings'],
      ['POST', '/recipes', { name: 'R2', servings: 2.5 }, 'validation_failed', 'body.servings'],
      ['POST', '/recipes', { name: 'R2', instructions: 'x'.repeat(20001) }, 'validation_failed', 'body.instructions'],
      ['PATCH', `/recipes/${recipe.id}`, { name: 'x'.repeat(201) }, 'validation_failed', 'body.name'],
    ];
    for (const [method, path, body, code, field] of cases) {
      const { result, delta } = await bumps(app, family.familyId, () => member(method, path, body));
      expect(result.status, JSON.stringify(body).slice(0, 100)).to.equal(400);
      expect(result.body.code).to.equal(code);
      expect(result.body.errors.map((e: any) => e.path)).to.include(field);
      expect(delta).to.equal(0);
    }
    expect((await member('GET', '/recipes')).body.map((r: any) => [r.name, r.ingredientCount])).to.deep.equal([
      ['R', 0],
    ]);
  });

  it("deleting a recipe leaves the family's other recipes and their ingredients", async () => {
    const { member } = await setup();
    const keep = (await member('POST', '/recipes', { name: 'Keep', ingredients: [{ name: 'a' }, { name: 'b' }] })).body;
    const drop = (await member('POST', '/recipes', { name: 'Drop', ingredients: [{ name: 'c' }] })).body;
    expect((await member('DELETE', `/recipes/${drop.id}`)).status).to.equal(204);
    expect((await member('GET', `/recipes/${keep.id}`)).body).to.deep.equal(keep);
    expect((await member('GET', '/recipes')).body.map((r: any) => [r.name, r.ingredientCount])).to.deep.equal([
      ['Keep', 2],
    ]);
  });

  it("another family's recipe is 404 on every recipe route", async () => {
    const { app, member } = await setup();
    const recipe = (await member('POST', '/recipes', { name: 'Mine', ingredients: [{ name: 'a' }] })).body;
    const ing = recipe.ingredients[0].id;
    const other = await makeFamily(app);
    const them = client(app, other.admin);
    const theirList = (await them('POST', '/lists', { name: 'T' })).body;
    for (const [method, path, body] of [
      ['GET', `/recipes/${recipe.id}`, undefined],
      ['PATCH', `/recipes/${recipe.id}`, { name: 'x' }],
      ['DELETE', `/recipes/${recipe.id}`, undefined],
      ['POST', `/recipes/${recipe.id}/ingredients`, { name: 'x' }],
      ['PATCH', `/recipes/${recipe.id}/ingredients/${ing}`, { name: 'x' }],
      ['DELETE', `/recipes/${recipe.id}/ingredients/${ing}`, undefined],
      ['POST', `/recipes/${recipe.id}/copy-to-list`, { listId: theirList.id }],
    ] as const) {
      const res = await them(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(res.body.detail, `${method} ${path}`).to.equal('Recipe not found');
    }
    expect((await them('GET', '/recipes')).body).to.deep.equal([]);
    expect((await member('GET', `/recipes/${recipe.id}`)).body).to.deep.equal(recipe);
    // Their own recipe, without that ingredient: the ingredient is what is missing.
    const theirs = (await them('POST', '/recipes', { name: 'Theirs' })).body;
    for (const [method, body] of [
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await them(method, `/recipes/${theirs.id}/ingredients/${ing}`, body);
      expect(res.status, method).to.equal(404);
      expect(res.body.detail, method).to.equal('Ingredient not found');
    }
  });
});

describe('copy recipe to list', () => {
  it('copies every field verbatim (name unchanged, nothing folded into it) and applies remembered sections', async () => {
    const { app, family, member } = await setup();
    const unitId = await globalUnitId(app);
    const familyUnit = await seedFamilyUnit(app, family.familyId);
    const productId = await seedGlobalProduct(app, 'Flour');
    const familyProductId = await seedFamilyProduct(app, family.familyId, 'Starter');
    const store = (await member('POST', '/stores', { name: 'S' })).body;
    const pantry = store.sections[6].id;
    const list = (await member('POST', '/lists', { name: 'L', storeId: store.id })).body;
    // The store remembers Flour in Pantry.
    const placed = (await member('POST', `/lists/${list.id}/items`, { name: 'flour', productId, sectionId: pantry }))
      .body;
    await member('DELETE', `/lists/${list.id}/items/${placed.id}`);

    const recipe = (
      await member('POST', '/recipes', {
        name: 'Bread',
        ingredients: [
          {
            name: 'Flour',
            quantity: 0.5,
            unitOfMeasureId: unitId,
            isApproximate: false,
            quantityNote: 'sifted',
            productId,
          },
          { name: 'Starter', quantity: 1.25, familyUnitOfMeasureId: familyUnit, isApproximate: true, familyProductId },
          { name: 'Salt', quantityNote: 'to taste' },
        ],
      })
    ).body;

    const events = captureEvents(app, family.familyId);
    let items: any[];
    try {
      const { result, delta } = await bumps(app, family.familyId, () =>
        member('POST', `/recipes/${recipe.id}/copy-to-list`, { listId: list.id }),
      );
      expect(result.status).to.equal(201);
      expect(delta).to.equal(1);
      items = result.body.items;
      expect(Object.keys(result.body)).to.deep.equal(['items', 'merged']);
      expect(events.of('ItemAdded').map((e: any) => e.item)).to.deep.equal(items);
      expect(events.of('ItemAdded').every((e: any) => e.listId === list.id)).to.equal(true);
      expect(events.of('ListProgress')).to.deep.equal([
        { type: 'ListProgress', listId: list.id, itemCount: 3, checkedCount: 0 },
      ]);
    } finally {
      events.stop();
    }
    expect(items).to.have.length(3);
    const fields = (i: any) => ({
      name: i.name,
      quantity: i.quantity,
      unitOfMeasureId: i.unitOfMeasureId,
      familyUnitOfMeasureId: i.familyUnitOfMeasureId,
      isApproximate: i.isApproximate,
      quantityNote: i.quantityNote,
      productId: i.productId,
      familyProductId: i.familyProductId,
    });
    expect(items.map(fields)).to.deep.equal(recipe.ingredients.map(fields));
    expect(items.map((i) => i.sectionId)).to.deep.equal([pantry, null, null]);
    expect(items.every((i) => i.listId === list.id && i.checked === false && i.removedAt === null)).to.equal(true);

    const detail = (await member('GET', `/lists/${list.id}`)).body;
    expect(detail.groups.map((g: any) => [g.sectionId, g.items.map((i: any) => i.name)])).to.deep.equal([
      [pantry, ['Flour']],
      [null, ['Starter', 'Salt']],
    ]);
  });

  it("copies only the chosen ingredients; rejects a list or ingredient that is not the family's / the recipe's (400)", async () => {
    const { app, family, member } = await setup();
    const recipe = (
      await member('POST', '/recipes', { name: 'R', ingredients: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] })
    ).body;
    const otherRecipe = (await member('POST', '/recipes', { name: 'R2', ingredients: [{ name: 'z' }] })).body;
    const list = (await member('POST', '/lists', { name: 'L' })).body;
    const [a, , c] = recipe.ingredients.map((i: any) => i.id);
    const some = await member('POST', `/recipes/${recipe.id}/copy-to-list`, { listId: list.id, ingredientIds: [c, a] });
    expect(some.status).to.equal(201);
    expect(some.body.items.map((i: any) => i.name)).to.deep.equal(['a', 'c']);

    const other = await makeFamily(app);
    const theirList = (await client(app, other.admin)('POST', '/lists', { name: 'T' })).body;
    for (const [body, code, field] of [
      [{ listId: theirList.id }, 'list_not_found', 'body.listId'],
      [{ listId: uuid() }, 'list_not_found', 'body.listId'],
      [
        { listId: list.id, ingredientIds: [a, otherRecipe.ingredients[0].id] },
        'ingredient_not_found',
        'body.ingredientIds.1',
      ],
      [{ listId: list.id, ingredientIds: [uuid()] }, 'ingredient_not_found', 'body.ingredientIds.0'],
      [{}, 'validation_failed', 'body.listId'],
      [{ listId: list.id, ingredientIds: ['x'] }, 'validation_failed', 'body.ingredientIds.0'],
    ] as const) {
      const { result, delta } = await bumps(app, family.familyId, () =>
        member('POST', `/recipes/${recipe.id}/copy-to-list`, body),
      );
      expect(result.status, JSON.stringify(body)).to.equal(400);
      expect(result.body.code).to.equal(code);
      expect(result.body.errors.map((e: any) => e.path)).to.include(field);
      const detail = {
        list_not_found: 'The list does not exist',
        ingredient_not_found: 'The ingredient is not part of this recipe',
      }[code as string];
      if (detail) expect(result.body.detail).to.equal(detail);
      expect(delta).to.equal(0);
    }
    expect((await client(app, other.admin)('GET', `/lists/${theirList.id}`)).body.groups).to.deep.equal([]);
    expect((await member('GET', '/lists')).body[0].itemCount).to.equal(2);
  });
});
