import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

/**
 * Stored JSON (a text column on both engines) is written and read back here, against the schema of
 * its column: a value that does not fit is refused at its writer (a TypeError, a bug in the code
 * that made it), so the text of every stored row was checked once on its way in. On the way back:
 * a row that does not fit is a StoredJsonError naming the table, the column and the row — thrown,
 * never cast. It reaches a log with that name through the caller's own handler: the HTTP error
 * handler logs it as a failed request (and answers 500 `api_error`), the worker as a failed job.
 */
export class StoredJsonError extends Error {
  readonly table: string;
  readonly column: string;
  readonly rowId: string;

  constructor(table: string, column: string, rowId: string, why: string) {
    super(`${table}.${column} of row ${rowId} does not hold what it should: ${why}`);
    this.name = 'StoredJsonError';
    this.table = table;
    this.column = column;
    this.rowId = rowId;
  }
}

/** One stored JSON column, read and written against the schema of what it holds. */
export interface JsonColumn<S extends TSchema> {
  /** The column's text of row `rowId`, parsed and checked against the schema. */
  decode(text: string, rowId: string): Static<S>;
  /** The text to store; a value that does not fit the schema is refused (it could not be read back). */
  encode(value: Static<S>): string;
}

/** Parses `text`, stored in `table.column` of row `rowId`, and checks it against `check`. */
export function decodeJson<S extends TSchema>(check: TypeCheck<S>, table: string, column: string, rowId: string, text: string): Static<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StoredJsonError(table, column, rowId, 'it is not JSON');
  }
  if (!check.Check(value)) throw new StoredJsonError(table, column, rowId, misfit(check, value));
  return value;
}

/**
 * The text to store for `value` in `target` (`table.column`, named in the error), checked against
 * `check`: a value that does not fit is refused here, at its writer, rather than stored and found
 * by a reader later.
 */
export function encodeJson<S extends TSchema>(check: TypeCheck<S>, target: string, value: Static<S>): string {
  if (!check.Check(value)) throw new TypeError(`a value for ${target} that does not fit its schema: ${misfit(check, value)}`);
  return JSON.stringify(value);
}

/** Why `value` does not fit: the first field that does not, and how. */
function misfit(check: TypeCheck<TSchema>, value: unknown): string {
  const first = check.Errors(value).First();
  return first ? `${first.path || '/'} ${first.message}` : 'it does not fit its schema';
}

/** Declares a stored JSON column; the schema is compiled once, here. */
export function jsonColumn<S extends TSchema>(table: string, column: string, schema: S): JsonColumn<S> {
  const check = TypeCompiler.Compile(schema);
  return {
    decode: (text, rowId) => decodeJson(check, table, column, rowId, text),
    encode: (value) => encodeJson(check, `${table}.${column}`, value),
  };
}
