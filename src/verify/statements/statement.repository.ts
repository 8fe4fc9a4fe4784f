import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { fetchPage, type PageRequest } from '../../platform/http/pagination.js';
import type { Scope } from '../../platform/scope.js';
import type { StatementStatus, StatementTable } from '../verify.table.js';
import { ofTenant } from '../../platform/db/of-tenant.js';

/** Every column the API shows: all but `data`, which only documents of the statement read. */
const API_COLUMNS = [
  'seq',
  'id',
  'client_id',
  'mode',
  'account_holder_id',
  'claim_ids',
  'period_open',
  'period_close',
  'timezone',
  'status',
  'failure_reason',
  'summary',
  'chain',
  'valuation_currency',
  'valuation',
  'created_at',
  'updated_at',
  'completed_at',
  'pdf_generated_at',
] as const;

export async function insertStatement(db: Db, row: Insertable<StatementTable>): Promise<void> {
  await db.insertInto('verify_statements').values(row).execute();
}

/** A statement of this client and mode, without its data; undefined for another tenant's id, exactly as for a missing one. */
export async function findStatement(db: Db, scope: Scope, id: string) {
  return db.selectFrom('verify_statements').select(API_COLUMNS).where('id', '=', id).$call(ofTenant(scope)).executeTakeFirst();
}

export type StatementApiRow = NonNullable<Awaited<ReturnType<typeof findStatement>>>;

/** Any statement by id, without its data (the job, which knows its scope from the row). */
export async function findStatementById(db: Db, id: string): Promise<StatementApiRow | undefined> {
  return db.selectFrom('verify_statements').select(API_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function listStatementRows(
  db: Db,
  scope: Scope,
  filter: { status?: StatementStatus; accountHolderId?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('verify_statements').select(API_COLUMNS).$call(ofTenant(scope));
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.accountHolderId !== undefined) query = query.where('account_holder_id', '=', filter.accountHolderId);
  return fetchPage(query, page);
}

/**
 * Ends a pending statement (completed with its figures, or failed) and returns it as changed;
 * undefined when it was no longer pending, so a statement is computed and announced at most once
 * however often its job runs.
 */
export async function finishPendingStatement(
  db: Db,
  id: string,
  changes: Pick<Updateable<StatementTable>, 'status' | 'failure_reason' | 'summary' | 'chain' | 'data' | 'updated_at' | 'completed_at'>,
): Promise<StatementApiRow | undefined> {
  return db
    .updateTable('verify_statements')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returning(API_COLUMNS)
    .executeTakeFirst();
}
