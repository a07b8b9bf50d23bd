import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { newId } from '../../../server/db/ids.js';
import { familyWrite } from '../../../server/db/family-write.js';
import { familyVersion, insertGlobalProduct, tag } from '../isolation/fixture.js';

const WEIGHT = 2;
const VOLUME = 4;

describe('products catalog', () => {
  it('merges global products (with the family override applied) and family products', async () => {
    const app = await testApp();
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    const t = tag();
    const milk = await insertGlobalProduct(app, `${t} Milk`, VOLUME);
    const cheese = await insertGlobalProduct(app, `${t} Cheese`, WEIGHT);

    const put = await request(app, 'PUT', `/api/products/${milk}/override`, {
      token: a.admin.token,
      body: { name: `${t} Oat Milk`, unitCategoryFlags: ['Count', 'Volume'] },
    });
    expect(put.status).to.equal(200);
    expect(put.body).to.include({ id: milk, kind: 'global', name: `${t} Oat Milk`, overridden: true });
    expect(put.body.unitCategoryFlags).to.deep.equal(['Count', 'Volume']);

    const fp = await request(app, 'POST', '/api/products', {
      token: a.admin.token,
      body: { name: `${t} Milkshake`, unitCategoryFlags: ['Volume'] },
    });
    expect(fp.status).to.equal(201);
    expect(fp.body).to.include({ kind: 'family', name: `${t} Milkshake`, overridden: false });
    expect(fp.body.unitCategoryFlags).to.deep.equal(['Volume']);
    expect(fp.body.id).to.match(/^[0-9a-f-]{36}$/);
    expect(fp.body.createdAt).to.be.a('string');
    expect(fp.body.updatedAt).to.be.a('string');

    const res = await request(app, 'GET', `/api/products?q=${t}`, { token: a.admin.token });
    expect(res.status).to.equal(200);
    const byId = new Map(res.body.map((p: any) => [p.id, p]));
    expect(res.body).to.have.length(3);
    expect(byId.get(milk)).to.deep.include({
      kind: 'global',
      name: `${t} Oat Milk`,
      overridden: true,
      unitCategoryFlags: ['Count', 'Volume'],
    });
    expect(byId.get(cheese)).to.deep.include({
      kind: 'global',
      name: `${t} Cheese`,
      overridden: false,
      unitCategoryFlags: ['Weight'],
    });
    expect(byId.get(fp.body.id)).to.deep.include({ kind: 'family', overridden: false, unitCategoryFlags: ['Volume'] });

    // Another family sees the global values and none of family A's products.
    const other = await request(app, 'GET', `/api/products?q=${t}`, { token: b.admin.token });
    expect(other.status).to.equal(200);
    expect(other.body.map((p: any) => p.id).sort()).to.deep.equal([milk, cheese].sort());
    const milkB = other.body.find((p: any) => p.id === milk);
    expect(milkB).to.deep.include({ name: `${t} Milk`, overridden: false, unitCategoryFlags: ['Volume'] });
  });

  it('matches the effective name case-insensitively, prefix matches first, then by name', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const t = tag();
    const token = fam.admin.token;
    const g1 = await insertGlobalProduct(app, `b ${t}`, 0); // substring
    const g2 = await insertGlobalProduct(app, `${t} zucchini`, 0); // prefix
    const g3 = await insertGlobalProduct(app, `original name ${t}x`, 0); // renamed by override below
    const f1 = (await request(app, 'POST', '/api/products', { token, body: { name: `a ${t}` } })).body.id;
    const f2 = (await request(app, 'POST', '/api/products', { token, body: { name: `${t.toUpperCase()} apple` } })).body
      .id;
    await request(app, 'PUT', `/api/products/${g3}/override`, { token, body: { name: `${t} mango` } });

    const res = await request(app, 'GET', `/api/products?q=${t.toUpperCase()}`, { token });
    expect(res.status).to.equal(200);
    expect(res.body.map((p: any) => p.id)).to.deep.equal([f2, g3, g2, f1, g1]);

    // The override's name replaces the global one for matching too.
    const byOld = await request(app, 'GET', `/api/products?q=${encodeURIComponent(`original name ${t}`)}`, { token });
    expect(byOld.body.map((p: any) => p.id)).to.not.include(g3);

    // LIKE wildcards in q are matched literally.
    const wild = await request(app, 'GET', `/api/products?q=${encodeURIComponent(`${t}%`)}`, { token });
    expect(wild.body).to.deep.equal([]);
  });

  it('lists the whole catalog by name when q is empty or absent, and honours limit', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    await request(app, 'POST', '/api/products', { token, body: { name: `Family only ${t}` } });
    for (const path of ['/api/products', '/api/products?q=', '/api/products?q=%20']) {
      const res = await request(app, 'GET', path, { token });
      expect(res.status, path).to.equal(200);
      expect(res.body.length).to.be.at.most(50);
      const names: string[] = res.body.map((p: any) => p.name.toLowerCase());
      // Sorted by name (checked on plain-letter names, where every collation agrees).
      const plain = names.filter((n) => /^[a-z ]+$/.test(n));
      expect(plain).to.deep.equal([...plain].sort());
    }
    const all = await request(app, 'GET', '/api/products?limit=200', { token });
    expect(all.body.map((p: any) => p.name)).to.include(`Family only ${t}`);

    await insertGlobalProduct(app, `Limit one ${t}`);
    await insertGlobalProduct(app, `Limit two ${t}`);
    const two = await request(app, 'GET', `/api/products?q=${t}&limit=2`, { token });
    expect(two.status).to.equal(200);
    expect(two.body).to.have.length(2);

    for (const bad of ['201', '0', '-1', 'abc', '1.5']) {
      const res = await request(app, 'GET', `/api/products?limit=${bad}`, { token });
      expect(res.status, bad).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
      expect(res.body.errors[0].path).to.equal('query.limit');
    }
    expect((await request(app, 'GET', '/api/products?limit=200', { token })).status).to.equal(200);
  });

  it('creates, renames and deletes family products, with duplicate names rejected', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const member = await makeMember(app, fam, 'member');
    const token = member.token;
    const t = tag();

    const created = await request(app, 'POST', '/api/products', { token, body: { name: `  Granola ${t} ` } });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ name: `Granola ${t}`, kind: 'family' });
    expect(created.body.unitCategoryFlags).to.deep.equal([]);
    const id = created.body.id;

    const dup = await request(app, 'POST', '/api/products', { token, body: { name: `GRANOLA ${t}` } });
    expect(dup.status).to.equal(409);
    expect(dup.body.code).to.equal('duplicate_name');

    // Another family may use the same name.
    const other = await makeFamily(app);
    expect(
      (await request(app, 'POST', '/api/products', { token: other.admin.token, body: { name: `Granola ${t}` } }))
        .status,
    ).to.equal(201);

    const patched = await request(app, 'PATCH', `/api/products/${id}`, {
      token,
      body: { name: `Muesli ${t}`, unitCategoryFlags: ['Weight', 'Count'] },
    });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({ id, name: `Muesli ${t}`, kind: 'family', overridden: false });
    expect(patched.body.unitCategoryFlags).to.deep.equal(['Count', 'Weight']);

    const second = await request(app, 'POST', '/api/products', { token, body: { name: `Oats ${t}` } });
    const clash = await request(app, 'PATCH', `/api/products/${second.body.id}`, {
      token,
      body: { name: `muesli ${t}` },
    });
    expect(clash.status).to.equal(409);
    expect(clash.body.code).to.equal('duplicate_name');
    // Renaming to its own name in another case is fine.
    expect(
      (await request(app, 'PATCH', `/api/products/${id}`, { token, body: { name: `MUESLI ${t}` } })).status,
    ).to.equal(200);

    const del = await request(app, 'DELETE', `/api/products/${id}`, { token });
    expect(del.status).to.equal(204);
    expect(del.text).to.equal('');
    expect((await request(app, 'DELETE', `/api/products/${id}`, { token })).status).to.equal(404);
    expect((await request(app, 'PATCH', `/api/products/${id}`, { token, body: { name: 'x' } })).status).to.equal(404);
    const search = await request(app, 'GET', `/api/products?q=${t}`, { token });
    expect(search.body.map((p: any) => p.id)).to.deep.equal([second.body.id]);
    // The name is free again.
    expect((await request(app, 'POST', '/api/products', { token, body: { name: `Muesli ${t}` } })).status).to.equal(
      201,
    );
  });

  it('applies client-chosen id semantics to family products', async () => {
    const app = await testApp();
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    const id = newId();
    const t = tag();
    const first = await request(app, 'POST', '/api/products', {
      token: a.admin.token,
      body: { id, name: `Chosen ${t}` },
    });
    expect(first.status).to.equal(201);
    expect(first.body.id).to.equal(id);
    const before = await familyVersion(app, a.familyId);
    const again = await request(app, 'POST', '/api/products', {
      token: a.admin.token,
      body: { id, name: `Chosen ${t}` },
    });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect(await familyVersion(app, a.familyId)).to.be.at.most(before + 1);

    const elsewhere = await request(app, 'POST', '/api/products', {
      token: b.admin.token,
      body: { id, name: `Chosen ${t}` },
    });
    expect(elsewhere.status).to.equal(409);
    expect(elsewhere.body.code).to.equal('id_conflict');
    expect(JSON.stringify(elsewhere.body)).to.not.include(a.familyId);

    const globalId = await insertGlobalProduct(app, `Global ${t}`);
    const onGlobal = await request(app, 'POST', '/api/products', {
      token: b.admin.token,
      body: { id: globalId, name: `Other ${t}` },
    });
    expect(onGlobal.status).to.equal(409);
    expect(onGlobal.body.code).to.equal('id_conflict');
  });

  it('rejects invalid product input with the field named', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const cases: [unknown, string][] = [
      [{}, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x'.repeat(201) }, 'body.name'],
      [{ name: 'ok', unitCategoryFlags: ['Length'] }, 'body.unitCategoryFlags.0'],
      [{ name: 'ok', unitCategoryFlags: 'Weight' }, 'body.unitCategoryFlags'],
      [{ name: 'ok', unitCategoryFlags: ['Weight', 'Weight'] }, 'body.unitCategoryFlags'],
      [{ id: 'not-a-uuid', name: 'ok' }, 'body.id'],
    ];
    const before = await familyVersion(app, fam.familyId);
    for (const [body, path] of cases) {
      const res = await request(app, 'POST', '/api/products', { token, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
      expect(
        res.body.errors.map((e: any) => e.path),
        JSON.stringify(body),
      ).to.include(path);
    }
    // A malformed path id names no product: 404, as an unknown one.
    const malformed = await request(app, 'PATCH', '/api/products/not-a-uuid', { token, body: {} });
    expect([malformed.status, malformed.body.code]).to.deep.equal([404, 'not_found']);
    expect(await familyVersion(app, fam.familyId)).to.equal(before);
  });

  it('sets and clears overrides of global products only', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const g = await insertGlobalProduct(app, `Butter ${t}`, WEIGHT);

    const nameOnly = await request(app, 'PUT', `/api/products/${g}/override`, { token, body: { name: `Ghee ${t}` } });
    expect(nameOnly.status).to.equal(200);
    expect(nameOnly.body).to.deep.include({ name: `Ghee ${t}`, unitCategoryFlags: ['Weight'], overridden: true });

    // PUT replaces the override: the name now follows the global product again.
    const flagsOnly = await request(app, 'PUT', `/api/products/${g}/override`, {
      token,
      body: { unitCategoryFlags: [] },
    });
    expect(flagsOnly.status).to.equal(200);
    expect(flagsOnly.body).to.deep.include({ name: `Butter ${t}`, unitCategoryFlags: [], overridden: true });
    const search = await request(app, 'GET', `/api/products?q=${t}`, { token });
    expect(search.body).to.have.length(1);
    expect(search.body[0]).to.deep.include({ id: g, unitCategoryFlags: [], overridden: true });

    const empty = await request(app, 'PUT', `/api/products/${g}/override`, { token, body: {} });
    expect(empty.status).to.equal(400);
    expect(empty.body.code).to.equal('validation_failed');

    const cleared = await request(app, 'DELETE', `/api/products/${g}/override`, { token });
    expect(cleared.status).to.equal(204);
    const after = await request(app, 'GET', `/api/products?q=${t}`, { token });
    expect(after.body[0]).to.deep.include({
      id: g,
      name: `Butter ${t}`,
      unitCategoryFlags: ['Weight'],
      overridden: false,
    });
    // Clearing again is harmless.
    expect((await request(app, 'DELETE', `/api/products/${g}/override`, { token })).status).to.equal(204);

    const familyProduct = await request(app, 'POST', '/api/products', { token, body: { name: `Own ${t}` } });
    for (const id of [newId(), familyProduct.body.id]) {
      const put = await request(app, 'PUT', `/api/products/${id}/override`, { token, body: { name: 'x' } });
      expect(put.status).to.equal(404);
      expect(put.body.code).to.equal('not_found');
      expect((await request(app, 'DELETE', `/api/products/${id}/override`, { token })).status).to.equal(404);
    }
    // Global products cannot be changed or deleted as family products.
    expect((await request(app, 'PATCH', `/api/products/${g}`, { token, body: { name: 'x' } })).status).to.equal(404);
    expect((await request(app, 'DELETE', `/api/products/${g}`, { token })).status).to.equal(404);
  });

  it('deleting a family product unlinks items and ingredients (names kept) and forgets remembered sections', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const product = await request(app, 'POST', '/api/products', { token, body: { name: `Linked ${t}` } });
    const pid = product.body.id;
    // Another product of the family, linked the same ways: the deletion leaves its links.
    const kept = (await request(app, 'POST', '/api/products', { token, body: { name: `Kept ${t}` } })).body.id;
    const ids = {
      store: newId(),
      section: newId(),
      list: newId(),
      item: newId(),
      removed: newId(),
      recipe: newId(),
      ingredient: newId(),
      memory: newId(),
      keptItem: newId(),
      keptIngredient: newId(),
      keptMemory: newId(),
    };
    await familyWrite(app.deps, fam.familyId, async (w) => {
      await w.insert('stores', { id: ids.store, name: `S ${t}` });
      await w.insert('store_sections', { id: ids.section, store_id: ids.store, name: 'Produce', position: 0 });
      await w.insert('shopping_lists', { id: ids.list, name: 'L', store_id: ids.store });
      await w.insert('shopping_list_items', {
        id: ids.item,
        list_id: ids.list,
        name: 'Linked item',
        family_product_id: pid,
        section_id: ids.section,
      });
      await w.insert('shopping_list_items', {
        id: ids.removed,
        list_id: ids.list,
        name: 'Removed item',
        family_product_id: pid,
        removed_at: w.now,
      });
      await w.insert('recipes', { id: ids.recipe, name: 'R' });
      await w.insert('recipe_ingredients', {
        id: ids.ingredient,
        recipe_id: ids.recipe,
        name: 'Linked ingredient',
        family_product_id: pid,
        position: 0,
      });
      await w.insert('product_store_sections', {
        id: ids.memory,
        store_id: ids.store,
        family_product_id: pid,
        section_id: ids.section,
      });
      await w.insert('shopping_list_items', {
        id: ids.keptItem,
        list_id: ids.list,
        name: 'Kept item',
        family_product_id: kept,
        section_id: ids.section,
      });
      await w.insert('recipe_ingredients', {
        id: ids.keptIngredient,
        recipe_id: ids.recipe,
        name: 'Kept ingredient',
        family_product_id: kept,
        position: 1,
      });
      await w.insert('product_store_sections', {
        id: ids.keptMemory,
        store_id: ids.store,
        family_product_id: kept,
        section_id: ids.section,
      });
    });
    const keptBefore = await Promise.all(
      (
        [
          ['shopping_list_items', ids.keptItem],
          ['recipe_ingredients', ids.keptIngredient],
          ['product_store_sections', ids.keptMemory],
        ] as const
      ).map(([table, id]) => app.deps.db(table).where({ id }).first()),
    );
    const before = await familyVersion(app, fam.familyId);
    const told: Array<{ type: string; item?: { id: string } }> = [];
    const stop = app.deps.bus.subscribe((fid, events) => {
      if (fid === fam.familyId) told.push(...(events as typeof told));
    });
    try {
      expect((await request(app, 'DELETE', `/api/products/${pid}`, { token })).status).to.equal(204);
    } finally {
      stop();
    }
    const version = await familyVersion(app, fam.familyId);
    expect(version).to.equal(before + 1);
    // The active item is told as updated (its link gone); the removed one is not shown, not told.
    expect(told.filter((e) => e.type === 'ItemUpdated').map((e) => e.item?.id)).to.deep.equal([ids.item]);

    const db = app.deps.db;
    const items = await db('shopping_list_items').whereIn('id', [ids.item, ids.removed]).orderBy('name');
    expect(items.map((i: any) => [i.name, i.family_product_id, Number(i.version)])).to.deep.equal([
      ['Linked item', null, version],
      ['Removed item', null, version],
    ]);
    const ingredient = await db('recipe_ingredients').where({ id: ids.ingredient }).first();
    expect([ingredient.name, ingredient.family_product_id, Number(ingredient.version)]).to.deep.equal([
      'Linked ingredient',
      null,
      version,
    ]);
    const memory = await db('product_store_sections').where({ id: ids.memory }).first();
    expect([memory.deleted, Number(memory.version)]).to.deep.equal([true, version]);
    const row = await db('family_products').where({ id: pid }).first();
    expect([row.deleted, Number(row.version)]).to.deep.equal([true, version]);

    // The other product's item, ingredient and remembered section are untouched: still linked,
    // live, at their version.
    const keptAfter = await Promise.all(
      (
        [
          ['shopping_list_items', ids.keptItem],
          ['recipe_ingredients', ids.keptIngredient],
          ['product_store_sections', ids.keptMemory],
        ] as const
      ).map(([table, id]) => db(table).where({ id }).first()),
    );
    expect(keptAfter.map((r: any) => [r.family_product_id, r.deleted, String(r.version)])).to.deep.equal(
      keptBefore.map((r: any) => [kept, false, String(r.version)]),
    );
  });

  it('requires authentication', async () => {
    const app = await testApp();
    expect((await request(app, 'GET', '/api/products')).status).to.equal(401);
    expect((await request(app, 'POST', '/api/products', { body: { name: 'x' } })).status).to.equal(401);
  });
});
