import { sql, type Kysely, type Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

export function webhooksMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('webhook_endpoints'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('enabled_events', 'text', (col) => col.notNull())
        .addColumn('secret', 'text', (col) => col.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', TIMESTAMP)
        .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('enabled', 'disabled')`))
        .addColumn('disabled_reason', 'text')
        .addColumn('failing_since', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('webhook_endpoints_scope_seq').on('webhook_endpoints').columns(['client_id', 'mode', 'seq']).execute();

      // A delivery is a `webhooks.deliver` job (its row in `jobs` holds the live state); its attempts
      // are kept here. Deleting an endpoint deletes its attempts (ON DELETE CASCADE).
      await withSequence(db.schema.createTable('webhook_delivery_attempts'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('delivery_id', 'text', (col) => col.notNull())
        .addColumn('endpoint_id', 'text', (col) => col.notNull().references('webhook_endpoints.id').onDelete('cascade'))
        .addColumn('event_id', 'text', (col) => col.notNull())
        .addColumn('client_id', 'text', (col) => col.notNull())
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('attempt', 'integer', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('duration_ms', 'integer', (col) => col.notNull())
        .addColumn('error', 'text')
        .addColumn('next_attempt_at', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      // Listing an endpoint's attempts newest first (also serves the cascade); a delivery's last attempt.
      await db.schema
        .createIndex('webhook_delivery_attempts_endpoint_seq')
        .on('webhook_delivery_attempts')
        .columns(['endpoint_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('webhook_delivery_attempts_delivery')
        .on('webhook_delivery_attempts')
        .columns(['delivery_id', 'attempt'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('webhook_delivery_attempts').execute();
      await db.schema.dropTable('webhook_endpoints').execute();
    },
  };
}
