// Catalog rules that meet the list and recipe endpoints.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { insertGlobalProduct, tag } from '../isolation/fixture.js';

describe('catalog rules across lists and recipes', () => {
  it('never rejects a unit outside the product flags (rule 4.8)', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const units = (await request(app, 'GET', '/api/units', { token })).body;
    const gram = units.find((u: any) => u.code === 'gram');
    const volumeProduct = await request(app, 'POST', '/api/products', {
      token,
      body: { name: `Juice ${t}`, unitCategoryFlags: ['Volume'] },
    });
    const globalVolume = await insertGlobalProduct(app, `Vinegar ${t}`, 4);
    const list = await request(app, 'POST', '/api/lists', { token, body: { name: 'Weekly' } });
    expect(list.status).to.equal(201);

    const item = await request(app, 'POST', `/api/lists/${list.body.id}/items`, {
      token,
      body: { name: 'Juice', quantity: 500, unitOfMeasureId: gram.id, familyProductId: volumeProduct.body.id },
    });
    expect(item.status).to.equal(201);
    expect(item.body).to.include({ unitOfMeasureId: gram.id, familyProductId: volumeProduct.body.id, quantity: 500 });

    const item2 = await request(app, 'POST', `/api/lists/${list.body.id}/items`, {
      token,
      body: { name: 'Vinegar', quantity: 1.25, unitOfMeasureId: gram.id, productId: globalVolume },
    });
    expect(item2.status).to.equal(201);

    const recipe = await request(app, 'POST', '/api/recipes', {
      token,
      body: {
        name: `Dressing ${t}`,
        ingredients: [{ name: 'Vinegar', quantity: 30, unitOfMeasureId: gram.id, productId: globalVolume }],
      },
    });
    expect(recipe.status).to.equal(201);
    expect(recipe.body.ingredients[0]).to.include({ unitOfMeasureId: gram.id, productId: globalVolume });
  });

  it('a family unit used only by a removed list item still cannot be deleted', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const unit = await request(app, 'POST', '/api/units', {
      token,
      body: { name: 'Tray', abbreviation: `tr${t}`, category: 'Count' },
    });
    const list = await request(app, 'POST', '/api/lists', { token, body: { name: 'L' } });
    const item = await request(app, 'POST', `/api/lists/${list.body.id}/items`, {
      token,
      body: { name: 'Eggs', quantity: 1, familyUnitOfMeasureId: unit.body.id },
    });
    expect(item.status).to.equal(201);
    const removed = await request(app, 'DELETE', `/api/lists/${list.body.id}/items/${item.body.id}`, { token });
    expect(removed.status).to.equal(200);
    expect(removed.body.removedAt).to.be.a('string');

    const del = await request(app, 'DELETE', `/api/units/${unit.body.id}`, { token });
    expect(del.status).to.equal(409);
    expect(del.body.code).to.equal('unit_in_use');
  });

  it('deleting a family product keeps the item on the list under its name, unlinked', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const product = await request(app, 'POST', '/api/products', { token, body: { name: `Tofu ${t}` } });
    const list = await request(app, 'POST', '/api/lists', { token, body: { name: 'L' } });
    const item = await request(app, 'POST', `/api/lists/${list.body.id}/items`, {
      token,
      body: { name: 'Firm tofu', familyProductId: product.body.id },
    });
    expect(item.status).to.equal(201);
    expect((await request(app, 'DELETE', `/api/products/${product.body.id}`, { token })).status).to.equal(204);
    const detail = await request(app, 'GET', `/api/lists/${list.body.id}`, { token });
    const items = detail.body.groups.flatMap((g: any) => g.items);
    expect(items).to.have.length(1);
    expect(items[0]).to.include({ id: item.body.id, name: 'Firm tofu', familyProductId: null });
    // The old id is no longer a valid reference.
    const again = await request(app, 'POST', `/api/lists/${list.body.id}/items`, {
      token,
      body: { name: 'x', familyProductId: product.body.id },
    });
    expect(again.status).to.equal(400);
    expect(again.body.code).to.equal('product_not_found');
  });
});
