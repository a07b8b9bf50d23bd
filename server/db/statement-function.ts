// A hot statement of fixed text kept as a database function on the embedded database.
//
// PGlite names no prepared statements (knex-pglite ignores `prepared`), so every call of a
// statement is parsed and planned again, in WebAssembly on the HTTP thread: half the cost of the
// list detail at 200 items, a third of a pull page of 1,000 items. A PL/pgSQL function keeps the
// plans of its statements for the session, and PGlite has one session. So on PGlite such a
// statement, unchanged, is made the body of a function at every start (server/server.ts
// `STATEMENT_FUNCTIONS`): always this code's statement, and one process opens a PGlite database.
// PostgreSQL keeps the statement as a named prepared statement of each connection instead
// (`prepared`, knex.ts), so several instances of different versions never share a function.
import type { Db } from './knex.js';

export interface StatementFunction {
  /** The function's name in the database. */
  name: string;
  /** The statement, with knex named bindings (`:familyId`); as a plain statement it runs as is. */
  sql: string;
  /** Its bindings in the function's argument order, each with its SQL type. */
  args: Array<[binding: string, type: string]>;
  /** `text`: the statement yields one value (the function is a scalar expression); otherwise the
   *  columns of its rows, `TABLE (...)` (the function is a row source). */
  returns: string;
  /** The function called with the statement's bindings: an expression (`returns` text) or a
   *  `SELECT * FROM` it. */
  call: string;
}

const argName = (binding: string) => `p_${binding}`;

/** A statement kept as a function: `name`, `sql`, `args`, `returns` as in `StatementFunction`. */
export function statementFunction(def: Omit<StatementFunction, 'call'>): StatementFunction {
  const invoke = `${def.name}(${def.args.map(([b, type]) => `:${b}::${type}`).join(', ')})`;
  return { ...def, call: def.returns === 'text' ? invoke : `SELECT * FROM ${invoke}` };
}

/** Creates (or replaces) the function of a statement: its bindings become the arguments. */
export async function createStatementFunction(db: Db, s: StatementFunction): Promise<void> {
  let body = s.sql;
  for (const [binding] of s.args) body = body.replace(new RegExp(`(?<!:):${binding}\\b`, 'g'), argName(binding));
  if (/(?<!:):[A-Za-z_]\w*/.test(body.replace(/'[^']*'/g, "''")) || body.includes('$fn$'))
    throw new Error(`the statement of ${s.name} cannot be made a function`);
  const params = s.args.map(([b, type]) => `${argName(b)} ${type}`).join(', ');
  const run = s.returns === 'text' ? `RETURN (${body});` : `RETURN QUERY ${body};`;
  // Dropped first: a function made by an earlier version of this code (a database on disk) may
  // differ in its arguments or columns, which CREATE OR REPLACE cannot change. Column names win
  // over the function's own names (the OUT columns of a `TABLE`), as in the plain statement.
  await db.raw(`DROP FUNCTION IF EXISTS ${s.name}`);
  await db.raw(
    `CREATE OR REPLACE FUNCTION ${s.name}(${params}) RETURNS ${s.returns} LANGUAGE plpgsql STABLE AS $fn$
     #variable_conflict use_column
     BEGIN ${run} END $fn$`,
  );
}
