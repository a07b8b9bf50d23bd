// Reads remembered until the next write, for the embedded database (PGlite) only.
//
// PGlite lives in this process and has one connection: every statement that reaches it goes
// through this process's knex, one at a time (the pool holds one connection, lent whole to a
// statement or a transaction). So this process sees every write, and a write that has started
// runs to its COMMIT before any other statement. The write generation counts them: it moves when
// a statement that may write (anything but a plain read: `mayWrite`) or ends a transaction
// (COMMIT, ROLLBACK) is handed to the database, on knex's `query` event, which fires for every
// statement, transactions' BEGIN/COMMIT/ROLLBACK included.
//
// A read remembered here is tagged with the generation read *before* its statement was sent, and
// is answered again only while the generation is still that one: any write handed to the
// database after that moment, even one that ran before the read's statement did, makes it
// stale. A write handed over before that moment had the connection until it ended, so the
// read's statement saw it. Hence an answer from here is the answer the database would give
// now: exact, not "fresh enough".
//
// With PostgreSQL (a pool of connections, other instances and tools writing too) none of this
// holds, and the service makes no ReadCache (server/server.ts): every request asks the database.
import type { Db } from './knex.js';

/** The first word of a statement that only reads (unless it calls something that writes). */
const READ_STATEMENT = /^\s*\(?\s*(select|with|show|explain)\b/i;
/**
 * Words that make a `SELECT`/`WITH` statement one that may write: a data-modifying CTE or
 * `SELECT … INTO`, row locks (only ever inside a write transaction), and the built-in functions
 * with side effects. A function of our own that writes, called from a SELECT, must be named here.
 */
const WRITING_WORDS =
  /\b(insert|update|delete|merge|truncate|into|copy|call|nextval|setval|set_config|pg_advisory\w*|pg_notify|lo_\w+|txid_current|pg_current_xact_id)\b/i;

/** Whether a statement may change what a later read returns (conservative: when unsure, yes). */
export function mayWrite(sql: unknown): boolean {
  if (typeof sql !== 'string') return true;
  return !READ_STATEMENT.test(sql) || WRITING_WORDS.test(sql);
}

interface Generation {
  value: number;
}

const generations = new WeakMap<Db, Generation>();

/**
 * The write generation of a database handle (counting from when it was first asked for: a read
 * remembered later cannot predate it). One per handle, however many apps share the handle.
 */
export function writeGeneration(db: Db): Generation {
  let g = generations.get(db);
  if (!g) {
    const generation: Generation = { value: 0 };
    g = generation;
    generations.set(db, generation);
    db.on('query', (query: { sql?: unknown }) => {
      if (mayWrite(query.sql)) generation.value++;
    });
  }
  return g;
}

interface Entry {
  generation: number;
  value: unknown;
}

/** At most this many reads are remembered; past it the oldest half is dropped. */
const MAX_ENTRIES = 10_000;

export class ReadCache {
  private readonly generation: Generation;
  private entries = new Map<string, Entry>();
  hits = 0;
  misses = 0;

  constructor(db: Db) {
    this.generation = writeGeneration(db);
  }

  /**
   * The value `load` gives, from memory when it was read since the last write. `key` names the
   * read and everything it depends on besides the database (e.g. the user and the family).
   */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && entry.generation === this.generation.value) {
      this.hits++;
      return entry.value as T;
    }
    this.misses++;
    const before = this.generation.value;
    const value = await load();
    this.put(key, before, value);
    return value;
  }

  /** The generation now: read it before sending a statement whose answer is then `put`. */
  now(): number {
    return this.generation.value;
  }

  /** Remembers what a statement sent at generation `before` answered (unless a write came since). */
  put(key: string, before: number, value: unknown): void {
    if (before !== this.generation.value) {
      this.entries.delete(key);
      return;
    }
    if (this.entries.size >= MAX_ENTRIES) {
      let drop = this.entries.size / 2;
      for (const k of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(k);
      }
    }
    this.entries.set(key, { generation: before, value });
  }
}
