import { Type } from '@sinclair/typebox';
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { fetchPage, type PageRequest } from '../../platform/http/pagination.js';
import type { Scope } from '../../platform/scope.js';
import type { StatementStatus, StatementTable } from '../verify.table.js';
import { ofTenant } from '../../platform/db/of-tenant.js';
import { jsonColumn } from '../../platform/db/json-column.js';
import { StatementChain, StatementData, StatementSummary } from './statement.schemas.js';
import { StatementValuationSummary } from './statement-valuation.schemas.js';

/** The stored JSON of `verify_statements`: the claims, and once completed its figures. */
const STATEMENT_CLAIM_IDS = jsonColumn('verify_statements', 'claim_ids', Type.Array(Type.String()));
const STATEMENT_SUMMARY = jsonColumn('verify_statements', 'summary', StatementSummary);
const STATEMENT_CHAIN = jsonColumn('verify_statements', 'chain', StatementChain);
const STATEMENT_VALUATION = jsonColumn('verify_statements', 'valuation', StatementValuationSummary);
const STATEMENT_DATA = jsonColumn('verify_statements', 'data', StatementData);

/** The statement's claims, in the order the client gave them. */
export function statementClaimIds(row: { id: string; claim_ids: string }): string[] {
  return STATEMENT_CLAIM_IDS.decode(row.claim_ids, row.id);
}

/** The `claim_ids` text of a statement of these claims. */
export function encodeStatementClaimIds(claimIds: string[]): string {
  return STATEMENT_CLAIM_IDS.encode(claimIds);
}

/** The texts a completed statement stores: its data, and the figures the API shows (the valuation summed up). */
export function encodeCompletedStatement(data: StatementData, valuation: StatementValuationSummary | null) {
  return {
    summary: STATEMENT_SUMMARY.encode(data.summary),
    chain: STATEMENT_CHAIN.encode(data.chain),
    valuation: valuation === null ? null : STATEMENT_VALUATION.encode(valuation),
    data: STATEMENT_DATA.encode(data),
  };
}

/** A statement's summary, chain and valuation as the API shows them (each null until it completed). */
export function statementFigures(row: { id: string; summary: string | null; chain: string | null; valuation: string | null }): {
  summary: StatementSummary | null;
  chain: StatementChain | null;
  valuation: StatementValuationSummary | null;
} {
  return {
    summary: row.summary === null ? null : STATEMENT_SUMMARY.decode(row.summary, row.id),
    chain: row.chain === null ? null : STATEMENT_CHAIN.decode(row.chain, row.id),
    valuation: row.valuation === null ? null : STATEMENT_VALUATION.decode(row.valuation, row.id),
  };
}

/** A completed statement's data: every figure and transaction. */
export function statementData(row: { id: string; data: string }): StatementData {
  return STATEMENT_DATA.decode(row.data, row.id);
}

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
