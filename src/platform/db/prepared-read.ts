import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';

/** Runs SELECTs on a connection of its own; see `registerReader`. */
export interface Reader {
  /** A function that runs `sql` with parameters and returns the first row, prepared once. */
  prepareFirst(sql: string): (parameters: readonly unknown[]) => unknown;
}

const readers = new WeakMap<Db, Reader>();

/**
 * Gives a database a separate read connection (SQLite: a second, read-only handle on the same WAL
 * file). Prepared reads on that database go through it: they see only committed data, never wait
 * behind the single write connection, and skip Kysely's executor. Transactions are other Kysely
 * objects with no reader, so reads inside them stay on the transaction's connection.
 */
export function registerReader(db: Db, reader: Reader): void {
  readers.set(db, reader);
}

/** A stand-in for an argument while the query is compiled once. */
class Placeholder {
  constructor(readonly index: number) {}
}

/**
 * A query built by Kysely once and then run with new arguments: building and compiling cost about
 * as much as running a small indexed SELECT, so the hot lookups (by id, by key hash) skip both.
 * `build` must use each argument as a plain value (e.g. `where('id', '=', id)`) so that it ends up
 * among the compiled parameters; the first call checks that it does.
 */
export function preparedRead<Args extends unknown[], Row>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  const compiled = new WeakMap<
    Db,
    { query: CompiledQuery<Row>; slots: (number | undefined)[]; run: ((parameters: readonly unknown[]) => unknown) | undefined }
  >();

  function compile(db: Db, arity: number) {
    let entry = compiled.get(db);
    if (!entry) {
      const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i)) as unknown as Args;
      const query = build(db, ...placeholders).compile();
      const slots = query.parameters.map((p) => (p instanceof Placeholder ? p.index : undefined));
      for (let i = 0; i < arity; i++) {
        if (!slots.includes(i)) throw new Error(`preparedRead: argument ${i} does not appear as a query parameter`);
      }
      entry = { query, slots, run: readers.get(db)?.prepareFirst(query.sql) };
      compiled.set(db, entry);
    }
    return entry;
  }

  /** The first row, or undefined. */
  return async function first(db: Db, ...args: Args): Promise<Row | undefined> {
    const { query, slots, run } = compile(db, args.length);
    const parameters = query.parameters.map((p, i) => {
      const slot = slots[i];
      return slot === undefined ? p : args[slot];
    });
    if (run) return run(parameters) as Row | undefined;
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows[0];
  };
}
