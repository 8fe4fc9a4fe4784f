import { sql, type Kysely, type Migration } from 'kysely';
import type { DbCapabilities } from '../database.js';
import { TIMESTAMP, withSequence } from '../migration-helpers.js';

/**
 * Verify, part 4: statement PDFs. Each format of a statement is generated once and its bytes kept
 * (`bytea`: PostgreSQL's binary type; SQLite stores the bytes as a blob under any type name), so
 * every later download is the same document. `document_hash` (the SHA-256 of the signed data the
 * PDF embeds) and `pdf_sha256` (of the file) are indexed for checking a document later.
 */
export function verifyStatementDocumentsMigration(capabilities: DbCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('verify_statements').addColumn('pdf_generated_at', TIMESTAMP).execute();
      await withSequence(db.schema.createTable('verify_statement_documents'), capabilities)
        .addColumn('statement_id', 'text', (col) => col.notNull().references('verify_statements.id'))
        .addColumn('format', 'text', (col) => col.notNull().check(sql`format in ('monthly', 'custom')`))
        .addColumn('page_size', 'text', (col) => col.notNull())
        .addColumn('pdf', 'bytea', (col) => col.notNull())
        .addColumn('pdf_sha256', 'text', (col) => col.notNull())
        .addColumn('document_hash', 'text', (col) => col.notNull())
        .addColumn('signing_key_id', 'text', (col) => col.notNull())
        .addColumn('created_at', TIMESTAMP, (col) => col.notNull())
        .addUniqueConstraint('verify_statement_documents_once', ['statement_id', 'format'])
        .execute();
      // Not unique: two first downloads of one format in the same second sign the same payload, and
      // the one arbiter of who stored the document must be (statement_id, format).
      await db.schema
        .createIndex('verify_statement_documents_document_hash')
        .on('verify_statement_documents')
        .column('document_hash')
        .execute();
      await db.schema.createIndex('verify_statement_documents_pdf_sha256').on('verify_statement_documents').column('pdf_sha256').execute();
    },
  };
}
