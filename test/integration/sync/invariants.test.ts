// The replication invariant held by the database: every insert or update of a replicated table
// carries the version its transaction took from the family counter (the catalog counter for the
// global catalog). Any other write is refused, so the rest of the suite checks the invariant on
// every write it makes, cascades included (docs/sync.md, "What pins the invariants").
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { catalogWrite, familyWrite, takeFamilyVersion } from '../../../server/db/family-write.js';
import {
  GLOBAL_CATALOG_TABLES,
  REPLICATED_FAMILY_TABLES,
  TABLE_COLLECTION,
} from '../../../server/db/replicated-tables.js';
import { newId } from '../../../server/db/ids.js';
import { mapPgError } from '../../../server/db/errors.js';
import { insertVersioned } from '../../helpers/versioned.js';
import { familyVersion } from './helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

/** The SQLSTATE of the refusal (migrations/20261123200001_require_write_version.ts). */
const UNVERSIONED = 'FS001';

async function refused(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    expect((err as { code?: string }).code, String(err)).to.equal(UNVERSIONED);
    return;
  }
  expect.fail('expected the write to be refused as unversioned');
}

async function storeOf(app: App, familyId: string, name = `Store ${newId().slice(0, 8)}`) {
  const [row] = await insertVersioned(app, familyId, 'stores', { id: newId(), name });
  return row!;
}

