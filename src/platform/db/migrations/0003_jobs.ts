import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { TIMESTAMP, withSequence } from '../migration-helpers.js';

export function jobsMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('jobs'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('payload', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('run_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull())
        .addColumn('max_attempts', 'integer', (col) => col.notNull())
        .addColumn('locked_by', 'text')
        .addColumn('locked_until', TIMESTAMP)
        .addColumn('last_error', 'text')
        .addColumn('dedupe_key', 'text', (col) => col.unique())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('finished_at', TIMESTAMP)
        .execute();
      // The claim query: due pending jobs and running jobs whose lease ran out, oldest first.
      await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'run_at']).execute();
      await db.schema.createIndex('jobs_lease').on('jobs').columns(['status', 'locked_until']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('jobs').execute();
    },
  };
}
