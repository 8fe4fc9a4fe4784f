import type { Insertable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { preparedRead } from '../../platform/db/prepared-read.js';
import type { Scope } from '../../platform/scope.js';
import type { StatementDocumentTable } from '../verify.table.js';
import { ofTenant } from '../../platform/db/of-tenant.js';

const statementForDocument = preparedRead(
  (db: Db, clientId: string, mode: Scope['mode'], id: string, format: StatementDocumentTable['format']) =>
    db
      .selectFrom('verify_statements as s')
      .leftJoin('verify_statement_documents as d', (join) => join.onRef('d.statement_id', '=', 's.id').on('d.format', '=', format))
      .select(['s.id', 's.status', 's.failure_reason', 'd.pdf', 'd.pdf_sha256'])
      .where('s.id', '=', id)
      .$call(ofTenant({ clientId, mode }, 's')),
);

/**
 * A statement of this client and mode with what a download needs: its status and failure, and the
 * stored PDF of `format` if there is one. One prepared read (the hot path of every download after
 * the first: on SQLite it runs on the read connection, never behind a write).
 */
export async function findStatementForDocument(db: Db, scope: Scope, id: string, format: StatementDocumentTable['format']) {
  return statementForDocument(db, scope.clientId, scope.mode, id, format);
}

/** Everything a new document of the statement is made from (the statement's data included). */
export async function findStatementWithData(db: Db, id: string) {
  return db
    .selectFrom('verify_statements')
    .select(['id', 'client_id', 'mode', 'account_holder_id', 'claim_ids', 'status', 'data', 'created_at', 'completed_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Stores a document unless one of its format exists already (another request made it first): true when this call stored it. */
export async function insertStatementDocumentOnce(db: Db, row: Insertable<StatementDocumentTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('verify_statement_documents')
    .values(row)
    .onConflict((conflict) => conflict.columns(['statement_id', 'format']).doNothing())
    .returning('seq')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findStatementDocument(db: Db, statementId: string, format: StatementDocumentTable['format']) {
  return db
    .selectFrom('verify_statement_documents')
    .select(['pdf', 'pdf_sha256', 'document_hash'])
    .where('statement_id', '=', statementId)
    .where('format', '=', format)
    .executeTakeFirst();
}

/** Sets `pdf_generated_at` the first time only. */
export async function markPdfGenerated(db: Db, id: string, at: number): Promise<void> {
  await db
    .updateTable('verify_statements')
    .set({ pdf_generated_at: at })
    .where('id', '=', id)
    .where('pdf_generated_at', 'is', null)
    .execute();
}

/** A stored document (either format) with this document hash: the PDF as issued. */
export async function findStatementDocumentByHash(db: Db, documentHash: string) {
  return db.selectFrom('verify_statement_documents').select(['pdf']).where('document_hash', '=', documentHash).limit(1).executeTakeFirst();
}
