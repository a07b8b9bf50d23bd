import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import { newId } from '../../../server/db/ids.js';
import { familyWrite } from '../../../server/db/family-write.js';
import { familyVersion, tag } from '../isolation/fixture.js';

describe('units catalog', () => {
  it('lists the global units, then the family units', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const u1 = await request(app, 'POST', '/api/units', {
      token,
      body: { name: `Sprig ${t}`, abbreviation: `spr${t}`, category: 'Count' },
    });
    expect(u1.status).to.equal(201);
    expect(u1.body).to.include({
      kind: 'family',
      code: null,
      name: `Sprig ${t}`,
      abbreviation: `spr${t}`,
      category: 'Count',
    });
    expect(u1.body.createdAt).to.be.a('string');

    const res = await request(app, 'GET', '/api/units', { token });
    expect(res.status).to.equal(200);
    const kinds: string[] = res.body.map((u: any) => u.kind);
    expect(kinds.lastIndexOf('global')).to.be.lessThan(kinds.indexOf('family'));
    expect(kinds.filter((k) => k === 'family')).to.have.length(1);
    const each = res.body.find((u: any) => u.code === 'each');
    expect(each).to.include({ kind: 'global', name: 'Each', category: 'Count' });
    const gram = res.body.find((u: any) => u.code === 'gram');
    expect(gram).to.include({ kind: 'global', abbreviation: 'g', category: 'Weight' });
    for (const u of res.body) {
      expect(u).to.have.all.keys('id', 'kind', 'code', 'name', 'abbreviation', 'category', 'createdAt', 'updatedAt');
      if (u.kind === 'global') expect(u.code).to.be.a('string');
    }
    expect(res.body[res.body.length - 1].id).to.equal(u1.body.id);

    // Another family does not see it.
    const other = await makeFamily(app);
    const theirs = await request(app, 'GET', '/api/units', { token: other.admin.token });
    expect(theirs.body.map((u: any) => u.id)).to.not.include(u1.body.id);
    expect(theirs.body.every((u: any) => u.kind === 'global')).to.equal(true);
  });

  it('keeps abbreviations unique across global and family units, case-insensitively', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const member = await makeMember(app, fam);
    const token = member.token;
    const t = tag();

    for (const abbreviation of ['G', 'kg', 'FL OZ', 'Ea']) {
      const res = await request(app, 'POST', '/api/units', {
        token,
        body: { name: 'Clash', abbreviation, category: 'Weight' },
      });
      expect(res.status, abbreviation).to.equal(409);
      expect(res.body.code).to.equal('abbreviation_taken');
    }
    const mine = await request(app, 'POST', '/api/units', {
      token,
      body: { name: 'Handful', abbreviation: `hf${t}`, category: 'Count' },
    });
    expect(mine.status).to.equal(201);
    const again = await request(app, 'POST', '/api/units', {
      token,
      body: { name: 'Other', abbreviation: `HF${t}`.toUpperCase(), category: 'Count' },
    });
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal('abbreviation_taken');

    // Another family may use the same abbreviation.
    const other = await makeFamily(app);
    expect(
      (
        await request(app, 'POST', '/api/units', {
          token: other.admin.token,
          body: { name: 'Handful', abbreviation: `hf${t}`, category: 'Count' },
        })
      ).status,
    ).to.equal(201);

    // After deletion the abbreviation is free again.
    expect((await request(app, 'DELETE', `/api/units/${mine.body.id}`, { token })).status).to.equal(204);
    expect(
      (
        await request(app, 'POST', '/api/units', {
          token,
          body: { name: 'Handful', abbreviation: `hf${t}`, category: 'Count' },
        })
      ).status,
    ).to.equal(201);
  });

  it('changes family units only, with the same abbreviation rule (excluding itself)', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const a = (
      await request(app, 'POST', '/api/units', {
        token,
        body: { name: 'Sachet', abbreviation: `sa${t}`, category: 'Count' },
      })
    ).body;
    const b = (
      await request(app, 'POST', '/api/units', {
        token,
        body: { name: 'Scoop', abbreviation: `sc${t}`, category: 'Volume' },
      })
    ).body;

    const self = await request(app, 'PATCH', `/api/units/${a.id}`, {
      token,
      body: { abbreviation: `SA${t}`.toUpperCase() },
    });
    expect(self.status).to.equal(200);
    expect(self.body.abbreviation).to.equal(`SA${t}`.toUpperCase());

    const changed = await request(app, 'PATCH', `/api/units/${a.id}`, {
      token,
      body: { name: 'Packet', category: 'Weight' },
    });
    expect(changed.status).to.equal(200);
    expect(changed.body).to.include({ id: a.id, kind: 'family', code: null, name: 'Packet', category: 'Weight' });

    for (const abbreviation of [`sc${t}`, 'ml', 'TSP']) {
      const res = await request(app, 'PATCH', `/api/units/${a.id}`, { token, body: { abbreviation } });
      expect(res.status, abbreviation).to.equal(409);
      expect(res.body.code).to.equal('abbreviation_taken');
    }

    const units = (await request(app, 'GET', '/api/units', { token })).body;
    const gram = units.find((u: any) => u.code === 'gram');
    const patchGlobal = await request(app, 'PATCH', `/api/units/${gram.id}`, { token, body: { name: 'Gramme' } });
    expect(patchGlobal.status).to.equal(404);
    expect(patchGlobal.body.code).to.equal('not_found');
    expect((await request(app, 'DELETE', `/api/units/${gram.id}`, { token })).status).to.equal(404);
    expect((await request(app, 'PATCH', `/api/units/${newId()}`, { token, body: { name: 'x' } })).status).to.equal(404);

    const bad = await request(app, 'PATCH', `/api/units/${b.id}`, { token, body: { category: 'Length' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].path).to.equal('body.category');
  });

  it('rejects invalid unit input with the field named and writes nothing', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const before = await familyVersion(app, fam.familyId);
    const cases: [unknown, string][] = [
      [{ abbreviation: 'x1', category: 'Count' }, 'body.name'],
      [{ name: 'X', category: 'Count' }, 'body.abbreviation'],
      [{ name: 'X', abbreviation: 'x'.repeat(21), category: 'Count' }, 'body.abbreviation'],
      [{ name: 'X', abbreviation: 'x1' }, 'body.category'],
      [{ name: 'X', abbreviation: 'x1', category: 'count' }, 'body.category'],
    ];
    for (const [body, path] of cases) {
      const res = await request(app, 'POST', '/api/units', { token, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.code).to.equal('validation_failed');
      expect(res.body.errors.map((e: any) => e.path)).to.include(path);
    }
    expect(await familyVersion(app, fam.familyId)).to.equal(before);
  });

  it('applies client-chosen id semantics to family units', async () => {
    const app = await testApp();
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    const id = newId();
    const t = tag();
    const body = { id, name: 'Chosen', abbreviation: `ch${t}`, category: 'Count' };
    const first = await request(app, 'POST', '/api/units', { token: a.admin.token, body });
    expect(first.status).to.equal(201);
    expect(first.body.id).to.equal(id);
    const again = await request(app, 'POST', '/api/units', { token: a.admin.token, body });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    const elsewhere = await request(app, 'POST', '/api/units', {
      token: b.admin.token,
      body: { ...body, abbreviation: `cx${t}` },
    });
    expect(elsewhere.status).to.equal(409);
    expect(elsewhere.body.code).to.equal('id_conflict');
    const units = (await request(app, 'GET', '/api/units', { token: b.admin.token })).body;
    const globalId = units.find((u: any) => u.code === 'each').id;
    const onGlobal = await request(app, 'POST', '/api/units', {
      token: b.admin.token,
      body: { ...body, id: globalId, abbreviation: `cy${t}` },
    });
    expect(onGlobal.status).to.equal(409);
    expect(onGlobal.body.code).to.equal('id_conflict');
  });

  it('blocks deleting a unit used by an ingredient or any list item, removed items included', async () => {
    const app = await testApp();
    const fam = await makeFamily(app);
    const token = fam.admin.token;
    const t = tag();
    const mk = async (abbr: string) =>
      (
        await request(app, 'POST', '/api/units', {
          token,
          body: { name: abbr, abbreviation: `${abbr}${t}`, category: 'Count' },
        })
      ).body.id as string;
    const forIngredient = await mk('ing');
    const forItem = await mk('itm');
    const forRemoved = await mk('rmv');
    const unused = await mk('unu');
    const listId = newId();
    const recipeId = newId();
    const ingredientId = newId();
    await familyWrite(app.deps, fam.familyId, async (w) => {
      await w.insert('shopping_lists', { id: listId, name: 'L' });
      await w.insert('shopping_list_items', {
        id: newId(),
        list_id: listId,
        name: 'active',
        family_unit_of_measure_id: forItem,
      });
      await w.insert('shopping_list_items', {
        id: newId(),
        list_id: listId,
        name: 'removed',
        family_unit_of_measure_id: forRemoved,
        removed_at: w.now,
        removed_by_user_id: fam.admin.userId,
      });
      await w.insert('recipes', { id: recipeId, name: 'R' });
      await w.insert('recipe_ingredients', {
        id: ingredientId,
        recipe_id: recipeId,
        name: 'i',
        family_unit_of_measure_id: forIngredient,
        position: 0,
      });
    });
    for (const id of [forIngredient, forItem, forRemoved]) {
      const before = await familyVersion(app, fam.familyId);
      const res = await request(app, 'DELETE', `/api/units/${id}`, { token });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('unit_in_use');
      expect(await familyVersion(app, fam.familyId)).to.equal(before);
    }
    const listed = (await request(app, 'GET', '/api/units', { token })).body.map((u: any) => u.id);
    expect(listed).to.include.members([forIngredient, forItem, forRemoved, unused]);

    // A tombstoned ingredient no longer holds the unit.
    await familyWrite(app.deps, fam.familyId, (w) => w.tombstone('recipe_ingredients', { id: ingredientId }));
    expect((await request(app, 'DELETE', `/api/units/${forIngredient}`, { token })).status).to.equal(204);

    expect((await request(app, 'DELETE', `/api/units/${unused}`, { token })).status).to.equal(204);
    const after = (await request(app, 'GET', '/api/units', { token })).body.map((u: any) => u.id);
    expect(after).to.not.include(unused);
    expect(after).to.not.include(forIngredient);
    expect((await request(app, 'DELETE', `/api/units/${unused}`, { token })).status).to.equal(404);
  });
});
