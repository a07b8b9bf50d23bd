// Tombstone retention: the purge job removes tombstones older than 30 days only, raises the
// family's horizon, and a pull from a checkpoint before the horizon answers 410.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { purgeTombstones, schedulePurge, TOMBSTONE_RETENTION_MS } from '../../../server/sync/purge.js';
import { updateVersioned } from '../../helpers/versioned.js';
import { pull, pullAll } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;

describe('sync tombstone purge', () => {
  it('removes tombstones older than 30 days only, raises the horizon, and expires older checkpoints with 410', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const db = app.deps.db;
    const list = (await request(app, 'POST', '/api/lists', { token: t, body: { name: 'Old' } })).body;
    const keep = (await request(app, 'POST', `/api/lists/${list.id}/items`, { token: t, body: { name: 'keep' } })).body;
    const oldGone = (await request(app, 'POST', `/api/lists/${list.id}/items`, { token: t, body: { name: 'old' } }))
      .body;
    const young = (await request(app, 'POST', `/api/lists/${list.id}/items`, { token: t, body: { name: 'young' } }))
      .body;
    const early = await pull(app, t, 'items', null, 1);
    const earlyCheckpoint = early.body.checkpoint;
    // Two hard deletes (tombstones), one aged beyond the retention period.
    const recipe = (
      await request(app, 'POST', '/api/recipes', { token: t, body: { name: 'R', ingredients: [{ name: 'x' }] } })
    ).body;
    await request(app, 'DELETE', `/api/recipes/${recipe.id}`, { token: t });
    const f = family.familyId;
    const now = app.deps.clock.now().getTime();
    await updateVersioned(
      app,
      f,
      'shopping_list_items',
      { id: oldGone.id },
      { deleted: true, updated_at: new Date(now - 31 * DAY) },
    );
    await updateVersioned(app, f, 'shopping_list_items', { id: young.id }, { deleted: true });
    await updateVersioned(
      app,
      f,
      'recipe_ingredients',
      { recipe_id: recipe.id },
      { updated_at: new Date(now - 40 * DAY) },
    );
    await updateVersioned(app, f, 'recipes', { id: recipe.id }, { updated_at: new Date(now - 40 * DAY) });
    const purgedVersions = [
      ...(await db('shopping_list_items').where({ id: oldGone.id }).pluck('version')),
      ...(await db('recipes').where({ id: recipe.id }).pluck('version')),
    ].map(Number);
    const latest = await pullAll(app, t, 'items');

    const result = await purgeTombstones(app.deps);
    expect(result.rows).to.be.at.least(3);
    expect(await db('shopping_list_items').where({ id: oldGone.id }).first()).to.equal(undefined);
    expect(await db('recipes').where({ id: recipe.id }).first()).to.equal(undefined);
    expect(await db('recipe_ingredients').where({ recipe_id: recipe.id }).first()).to.equal(undefined);
    expect(await db('shopping_list_items').where({ id: young.id }).first()).to.include({ deleted: true });
    expect(await db('shopping_list_items').where({ id: keep.id }).first()).to.include({ deleted: false });
    const counters = await db('family_counters').where({ family_id: family.familyId }).first();
    expect(Number(counters.tombstone_horizon)).to.equal(Math.max(...purgedVersions));

    const expired = await pull(app, t, 'items', earlyCheckpoint);
    expect([expired.status, expired.body.code]).to.deep.equal([410, 'checkpoint_expired']);
    // A client that pulled recently (checkpoint past the horizon) carries on.
    expect((await pull(app, t, 'items', latest.checkpoint)).status).to.equal(200);
    // Re-sync from scratch: the purged row is simply absent, and the new checkpoint is valid.
    const fresh = await pullAll(app, t, 'items', null, 1);
    expect([...fresh.docs.keys()].sort()).to.deep.equal([keep.id, young.id].sort());
    expect((await pull(app, t, 'items', fresh.checkpoint)).status).to.equal(200);
    // A second run has nothing old left to remove for this family.
    await purgeTombstones(app.deps);
    expect(await db('shopping_list_items').where({ id: young.id }).first()).to.include({ deleted: true });
  });

  it('keeps a tombstone that a remaining row still references and uses the configured retention', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const db = app.deps.db;
    const list = (await request(app, 'POST', '/api/lists', { token: t, body: { name: 'L' } })).body;
    const unit = (
      await request(app, 'POST', '/api/units', {
        token: t,
        body: { name: 'Sack', abbreviation: `sk${Date.now() % 100000}`, category: 'Count' },
      })
    ).body;
    const item = (
      await request(app, 'POST', `/api/lists/${list.id}/items`, {
        token: t,
        body: { name: 'Rice', familyUnitOfMeasureId: unit.id },
      })
    ).body;
    // The item is tombstoned recently, the unit long ago: the unit must wait for the item.
    await updateVersioned(app, family.familyId, 'shopping_list_items', { id: item.id }, { deleted: true });
    await updateVersioned(
      app,
      family.familyId,
      'family_units_of_measure',
      { id: unit.id },
      { deleted: true, updated_at: new Date(Date.now() - 60 * DAY) },
    );
    await purgeTombstones(app.deps);
    expect(await db('family_units_of_measure').where({ id: unit.id }).first()).to.include({ deleted: true });
    // With a shorter retention (tests), the item goes too, then the unit.
    await purgeTombstones(
      { db, clock: { now: () => new Date(Date.now() + 1000) } },
      { retentionMs: 0, familyIds: [family.familyId] },
    );
    expect(await db('shopping_list_items').where({ id: item.id }).first()).to.equal(undefined);
    expect(await db('family_units_of_measure').where({ id: unit.id }).first()).to.equal(undefined);
    expect(TOMBSTONE_RETENTION_MS).to.equal(30 * DAY);
  });

  it('runs on a schedule: the scheduled job removes an old tombstone without being called', async () => {
    const app = await testApp();
    const family = await makeFamily(app);
    const t = family.admin.token;
    const recipe = (await request(app, 'POST', '/api/recipes', { token: t, body: { name: 'Old' } })).body;
    await request(app, 'DELETE', `/api/recipes/${recipe.id}`, { token: t });
    await updateVersioned(
      app,
      family.familyId,
      'recipes',
      { id: recipe.id },
      { updated_at: new Date(Date.now() - 31 * DAY) },
    );
    const stop = schedulePurge(app.deps, 10);
    try {
      for (let i = 0; i < 500 && (await app.deps.db('recipes').where({ id: recipe.id }).first()); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      stop();
    }
    expect(await app.deps.db('recipes').where({ id: recipe.id }).first()).to.equal(undefined);
  });
});
