import { sql, type Kysely, type Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Envelope encryption: the data keys that seal secrets at rest, each wrapped by a master key
 * (src/platform/crypto/data-key.table.ts). Empty here: the first process to start creates the
 * first keys, since only it holds the master key. Values sealed before (`v1.…`, directly under
 * the master key) are left as they are and still open.
 */
export function dataKeysMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('data_keys'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('wrapped_key', 'text', (col) => col.notNull())
        .addColumn('master_key_id', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('pending', 'active', 'retired')`))
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('activated_at', TIMESTAMP)
        .addColumn('retired_at', TIMESTAMP)
        .addColumn('wrapped_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      // One active and one pending key, also when two processes create the first ones at once or
      // two rotations race: the loser's insert fails and it reads the winner's keys.
      await db.schema
        .createIndex('data_keys_one_active')
        .on('data_keys')
        .column('status')
        .unique()
        .where(sql.ref('status'), '=', 'active')
        .execute();
      await db.schema
        .createIndex('data_keys_one_pending')
        .on('data_keys')
        .column('status')
        .unique()
        .where(sql.ref('status'), '=', 'pending')
        .execute();
    },
  };
}
