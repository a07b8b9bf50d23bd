// Item by product (contract §7): an item or ingredient input with productId or familyProductId
// may leave out `name`; it takes the product's effective name (an override applies). Names are
// trimmed and counted in code points, as the protocol's rules say.
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { client, seedGlobalProduct } from './helpers.js';

describe('items and ingredients by product', function () {
  this.timeout(60_000);

  it('an item or ingredient without a name takes the product’s effective name; without a product the name is required', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const call = client(app, family.admin);
    const globalId = await seedGlobalProduct(app, 'Oat milk');
    expect((await call('PUT', `/products/${globalId}/override`, { name: 'Our oat milk' })).status).to.equal(200);
    const own = (await call('POST', '/products', { name: 'Sourdough' })).body;
    const list = (await call('POST', '/lists', { name: '  Weekly  ' })).body;
    expect(list.name).to.equal('Weekly');

    const byGlobal = await call('POST', `/lists/${list.id}/items`, { productId: globalId, quantity: 2 });
    expect(byGlobal.status, byGlobal.text).to.equal(201);
    expect(byGlobal.body).to.include({ name: 'Our oat milk', productId: globalId, quantity: 2 });
    const byFamily = await call('POST', `/lists/${list.id}/items`, { familyProductId: own.id.toUpperCase() });
    expect(byFamily.body).to.include({ name: 'Sourdough', familyProductId: own.id });
    const named = await call('POST', `/lists/${list.id}/items`, { name: ' Rye ', familyProductId: own.id });
    expect(named.body.name).to.equal('Rye');

    const missing = await call('POST', `/lists/${list.id}/items`, { quantity: 1 });
    expect(missing.status).to.equal(400);
    expect(missing.body.errors).to.deep.equal([
      { path: 'body.name', message: 'required unless productId or familyProductId is given' },
    ]);
    expect((await call('POST', `/lists/${list.id}/items`, { productId: globalId, name: '  ' })).status).to.equal(400);

    const recipe = await call('POST', '/recipes', {
      name: 'Toast',
      ingredients: [{ familyProductId: own.id }, { name: 'Butter' }],
    });
    expect(recipe.status, recipe.text).to.equal(201);
    expect(recipe.body.ingredients.map((i: any) => i.name)).to.deep.equal(['Sourdough', 'Butter']);
    const ingredient = await call('POST', `/recipes/${recipe.body.id}/ingredients`, { productId: globalId });
    expect(ingredient.body.name).to.equal('Our oat milk');
    const copied = await call('POST', `/recipes/${recipe.body.id}/copy-to-list`, { listId: list.id });
    expect(copied.body.items.map((i: any) => i.name)).to.deep.equal(['Sourdough', 'Butter', 'Our oat milk']);
  });
});
