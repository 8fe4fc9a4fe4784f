import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_MIN_CONFIRMATIONS, ChainSourceError, type ChainSource, type ChainTx } from '../../bitcoin/chain/chain-source.js';
import { chainOnNetwork } from '../../bitcoin/chain/on-network.js';
import { scanWallet } from '../../bitcoin/keys/index.js';
import type { NetworkName } from '../../bitcoin/network.js';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import { recordEvent } from '../../platform/events/event.service.js';
import type { Scope } from '../../platform/scope.js';
import { lookUpPrices } from '../../prices/price.service.js';
import { findGrantedClaims, type GrantedClaimRow, claimAddresses, claimStatement, grantedPermissions } from '../claims/claim.repository.js';
import type { ClaimStatement } from '../claims/claim.schemas.js';
import { walletOf } from '../claims/proof.service.js';
import { valuationMoments, valuationSummary, valuationUnavailable, valueStatement } from './statement-valuation.js';
import { computeStatement, type StatementClaimInput } from './statement-computation.js';
import { periodBoundaries } from './statement-period.js';
import {
  encodeCompletedStatement,
  findStatementById,
  finishPendingStatement,
  statementClaimIds,
  type StatementApiRow,
} from './statement.repository.js';
import type { StatementData, StatementPeriod } from './statement.schemas.js';
import { toStatement } from './statement.service.js';
import { statementGeneration } from './statement.metrics.js';

export type StatementGenerationDeps = Pick<AppContext, 'db' | 'clock' | 'chains' | 'prices' | 'priceRetryDelaysMs' | 'metrics'>;

/** A reason the statement cannot be computed that no retry will change: it fails at once. */
class StatementRefused extends Error {}

/** The run took longer than its job allows. */
class DeadlineExceeded extends Error {}

/**
 * A claim's addresses now: the address of an address claim; for a wallet, the addresses found in
 * use when it was verified and every address a gap-limit scan finds in use today (the wallet may
 * have handed out new ones since).
 */
async function addressesNow(chain: ChainSource, claim: GrantedClaimRow, statement: ClaimStatement): Promise<string[]> {
  if (statement.subject.type === 'address') return [statement.subject.address];
  const scan = await scanWallet(chain, walletOf(statement.subject.descriptor, claim.mode));
  return [...new Set([...claimAddresses(claim), ...scan.used.map((used) => used.address)])];
}

/**
 * The chain height before each of the period's boundaries (`periodBoundaries`), by instant: what
 * `StatementChainInput.heightBefore` answers (the last block whose effective time is ≤ instant − 1).
 */
export async function boundaryHeights(
  source: Pick<ChainSource, 'getHeightAtTime'>,
  period: StatementPeriod,
  timezone: string,
): Promise<Map<number, number>> {
  const heights = new Map<number, number>();
  for (const boundary of periodBoundaries(period, timezone)) heights.set(boundary, await source.getHeightAtTime(boundary - 1));
  return heights;
}

/**
 * Reads what the statement needs from the mode's chain source and computes it. The sharing is
 * checked again: a person who revoked it after the statement was requested is obeyed.
 */
async function computeFromChain(deps: StatementGenerationDeps, row: StatementApiRow): Promise<StatementData> {
  const scope: Scope = { clientId: row.client_id, mode: row.mode };
  const source = deps.chains.forMode(row.mode);
  if (!source)
    throw new StatementRefused(`This server has no chain data source for ${row.mode} mode (its operator has not set ESPLORA_URL).`);
  const claims: StatementClaimInput[] = [];
  const depositProofTxids: string[] = [];
  const chains = new Map<NetworkName, ChainSource>();
  const claimIds = statementClaimIds(row);
  const grantedClaims = await findGrantedClaims(deps.db, scope, claimIds);
  for (const claimId of claimIds) {
    const granted = grantedClaims.get(claimId);
    if (!granted || !grantedPermissions(granted).includes('statements')) {
      throw new StatementRefused(`The account holder stopped sharing claim ${claimId} with you before the statement was computed.`);
    }
    const statement = claimStatement(granted);
    if (statement.proof.format === 'deposit' && statement.proof.txid !== undefined) depositProofTxids.push(statement.proof.txid);
    const network = statement.network as NetworkName;
    const chain = chains.get(network) ?? chainOnNetwork(source, network);
    chains.set(network, chain);
    claims.push({
      claim_id: claimId,
      subject:
        statement.subject.type === 'address'
          ? { type: 'address', address: statement.subject.address }
          : { type: 'wallet', descriptor: statement.subject.descriptor },
      network,
      addresses: await addressesNow(chain, granted, statement),
    });
  }
  // The tip first: a block found while the histories are read is above it, and left out whole.
  const tip = await source.getTip();
  // One history read per network, so an address of two claims (a wallet and one of its addresses) is read once.
  const transactions: ChainTx[] = [];
  for (const [network, chain] of chains) {
    const addresses = new Set(claims.filter((claim) => claim.network === network).flatMap((claim) => claim.addresses));
    for (const history of (await chain.getAddressHistory([...addresses], { includeMempool: false })).values())
      transactions.push(...history);
  }
  const period = { open: row.period_open, close: row.period_close };
  const heights = await boundaryHeights(source, period, row.timezone);
  return computeStatement({
    period,
    timezone: row.timezone,
    claims,
    transactions,
    depositProofTxids,
    chain: {
      tipHeight: tip.height,
      tipHash: tip.hash,
      minConfirmations: DEFAULT_MIN_CONFIRMATIONS,
      heightBefore: (instant) => {
        const height = heights.get(instant);
        if (height === undefined) throw new Error(`no chain height read for the boundary ${instant}`);
        return height;
      },
    },
  });
}