describe('sync invariants: the database refuses a replicated row without its write’s version', () => {
  let app: App;
  before(async () => {
    app = await testApp();
  });

  it('guards every replicated table (family tables and the global catalog), on inserts and updates', async () => {
    const rows = (
      await app.deps.db.raw(
        `SELECT c.relname AS table, t.tgtype::int AS type FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE t.tgname = c.relname || '_write_version' AND NOT t.tgisinternal AND t.tgenabled <> 'D'`,
      )
    ).rows as Array<{ table: string; type: number }>;
    const guarded = rows.map((r) => r.table).sort();
    const replicated = [...REPLICATED_FAMILY_TABLES, ...Object.values(GLOBAL_CATALOG_TABLES)].sort();
    expect(guarded).to.deep.equal(replicated);
    // Every table the family write can name in Changed.collections is among them.
    expect(Object.keys(TABLE_COLLECTION).every((t) => guarded.includes(t))).to.equal(true);
    // tgtype bits: ROW 1, BEFORE 2, INSERT 4, DELETE 8, UPDATE 16.
    for (const r of rows) expect(r.type & (1 | 2 | 4 | 16), r.table).to.equal(1 | 2 | 4 | 16);
  });

  it('refuses a row a family write forgot to stamp, and the whole write rolls back (no version taken)', async () => {
    const { familyId } = await makeFamily(app);
    const store = await storeOf(app, familyId, 'Before');
    const before = await familyVersion(app, familyId);
    await refused(
      familyWrite(app.deps, familyId, async (w) => {
        await w.insert('shopping_lists', { id: newId(), name: 'Stamped' });
        await w.trx('stores').where({ id: store.id }).update({ name: 'Forgotten' }); // no w.stamp()
      }),
    );
    expect(await familyVersion(app, familyId)).to.equal(before);
    expect(await app.deps.db('stores').where({ id: store.id }).first()).to.include({
      name: 'Before',
      version: String(store.version),
    });
    // An insert that forgets the version gets none at all: refused by the same check.
    await refused(
      familyWrite(app.deps, familyId, (w) =>
        w.trx('shopping_lists').insert({ id: newId(), name: 'x', family_id: familyId, version: 0 }),
      ),
    );
  });

  it('refuses a stale version, the counter value read instead of taken, another family’s row, and a write after commit', async () => {
    const a = await makeFamily(app);
    const b = await makeFamily(app);
    const store = await storeOf(app, a.familyId);
    // The version an earlier write took.
    await refused(
      familyWrite(app.deps, a.familyId, (w) =>
        w.trx('stores').where({ id: store.id }).update({ name: 'Stale', version: store.version }),
      ),
    );
    // The counter's current value, outside any family write (read, not taken).
    const current = await familyVersion(app, a.familyId);
    await refused(app.deps.db('stores').where({ id: store.id }).update({ name: 'Read', version: current }));
    // A row of family B written inside family A's write, with A's version.
    await refused(
      familyWrite(app.deps, a.familyId, (w) =>
        w.trx('stores').insert({ id: newId(), name: 'Elsewhere', family_id: b.familyId, version: w.version }),
      ),
    );
    // The version a committed transaction took does not carry over to the next transaction.
    let taken = '';
    await app.deps.db.transaction(async (trx) => {
      taken = (await takeFamilyVersion(trx, a.familyId))!;
      await trx('stores').where({ id: store.id }).update({ name: 'Taken', version: taken });
    });
    expect(await app.deps.db('stores').where({ id: store.id }).first()).to.include({ name: 'Taken', version: taken });
    await refused(app.deps.db('stores').where({ id: store.id }).update({ name: 'Later', version: taken }));
    // A version taken in a savepoint that rolled back is gone with it (the counter update and
    // the setting roll back together).
    await refused(
      app.deps.db.transaction(async (trx) => {
        await trx
          .transaction(async (sp) => {
            await takeFamilyVersion(sp, a.familyId);
            throw new Error('roll the savepoint back');
          })
          .catch(() => undefined);
        await trx('stores')
          .where({ id: store.id })
          .update({ name: 'After savepoint', version: String(Number(taken) + 1) });
      }),
    );
  });

  it('refuses a foreign-key action that would change a row behind the family write (ON DELETE SET NULL keeps the old version)', async () => {
    const { familyId } = await makeFamily(app);
    const store = await storeOf(app, familyId);
    const listId = newId();
    await insertVersioned(app, familyId, 'shopping_lists', { id: listId, name: 'Linked', store_id: store.id });
    await refused(familyWrite(app.deps, familyId, (w) => w.trx('stores').where({ id: store.id }).del()));
    expect(await app.deps.db('shopping_lists').where({ id: listId }).first()).to.include({ store_id: store.id });
  });

  it('refuses a global catalog row without the catalog version its transaction took', async () => {
    const id = newId();
    await refused(app.deps.db('products').insert({ id, key: `t-${id}`, name: 'Unversioned' }));
    const { rows } = (await app.deps.db.raw('SELECT version FROM catalog_counter')) as {
      rows: Array<{ version: string }>;
    };
    await refused(
      app.deps.db('products').insert({ id, key: `t-${id}`, name: 'Read', catalog_version: rows[0]!.version }),
    );
    await catalogWrite(app.deps, (trx, version) =>
      trx('products').insert({ id, key: `t-${id}`, name: 'Versioned', catalog_version: version }),
    );
    await refused(app.deps.db('products').where({ id }).update({ name: 'Renamed behind' }));
    await refused(
      catalogWrite(app.deps, (trx) => trx('products').where({ id }).update({ name: 'Forgot the version' })),
    );
    await catalogWrite(app.deps, (trx, version) =>
      trx('products').where({ id }).update({ name: 'Renamed', catalog_version: version }),
    );
    expect(await app.deps.db('products').where({ id }).first()).to.include({ name: 'Renamed' });
  });

  it('treats a write that breaks it as a server bug (500 internal), never as the client’s error', async () => {
    const { familyId } = await makeFamily(app);
    const store = await storeOf(app, familyId);
    let caught: unknown;
    try {
      await familyWrite(app.deps, familyId, (w) => w.trx('stores').where({ id: store.id }).update({ name: 'x' }));
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string }).code).to.equal(UNVERSIONED);
    expect(mapPgError(caught), 'a bug, not the client’s fault').to.equal(undefined);
  });
});
