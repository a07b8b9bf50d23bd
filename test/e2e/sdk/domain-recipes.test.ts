// The SDK's domain API for recipes and their ingredients (contract §10), offline: ingredients
// appended after the highest position, kept in position order (ties: the older first), edited and
// deleted only through their own recipe; a recipe deleted with its ingredients (and no other's);
// refusals named as REST names them (a bad reference of the n-th ingredient, an unknown list, an
// ingredient id of no ingredient of the recipe, a scaled quantity over the limit). After sync the
// server's recipe equals the local one, and REST refuses the same calls with the same errors.
import { expect } from 'chai';
import { filter, firstValueFrom } from 'rxjs';
import { QUANTITY_MAX, type FamilyClient } from '@family-shopping/client';
import { request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { rejection, restAs, sdkSuite, signedInClient, syncThenOffline } from './helpers.js';

describe('e2e SDK: recipes and ingredients, offline', function () {
  this.timeout(90_000);
  const sdk = sdkSuite();

  /** The recipe as `GET /api/recipes/{id}` shows it, from the device's own docs. */
  async function localRecipe(c: FamilyClient, recipeId: string) {
    const recipe = (await c.db.recipes.findOne(recipeId).exec())?.toJSON() as Record<string, unknown> | undefined;
    if (!recipe) return undefined;
    const ingredients = (await c.db.ingredients.find({ selector: { recipeId } }).exec())
      .map((d) => d.toJSON() as Record<string, any>)
      .sort((a, b) => a.position - b.position || Date.parse(a.createdAt) - Date.parse(b.createdAt));
    return { ...recipe, ingredients };
  }

  it('ingredients appended, ordered, edited and deleted; a recipe deleted; equal to REST after sync', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await c.start();
    await c.awaitInSync();
    await c.stop(); // offline from here on

    const pancakes = await c.recipes.create({
      name: 'Pancakes',
      servings: 2,
      ingredients: [{ name: 'Flour', quantity: 200 }, { name: 'Milk' }],
    });
    const soup = await c.recipes.create({ name: 'Soup', ingredients: [{ name: 'Leeks' }, { name: 'Stock' }] });
    const empty = await c.recipes.create({ name: 'Salad' });

    // Without a position: after the highest one (0 in a recipe with none).
    expect((await c.ingredients.add(empty.id, { name: 'Lettuce' })).position).to.equal(0);
    expect((await c.ingredients.add(pancakes.id, { name: 'Eggs' })).position).to.equal(2);
    expect((await c.ingredients.add(pancakes.id, { name: 'Butter', position: 7 })).position).to.equal(7);
    const salt = await c.ingredients.add(pancakes.id, { name: 'Salt' });
    expect(salt.position).to.equal(8);

    // Two more at position 0: after Flour, in the order they were added (whatever their ids).
    const [low, high] = [crypto.randomUUID(), crypto.randomUUID()].sort();
    await c.ingredients.add(pancakes.id, { id: high, name: 'Sugar', position: 0 });
    await c.ingredients.add(pancakes.id, { id: low, name: 'Vanilla', position: 0 });
    const list = await c.lists.create({ name: 'Weekly' });
    const copied = await c.recipes.copyToList(pancakes.id, { listId: list.id });
    const order = ['Flour', 'Sugar', 'Vanilla', 'Milk', 'Eggs', 'Butter', 'Salt'];
    expect(copied.items.map((i) => i.name)).to.deep.equal(order);

    // Edited and deleted through its own recipe only.
    const milk = (await localRecipe(c, pancakes.id))!.ingredients.find((i) => i.name === 'Milk')!;
    expect(await c.ingredients.update(pancakes.id, milk.id, { quantity: 300, quantityNote: 'warm' })).to.include({
      name: 'Milk',
      quantity: 300,
      quantityNote: 'warm',
    });
    for (const call of [
      c.ingredients.update(soup.id, milk.id, { quantity: 1 }),
      c.ingredients.delete(soup.id, milk.id),
    ]) {
      expect(await rejection(call)).to.include({ code: 'not_found', message: 'Ingredient not found' });
    }
    for (const call of [
      c.ingredients.add(crypto.randomUUID(), { name: 'Pepper' }),
      c.recipes.update(crypto.randomUUID(), { name: 'Stew' }),
    ]) {
      expect(await rejection(call)).to.include({ code: 'not_found', message: 'Recipe not found' });
    }
    expect((await c.ingredients.delete(pancakes.id, salt.id)).name).to.equal('Salt');
    expect(await c.db.ingredients.findOne(salt.id).exec()).to.equal(null);
    expect(await c.recipes.update(pancakes.id, { name: 'Crêpes', servings: 4 })).to.include({
      name: 'Crêpes',
      servings: 4,
    });

    // The soup deleted with its ingredients; the other recipes keep theirs.
    expect((await c.recipes.delete(soup.id)).name).to.equal('Soup');
    expect(await localRecipe(c, soup.id)).to.equal(undefined);
    expect(await c.db.ingredients.find({ selector: { recipeId: soup.id } }).exec()).to.have.length(0);
    expect((await localRecipe(c, pancakes.id))!.ingredients.map((i) => i.name)).to.deep.equal(order.slice(0, -1));
    expect((await localRecipe(c, empty.id))!.ingredients.map((i) => i.name)).to.deep.equal(['Lettuce']);

    // Online again: the server's recipes are the device's.
    await c.start();
    await c.awaitInSync();
    for (const id of [pancakes.id, empty.id])
      expect(await rest('GET', `/api/recipes/${id}`)).to.deep.equal(await localRecipe(c, id));
    expect((await request(sdk.app, 'GET', `/api/recipes/${soup.id}`, { token: family.admin.token })).status).to.equal(
      404,
    );
  });

  it('refusals name the field as REST does, and write nothing', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    const unit = await c.units.create({ name: 'Handful', abbreviation: 'hf', category: 'Count' });
    const recipe = await c.recipes.create({
      name: 'Bread',
      servings: 1,
      ingredients: [{ name: 'Flour', quantity: 500_000_000 }, { name: 'Salt' }, { name: 'Yeast' }],
    });
    const plain = await c.recipes.create({ name: 'Toast', ingredients: [{ name: 'Bread' }] });
    const list = await c.lists.create({ name: 'Weekly' });
    await c.start();
    await c.awaitInSync();
    await c.stop();
    const [flour, salt] = (await localRecipe(c, recipe.id))!.ingredients;

    /** The same call offline (SDK) and online (REST): both refused with these errors; nothing written. */
    const recipes = await c.db.recipes.count().exec();
    const items = await c.db.items.count().exec();
    const refusedAlike = async (
      sdkCall: Promise<unknown>,
      path: string,
      body: unknown,
      errors: { path: string; message: string }[],
    ) => {
      const offline = await rejection(sdkCall);
      expect(offline.code).to.equal('validation_failed');
      expect(offline.errors).to.deep.equal(errors);
      const online = await request(sdk.app, 'POST', path, { token: family.admin.token, body });
      expect(online.status).to.equal(400);
      // REST names the request part too: `body.<path>`.
      expect(online.body.errors).to.deep.equal(errors.map((e) => ({ ...e, path: `body.${e.path}` })));
      expect(await c.db.recipes.count().exec()).to.equal(recipes);
      expect(await c.db.items.count().exec()).to.equal(items);
    };

    // A reference of the second ingredient that names nothing: its path in the input.
    const badRecipe = {
      name: 'Cake',
      ingredients: [
        { name: 'Eggs', familyUnitOfMeasureId: unit.id },
        { name: 'Sugar', familyUnitOfMeasureId: flour!.id },
      ],
    };
    await refusedAlike(c.recipes.create(badRecipe), '/api/recipes', badRecipe, [
      { path: 'ingredients.1.familyUnitOfMeasureId', message: 'unknown unit' },
    ]);
    // An unknown list; ingredient ids of no ingredient of this recipe (first or later).
    const copyPath = `/api/recipes/${recipe.id}/copy-to-list`;
    const unknownList = { listId: crypto.randomUUID() };
    await refusedAlike(c.recipes.copyToList(recipe.id, unknownList), copyPath, unknownList, [
      { path: 'listId', message: 'unknown list' },
    ]);
    const otherRecipes = (await localRecipe(c, plain.id))!.ingredients[0]!.id as string;
    for (const ingredientIds of [
      [otherRecipes, salt!.id],
      [salt!.id, crypto.randomUUID()],
    ]) {
      const body = { listId: list.id, ingredientIds };
      const at = ingredientIds.indexOf(salt!.id) === 0 ? 1 : 0;
      await refusedAlike(c.recipes.copyToList(recipe.id, body), copyPath, body, [
        { path: `ingredientIds.${at}`, message: 'not an ingredient of this recipe' },
      ]);
    }
    // Scaled over the limit: the ingredient named.
    const scaled = { listId: list.id, servings: 3 };
    await refusedAlike(c.recipes.copyToList(recipe.id, scaled), copyPath, scaled, [
      { path: 'servings', message: `the quantity of Flour would exceed ${QUANTITY_MAX}` },
    ]);
    // Chosen ingredients only, in recipe order.
    const chosen = await c.recipes.copyToList(recipe.id, { listId: list.id, ingredientIds: [salt!.id, flour!.id] });
    expect(chosen.items.map((i) => i.name)).to.deep.equal(['Flour', 'Salt']);
    await c.start();
    await c.awaitInSync();
    const detail = await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean)));
    expect(detail).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
    expect(JSON.stringify(detail)).to.contain('"name":"Flour"').and.contain('"name":"Salt"').and.not.contain('Yeast');
  });

  it('ingredients at one position and one time follow their ids, on the device as on the server', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    // One REST create: its ingredients share the write's time; three at position 0, given with
    // their ids out of order, and one before them.
    const [a, b, c3] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()].sort();
    const recipe = await rest('POST', '/api/recipes', {
      name: 'Crepes',
      ingredients: [
        { id: b, name: 'Flour', position: 0 },
        { id: c3, name: 'Milk', position: 0 },
        { id: a, name: 'Eggs', position: 0 },
      ],
    });
    const served = (await rest('GET', `/api/recipes/${recipe.id}`)) as { ingredients: { name: string }[] };
    expect(served.ingredients.map((i) => i.name)).to.deep.equal(['Eggs', 'Flour', 'Milk']);
    const list = await rest('POST', '/api/lists', { name: 'Crepes day' });

    const c = sdk.track(await signedInClient(sdk.app, family.admin));
    await syncThenOffline(c);
    // Copied offline: in the server's order; an ingredient added after them goes last.
    const copied = await c.recipes.copyToList(recipe.id, { listId: list.id });
    expect(copied.items.map((i) => i.name)).to.deep.equal(['Eggs', 'Flour', 'Milk']);
    expect((await c.ingredients.add(recipe.id, { name: 'Butter' })).position).to.equal(1);
    await c.start();
    await c.awaitInSync();
    const detail = await firstValueFrom(c.lists.detail$(list.id).pipe(filter(Boolean)));
    expect(detail).to.deep.equal(await rest('GET', `/api/lists/${list.id}`));
  });
});
