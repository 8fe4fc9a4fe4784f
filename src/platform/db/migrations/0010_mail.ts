import type { Kysely, Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { TIMESTAMP, withSequence } from '../migration-helpers.js';

/** Mail: the outbox, where messages are kept when no SMTP server is configured (read at /dev/mail). */
export function mailMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withSequence(db.schema.createTable('mail_outbox'), capabilities)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('to_address', 'text', (col) => col.notNull())
        .addColumn('from_address', 'text', (col) => col.notNull())
        .addColumn('subject', 'text', (col) => col.notNull())
        .addColumn('text_body', 'text', (col) => col.notNull())
        .addColumn('html_body', 'text', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .execute();
      // The newest message to one address (`/dev/mail/latest.json?to=…`, what tests and scripts ask).
      await db.schema.createIndex('mail_outbox_to').on('mail_outbox').columns(['to_address', 'seq']).execute();
    },
  };
}
