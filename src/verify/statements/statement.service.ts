import { requireAccountHolderParam } from '../../connect/account-holder.service.js';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import { newId } from '../../platform/crypto/random.js';
import { ApiError, notFound } from '../../platform/http/errors.js';
import { resolvePage } from '../../platform/http/pagination.js';
import { enqueueJob } from '../../platform/jobs/enqueue.js';
import type { Scope } from '../../platform/scope.js';
import { findGrantedClaims, grantedPermissions } from '../claims/claim.repository.js';
import { isTimeZoneName, latestClose } from './statement-period.js';
import {
  encodeStatementClaimIds,
  findStatement,
  insertStatement,
  listStatementRows,
  type StatementApiRow,
  statementClaimIds,
  statementFigures,
} from './statement.repository.js';
import { generateStatementJob } from './statement.job.js';
import {
  MAX_STATEMENT_YEARS,
  type GenerateStatementInput,
  type Statement,
  type StatementListQuery,
  type StatementPeriod,
} from './statement.schemas.js';

export type StatementDeps = Pick<AppContext, 'db' | 'clock'>;

export function toStatement(row: StatementApiRow): Statement {
  const figures = statementFigures(row);
  return {
    id: row.id,
    object: 'statement',
    status: row.status,
    account_holder_id: row.account_holder_id,
    claim_ids: statementClaimIds(row),
    period: { open: row.period_open, close: row.period_close },
    timezone: row.timezone,
    summary: figures.summary,
    chain: figures.chain,
    valuation_currency: row.valuation_currency,
    valuation: figures.valuation,
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    pdf_generated_at: row.pdf_generated_at,
    livemode: row.mode === 'live',
  };
}

/**
 * The period as sent, in either spelling the spec shows (`open`/`close` or
 * `opening_time`/`closing_time`, not a mix), checked against now and the time zone and returned
 * as `{open, close}`. Errors name the field the way the client spelled it.
 */
function readPeriod(sent: GenerateStatementInput['period'], timezone: string, now: number): StatementPeriod {
  const usesOpen = sent.open !== undefined || sent.close !== undefined;
  const usesOpening = sent.opening_time !== undefined || sent.closing_time !== undefined;
  if (usesOpen && usesOpening) {
    throw new ApiError('parameter_invalid', {
      param: 'period',
      message: 'Invalid value for period: send {open, close} or {opening_time, closing_time}, not a mix of both.',
    });
  }
  const [openName, closeName] = usesOpening ? (['opening_time', 'closing_time'] as const) : (['open', 'close'] as const);
  const open = sent[openName];
  const close = sent[closeName];
  if (open === undefined) throw new ApiError('parameter_missing', { param: `period[${openName}]` });
  if (close === undefined) throw new ApiError('parameter_missing', { param: `period[${closeName}]` });
  const invalidClose = (rule: string) =>
    new ApiError('parameter_invalid', { param: `period[${closeName}]`, message: `Invalid value for period[${closeName}]: ${rule}.` });
  if (close <= open) throw invalidClose(`must be after period[${openName}] (${open})`);
  if (close > now) throw invalidClose(`must not be in the future (now is ${now})`);
  const latest = latestClose(open, timezone);
  if (close > latest)
    throw invalidClose(`the period may cover at most ${MAX_STATEMENT_YEARS} years: at most ${latest} for this open in ${timezone}`);
  return { open, close };
}

/**
 * Checks that each claim is shared with this client, belongs to the account holder and carries the
 * `statements` permission. A claim the client cannot see (never shared, another client's, or its
 * sharing revoked) is a 404 naming it, as `GET /v1/verify/claims/{id}` answers for the same id; a
 * visible one without the permission is a 403 naming it.
 */
async function requireStatementClaims(deps: StatementDeps, scope: Scope, input: GenerateStatementInput): Promise<void> {
  const granted = await findGrantedClaims(deps.db, scope, input.claim_ids);
  for (const [index, claimId] of input.claim_ids.entries()) {
    const param = `claim_ids[${index}]`;
    const claim = granted.get(claimId);
    if (!claim) {
      throw new ApiError('resource_missing', {
        param,
        message: `No such claim: '${claimId}' (${param}); it is not shared with you, or its sharing was revoked.`,
      });
    }
    if (claim.account_holder_id !== input.account_holder_id) {
      throw new ApiError('parameter_invalid', {
        param,
        message: `Invalid value for ${param}: claim '${claimId}' belongs to another account holder than account_holder_id.`,
      });
    }
    if (!grantedPermissions(claim).includes('statements')) {
      throw new ApiError('statement_permission_missing', {
        param,
        message: `The account holder shared claim '${claimId}' (${param}) with you without the statements permission; ask for it with an access request.`,
      });
    }
  }
}

/**
 * Requests a statement: checks every input, then stores it `pending` and queues its computation
 * in one transaction. Nothing is stored when any input is refused.
 */
export async function generateStatement(deps: StatementDeps, scope: Scope, input: GenerateStatementInput): Promise<Statement> {
  await requireAccountHolderParam(deps, scope, input.account_holder_id, 'account_holder_id');
  if (!isTimeZoneName(input.timezone)) {
    throw new ApiError('parameter_invalid', {
      param: 'timezone',
      message: `Invalid value for timezone: must be an IANA time zone name such as "UTC", "America/New_York" or "Asia/Kolkata".`,
    });
  }
  const now = unixSeconds(deps.clock);
  const period = readPeriod(input.period, input.timezone, now);
  await requireStatementClaims(deps, scope, input);
  const row: StatementApiRow = {
    seq: 0,
    id: newId('stmt'),
    client_id: scope.clientId,
    mode: scope.mode,
    account_holder_id: input.account_holder_id,
    claim_ids: encodeStatementClaimIds(input.claim_ids),
    period_open: period.open,
    period_close: period.close,
    timezone: input.timezone,
    status: 'pending',
    failure_reason: null,
    summary: null,
    chain: null,
    valuation_currency: input.valuation_currency ?? null,
    valuation: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
    pdf_generated_at: null,
  };
  const { seq: _seq, ...values } = row;
  await deps.db.transaction().execute(async (trx) => {
    await insertStatement(trx, { ...values, data: null });
    await enqueueJob(trx, deps.clock, generateStatementJob, { statement_id: row.id }, { dedupeKey: `verify.generate_statement:${row.id}` });
  });
  return toStatement(row);
}

export async function retrieveStatement(deps: StatementDeps, scope: Scope, id: string): Promise<Statement> {
  const row = await findStatement(deps.db, scope, id);
  if (!row) throw notFound('statement', id);
  return toStatement(row);
}

/** Statements of this client and mode, newest first. */
export async function listStatements(deps: StatementDeps, scope: Scope, query: StatementListQuery) {
  if (query.account_holder_id !== undefined) await requireAccountHolderParam(deps, scope, query.account_holder_id, 'account_holder_id');
  const page = await resolvePage(query, async (id) => (await findStatement(deps.db, scope, id))?.seq);
  const filter = {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.account_holder_id === undefined ? {} : { accountHolderId: query.account_holder_id }),
  };
  const { rows, hasMore } = await listStatementRows(deps.db, scope, filter, page);
  return { data: rows.map(toStatement), has_more: hasMore };
}