/**
 * The statement valued in the currency the client asked for, from the prices of the mode's source
 * (cached, fetched when missing: src/prices). When the source cannot give every price, the
 * statement goes on without a valuation and says why: never a silent wrong number, and never a
 * failed statement for want of a price.
 */
async function withValuation(deps: StatementGenerationDeps, row: StatementApiRow, data: StatementData): Promise<StatementData> {
  const currency = row.valuation_currency;
  if (currency === null) return data;
  const lookup = await lookUpPrices(deps, { mode: row.mode, currency, instants: valuationMoments(data) });
  if (!lookup.ok) return valuationUnavailable(data, currency, lookup.reason, lookup.source);
  return valueStatement(data, lookup.source.currency, lookup.source, lookup.prices);
}

/** Why the statement failed, in words for the client: chain source errors by kind (their messages name the operator's server). */
function failureReason(error: unknown, deadlineMs: number): string {
  if (error instanceof DeadlineExceeded)
    return `Computing the statement took longer than ${Math.round(deadlineMs / 60_000)} minutes; generate it again later.`;
  if (error instanceof ChainSourceError) {
    const what = {
      timeout: 'did not answer in time',
      network: 'could not be reached',
      http_status: `answered with an error${error.details.status ? ` (HTTP ${error.details.status})` : ''}`,
      bad_response: 'answered with data that could not be read',
      invalid_request: 'refused a request',
      aborted: 'was interrupted',
    }[error.code];
    return `The Bitcoin chain data source ${what}, also after retrying for about a quarter of an hour; generate the statement again later.`;
  }
  return 'An unexpected error stopped the computation; generate the statement again. The operator finds the details in the server log under the statement id.';
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // The work may still settle after the deadline; its outcome is then of no interest.
  work.catch(() => undefined);
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(`took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ends a pending statement as `completed` with its figures or `failed` with a reason, with its event, once. */
async function finish(
  deps: StatementGenerationDeps,
  row: StatementApiRow,
  outcome: { data: StatementData } | { reason: string },
): Promise<void> {
  const now = unixSeconds(deps.clock);
  const changes =
    'data' in outcome
      ? {
          status: 'completed' as const,
          ...encodeCompletedStatement(outcome.data, outcome.data.valuation ? valuationSummary(outcome.data.valuation) : null),
          completed_at: now,
          updated_at: now,
        }
      : { status: 'failed' as const, failure_reason: outcome.reason, updated_at: now };
  await deps.db.transaction().execute(async (trx) => {
    const finished = await finishPendingStatement(trx, row.id, changes);
    if (finished) {
      await recordEvent(
        { db: trx, clock: deps.clock },
        { clientId: row.client_id, mode: row.mode },
        `statement.${finished.status as 'completed' | 'failed'}`,
        toStatement(finished),
      );
    }
  });
}

/**
 * The statement job's work: computes a pending statement and completes it (`statement.completed`),
 * or fails it (`statement.failed`) when it cannot be computed — at once when no retry can help
 * (sharing revoked, no chain source), on the last attempt when the chain source stays down.
 * Earlier failures throw, so the job retries. Does nothing to a statement no longer pending.
 */
export async function completeStatement(
  deps: StatementGenerationDeps,
  id: string,
  run: { lastAttempt: boolean; deadlineMs: number; log: FastifyBaseLogger },
): Promise<void> {
  const row = await findStatementById(deps.db, id);
  if (!row || row.status !== 'pending') return;
  const timer = deps.metrics.histogram(statementGeneration).startTimer({ mode: row.mode });
  let data: StatementData;
  try {
    data = await withDeadline(
      computeFromChain(deps, row).then((computed) => withValuation(deps, row, computed)),
      run.deadlineMs,
    );
  } catch (error) {
    const retry = !(error instanceof StatementRefused) && !run.lastAttempt;
    timer({ outcome: retry ? 'retry' : 'failed' });
    if (error instanceof StatementRefused) return finish(deps, row, { reason: error.message });
    if (retry) {
      run.log.warn({ err: error, statement_id: id }, 'statement not computed yet; will retry');
      throw error;
    }
    run.log.error({ err: error, statement_id: id }, 'statement failed');
    return finish(deps, row, { reason: failureReason(error, run.deadlineMs) });
  }
  timer({ outcome: 'completed' });
  await finish(deps, row, { data });
}
