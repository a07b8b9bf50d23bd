// The item's stored record JSON (shopping_list_items.record_json_open, written by the database
// with every row) is the protocol's field table written in SQL (server/shared/record-json-sql.ts).
// A field added to the table without its migration of that column, or a migration whose copy of
// the fields differs from the table, fails here, with or without item rows in the database
// (detail-sql.test.ts compares rows: toItem's bytes against the column's).
import { expect } from 'chai';
import { testApp } from '../../helpers/app.js';
import {
  itemRecordJsonDdl,
  jsonSqlFields,
  recordJsonOpenSql,
  SQL_TYPES,
} from '../../../server/shared/record-json-sql.js';

type App = Awaited<ReturnType<typeof testApp>>;

describe('stored item record JSON follows the protocol’s field table', () => {
  let app: App;
  before(async () => {
    app = await testApp();
  });

  it('the column’s function writes every field of the table, in order, by its kind', async () => {
    const fields = jsonSqlFields('items');
    const { rows } = (await app.deps.db.raw(
      `SELECT p.prosrc, pg_get_function_identity_arguments(p.oid) AS args
         FROM pg_proc p WHERE p.proname = 'fs_item_record_json_open'`,
    )) as { rows: Array<{ prosrc: string; args: string }> };
    expect(rows).to.have.length(1);
    expect(rows[0]!.prosrc.trim()).to.equal(`SELECT ${recordJsonOpenSql(fields)}`);
    expect(rows[0]!.args).to.equal(
      fields
        .map(([, column, kind]) => `${column} ${SQL_TYPES[kind].replace('timestamptz', 'timestamp with time zone')}`)
        .join(', '),
    );
  });

  it('the generated column passes the table’s columns to it, in order', async () => {
    const { rows } = (await app.deps.db.raw(
      `SELECT pg_get_expr(d.adbin, d.adrelid) AS expr
         FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
        WHERE d.adrelid = 'shopping_list_items'::regclass AND a.attname = 'record_json_open'`,
    )) as { rows: Array<{ expr: string }> };
    expect(rows).to.have.length(1);
    const columns = jsonSqlFields('items').map(([, column]) => column);
    expect(rows[0]!.expr).to.equal(`fs_item_record_json_open(${columns.join(', ')})`);
  });

  it('the statements a migration pastes (itemRecordJsonDdl) drop and build the column as it is', async () => {
    const { create, drop } = itemRecordJsonDdl();
    const undone = new Error('rolled back');
    const seen: { prosrc?: string; expr?: string; rows?: number } = {};
    // In one transaction, rolled back: the database keeps its column.
    await app.deps.db
      .transaction(async (trx) => {
        for (const sql of drop) await trx.raw(sql);
        const gone = await trx.raw(`SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'fs_item_record_json_open'`);
        seen.rows = gone.rows[0].n;
        for (const sql of create) await trx.raw(sql);
        const fn = await trx.raw(`SELECT prosrc FROM pg_proc WHERE proname = 'fs_item_record_json_open'`);
        seen.prosrc = String(fn.rows[0].prosrc).trim();
        const col = await trx.raw(
          `SELECT pg_get_expr(d.adbin, d.adrelid) AS expr
             FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
            WHERE d.adrelid = 'shopping_list_items'::regclass AND a.attname = 'record_json_open'`,
        );
        seen.expr = col.rows[0]?.expr;
        throw undone;
      })
      .catch((e: unknown) => {
        if (e !== undone) throw e;
      });
    expect(seen.rows).to.equal(0);
    expect(seen.prosrc).to.equal(`SELECT ${recordJsonOpenSql(jsonSqlFields('items'))}`);
    const columns = jsonSqlFields('items').map(([, column]) => column);
    expect(seen.expr).to.equal(`fs_item_record_json_open(${columns.join(', ')})`);
  });
});
