import { sql, type Kysely, type Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { modeCheck, TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Verify, part 2: access requests, and the account-holder portal's sign-in links, sessions and
 * sign-in attempts. The portal finds a person's account holders by e-mail address, case-insensitively.
 */
export function verifyAccessMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('verify_access_requests'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('client_id', 'text', (col) => col.notNull().references('clients.id'))
        .addColumn('mode', 'text', (col) => col.notNull().check(modeCheck()))
        .addColumn('account_holder_id', 'text', (col) => col.notNull().references('account_holders.id'))
        .addColumn('type', 'text', (col) => col.notNull().check(sql`type in ('sharing')`))
        .addColumn('permissions', 'text', (col) => col.notNull())
        .addColumn('message', 'text')
        .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('pending', 'granted', 'declined', 'expired', 'canceled')`))
        .addColumn('claim_ids', 'text', (col) => col.notNull())
        .addColumn('notification_status', 'text', (col) => col.notNull().check(sql`notification_status in ('pending', 'sent', 'failed')`))
        .addColumn('notification_error', 'text')
        .addColumn('notification_sent_at', TIMESTAMP)
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('updated_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('expires_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('responded_at', TIMESTAMP)
        .execute();
      await db.schema
        .createIndex('verify_access_requests_scope_seq')
        .on('verify_access_requests')
        .columns(['client_id', 'mode', 'seq'])
        .execute();
      await db.schema
        .createIndex('verify_access_requests_holder')
        .on('verify_access_requests')
        .columns(['account_holder_id', 'seq'])
        .execute();

      await withSequence(db.schema.createTable('verify_portal_links'), capabilities)
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('modes', 'text', (col) => col.notNull())
        .addColumn('access_request_id', 'text')
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('expires_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('used_at', TIMESTAMP)
        .execute();

      await withSequence(db.schema.createTable('verify_portal_sessions'), capabilities)
        .addColumn('token_hash', 'text', (col) => col.notNull().unique())
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('modes', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('expires_at', TIMESTAMP, (col) => col.notNull())
        .addColumn('ended_at', TIMESTAMP)
        .execute();

      await withSequence(db.schema.createTable('verify_portal_sign_in_attempts'), capabilities)
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('ip', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('verify_portal_sign_in_attempts_email')
        .on('verify_portal_sign_in_attempts')
        .columns(['email', 'created_at'])
        .execute();
      await db.schema
        .createIndex('verify_portal_sign_in_attempts_ip')
        .on('verify_portal_sign_in_attempts')
        .columns(['ip', 'created_at'])
        .execute();

      await db.schema
        .createIndex('account_holders_email')
        .on('account_holders')
        .expression(sql`lower(email)`)
        .execute();
    },
  };
}
