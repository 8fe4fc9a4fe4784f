import { sql, type CreateTableBuilder } from 'kysely';
import type { DbCapabilities } from './database.js';

/**
 * Adds `seq`, the auto-numbered primary key every table carries. Public ids are random, so lists
 * order and paginate by `seq`, which only grows.
 */
export function withSequence<T extends string>(
  table: CreateTableBuilder<T, never>,
  capabilities: DbCapabilities,
): CreateTableBuilder<T, 'seq'> {
  if (capabilities.identityColumn === 'autoincrement') {
    return table.addColumn('seq', 'integer', (col) => col.primaryKey().autoIncrement());
  }
  return table.addColumn('seq', 'bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity());
}

/** Unix seconds, stored as a 64-bit integer on both engines (32 bits would end in 2038). */
export const TIMESTAMP = 'bigint' as const;

/** CHECK constraint keeping `mode` to the two modes. */
export function modeCheck() {
  return sql`mode in ('test', 'live')`;
}
