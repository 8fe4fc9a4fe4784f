import { sql, type Kysely, type Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Idempotency keys (one row per client, mode and key: the lock while the first request runs, then
 * its saved response) and, where several processes share the database, the rate-limit counters.
 */
export function idempotencyMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // No public `id`: these rows are never shown or addressed through the API.
      await withSequence(db.schema.createTable('idempotency_keys'), capabilities)
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('key', 'text', (col) => col.notNull())
        .addColumn('method', 'text', (col) => col.notNull())
        .addColumn('path', 'text', (col) => col.notNull())
        .addColumn('request_hash', 'text', (col) => col.notNull())
        // Set while the first request runs (the lock), null once its response is saved.
        .addColumn('lock_token', 'text')
        .addColumn('locked_until', TIMESTAMP)
        .addColumn('response_status', 'integer')
        .addColumn('response_content_type', 'text')
        .addColumn('response_body', 'text')
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('expires_at', TIMESTAMP, (col) => col.notNull())
        // The lock: of two requests inserting the same key at once, exactly one succeeds.
        .addUniqueConstraint('idempotency_keys_scope_key', ['client_id', 'mode', 'key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_at').execute();

      // rate-limiter-flexible's RateLimiterPostgres table (its exact columns), created here so the
      // schema stays versioned. Only needed where several processes serve one database; there it is
      // UNLOGGED: counters that live for a second need no WAL, and losing them in a crash is harmless.
      // No index on `expire`: it changes on every window, and an index would cost every upsert.
      if (!capabilities.singleWriter) {
        await db.schema
          .createTable('rate_limits')
          .modifyFront(sql`unlogged`)
          .addColumn('key', 'varchar(255)', (col) => col.primaryKey())
          .addColumn('points', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('expire', 'bigint')
          .execute();
      }
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('rate_limits').ifExists().execute();
      await db.schema.dropTable('idempotency_keys').execute();
    },
  };
}
