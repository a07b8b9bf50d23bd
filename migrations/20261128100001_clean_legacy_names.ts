// Names stored before the name rule of api-contract §13 (a visible character; no control
// character, bidirectional embedding/override/isolate or noncharacter) are cleaned, so that every
// stored name passes the rule every write checks. Without this, a device could not push any edit
// of such a record: the push validates the whole doc (and its `assumedMasterState`), name
// included, and refused the row however the user changed it.
//
// - Cleaning: the refused characters are taken out and the name trimmed; a name left without a
//   visible character becomes "?" (the record stays and can be renamed). A cleaned name that
//   now equals another live name where names are unique (stores, family products, family unit
//   abbreviations, user names: case-insensitively) gets " 2", " 3", … appended.
// - Replicated rows are versioned writes (migrations/20261123200001_require_write_version.ts):
//   each family with a cleaned row takes its next version, announced to the triggers as
//   server/db/family-write.ts does, and the rows carry it, so every device pulls the cleaned
//   names. Family and user names are not replicated: they are updated as they are.
// - Rows are found by a superset in SQL (any character outside printable ASCII, no printable
//   ASCII character at all, or a space at either end); the rule itself is applied here.
//
// Stands alone: no imports of live code. The rule is the protocol's NAME_PATTERN as of this
// migration (client-sdk/src/protocol/rules.ts).
import type { Knex } from 'knex';

const REFUSED = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}\u202A-\u202E\u2066-\u2069]/gu;
const VISIBLE = /[^\p{Z}\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}\p{Cc}]/u;
const PLACEHOLDER = '?';

/** The name as the rule accepts it, or null when it already does. */
export function cleanedName(name: string): string | null {
  const cleaned = name.replace(REFUSED, '').trim();
  const next = VISIBLE.test(cleaned) ? cleaned : PLACEHOLDER;
  return next === name ? null : next;
}

interface NameColumn {
  table: string;
  column: string;
  /** Replicated: a family table whose writes carry the family's version. */
  versioned: boolean;
  /** Unique case-insensitively among live rows of the same family (or of everyone: 'global'). */
  unique?: 'family' | 'global';
  /** The most code points a name of a unique column may hold (rules.ts MAX_LENGTHS as of now). */
  max?: number;
}

const COLUMNS: NameColumn[] = [
  { table: 'shopping_lists', column: 'name', versioned: true },
  { table: 'shopping_list_items', column: 'name', versioned: true },
  { table: 'stores', column: 'name', versioned: true, unique: 'family', max: 200 },
  { table: 'store_sections', column: 'name', versioned: true },
  { table: 'recipes', column: 'name', versioned: true },
  { table: 'recipe_ingredients', column: 'name', versioned: true },
  { table: 'family_products', column: 'name', versioned: true, unique: 'family', max: 200 },
  { table: 'family_product_overrides', column: 'name', versioned: true },
  { table: 'family_units_of_measure', column: 'name', versioned: true },
  { table: 'family_units_of_measure', column: 'abbreviation', versioned: true, unique: 'family', max: 20 },
  { table: 'families', column: 'name', versioned: false },
  { table: 'users', column: 'user_name', versioned: false, unique: 'global', max: 100 },
];

/** Rows that may break the rule: a superset, decided by `cleanedName`. */
const SUSPECT = (c: string) => `(${c} ~ '[^ -~]' OR ${c} !~ '[!-~]' OR ${c} ~ '^ ' OR ${c} ~ ' $')`;

interface Change {
  id: string;
  familyId: string | null;
  name: string;
}

async function uniqueName(
  knex: Knex,
  col: NameColumn,
  familyId: string | null,
  id: string,
  name: string,
  taken: Set<string>,
): Promise<string> {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : ` ${n}`;
    const candidate =
      [...name]
        .slice(0, (col.max ?? Infinity) - suffix.length)
        .join('')
        .trimEnd() + suffix;
    const key = `${familyId ?? ''}\u0000${candidate.toLowerCase()}`;
    if (taken.has(key)) continue;
    const scope = col.unique === 'family' ? 'AND family_id = ?' : '';
    const live = col.table === 'users' ? '' : 'AND NOT deleted';
    const { rows } = (await knex.raw(
      `SELECT 1 FROM ${col.table} WHERE lower(${col.column}) = lower(?) AND id <> ? ${live} ${scope} LIMIT 1`,
      [candidate, id, ...(col.unique === 'family' ? [familyId] : [])],
    )) as { rows: unknown[] };
    if (rows.length === 0) {
      taken.add(key);
      return candidate;
    }
  }
}

export async function up(knex: Knex): Promise<void> {
  // Per family: its cleaned rows, written under one version of that family.
  const byFamily = new Map<string, Array<{ col: NameColumn; change: Change }>>();
  for (const col of COLUMNS) {
    const live = col.table === 'users' || col.table === 'families' ? '' : 'AND NOT deleted';
    const family = col.versioned ? 'family_id' : 'NULL';
    const { rows } = (await knex.raw(
      `SELECT id, ${family} AS family_id, ${col.column} AS name FROM ${col.table}
         WHERE ${col.column} IS NOT NULL ${live} AND ${SUSPECT(col.column)} ORDER BY id`,
    )) as { rows: Array<{ id: string; family_id: string | null; name: string }> };
    const taken = new Set<string>();
    for (const row of rows) {
      const cleaned = cleanedName(row.name);
      if (cleaned === null) continue;
      const name = col.unique ? await uniqueName(knex, col, row.family_id, row.id, cleaned, taken) : cleaned;
      const change = { id: row.id, familyId: row.family_id, name };
      if (!col.versioned) {
        await knex.raw(`UPDATE ${col.table} SET ${col.column} = ? WHERE id = ?`, [name, row.id]);
        continue;
      }
      const list = byFamily.get(row.family_id!) ?? [];
      list.push({ col, change });
      byFamily.set(row.family_id!, list);
    }
  }

  for (const [familyId, changes] of byFamily) {
    // The family's next version, announced to the write-version triggers (as server/db/
    // family-write.ts `takeFamilyVersion` does); transaction-local, replaced by the next family's.
    const { rows } = (await knex.raw(
      `UPDATE family_counters SET version = version + 1 WHERE family_id = ?
         RETURNING version, set_config('fs.family_write', family_id::text || ':' || version::text, true)`,
      [familyId],
    )) as { rows: Array<{ version: string }> };
    if (!rows[0]) continue;
    for (const { col, change } of changes) {
      await knex.raw(
        `UPDATE ${col.table} SET ${col.column} = ?, version = ?, updated_at = now() WHERE id = ? AND family_id = ?`,
        [change.name, rows[0].version, change.id, familyId],
      );
    }
  }
}

export async function down(): Promise<void> {
  // The names removed characters are not kept: nothing to undo.
}
