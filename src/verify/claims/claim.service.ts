import { chainOnNetwork } from '../../bitcoin/chain/on-network.js';
import { requireAccountHolderParam } from '../../connect/account-holder.service.js';
import type { NetworkName } from '../../bitcoin/network.js';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/http/errors.js';
import { resolvePage } from '../../platform/http/pagination.js';
import type { Scope } from '../../platform/scope.js';
import {
  findClaimById,
  findGrantedClaim,
  findGrantedClaims,
  listGrantedClaims,
  type GrantedClaimRow,
  claimAddresses,
  claimStatement,
  grantedPermissions,
} from './claim.repository.js';
import type { Claim, ClaimListQuery, ReceiptCheck } from './claim.schemas.js';
import { receiptVerifier } from '@ownproof/verify';
import { publishedVerificationKeys } from './signing-key.service.js';
import type { ClaimRow } from '../verify.table.js';

export type ClaimDeps = Pick<AppContext, 'db' | 'config' | 'chains'>;

/** The claim as the API shows it, without a balance. */
export function toClaim(row: ClaimRow): Claim {
  const statement = claimStatement(row);
  return { ...statement, object: 'claim', status: row.status, receipt: row.receipt };
}

/** Chain tips read for one request, by mode and network: every balance of a page is as of one height, read once. */
type Tips = Map<string, Promise<{ height: number }>>;

/** Adds the client's access, and the balance when the grant allows `balances`: the claim's addresses, read from the chain now. */
async function withBalance(deps: ClaimDeps, row: GrantedClaimRow, tips: Tips = new Map()): Promise<Claim> {
  const permissions = grantedPermissions(row);
  const claim: Claim = { ...toClaim(row), access: { permissions, granted_at: row.grant_created_at, revoked_at: null } };
  if (!permissions.includes('balances')) return claim;
  const source = deps.chains.forMode(row.mode);
  if (!source) return claim;
  const chain = chainOnNetwork(source, claim.network as NetworkName);
  const addresses = claimAddresses(row);
  const tipKey = `${row.mode}:${claim.network}`;
  if (!tips.has(tipKey)) tips.set(tipKey, chain.getTip());
  const [tip, utxos] = await Promise.all([tips.get(tipKey) as Promise<{ height: number }>, chain.getUtxos(addresses)]);
  let confirmed = 0n;
  let unconfirmed = 0n;
  for (const utxo of [...utxos.values()].flat()) {
    if (utxo.status.confirmed) confirmed += utxo.value;
    else unconfirmed += utxo.value;
  }
  return { ...claim, balance: { confirmed: confirmed.toString(), unconfirmed: unconfirmed.toString(), as_of_height: tip.height } };
}

/**
 * Of these claims, those the client can read now: shared with it and neither the sharing nor the
 * claim revoked. A connect account names its ownership claim only then (connect's accounts).
 */
export async function readableClaimIds(deps: Pick<AppContext, 'db'>, scope: Scope, ids: readonly string[]): Promise<Set<string>> {
  return new Set((await findGrantedClaims(deps.db, scope, ids)).keys());
}

/** A claim shared with this client (404 otherwise, also when the sharing was revoked). */
export async function retrieveClaim(deps: ClaimDeps, scope: Scope, id: string): Promise<Claim> {
  const row = await findGrantedClaim(deps.db, scope, id);
  if (!row) throw notFound('claim', id);
  return withBalance(deps, row);
}

/** Claims shared with this client, newest share first. */
export async function listClaims(deps: ClaimDeps, scope: Scope, query: ClaimListQuery) {
  if (query.account_holder_id !== undefined) await requireAccountHolderParam(deps, scope, query.account_holder_id, 'account_holder_id');
  const page = await resolvePage(query, async (id) => (await findGrantedClaim(deps.db, scope, id))?.grant_seq);
  const { rows, hasMore } = await listGrantedClaims(
    deps.db,
    scope,
    query.account_holder_id === undefined ? {} : { accountHolderId: query.account_holder_id },
    page,
  );
  const tips: Tips = new Map();
  return { data: await Promise.all(rows.map((row) => withBalance(deps, row, tips))), has_more: hasMore };
}

/**
 * Checks a receipt online for anyone (no API key): the same checks as the offline CLI with this
 * service's published keys, that it was issued here, and the claim's current status.
 */
export async function checkReceipt(deps: Pick<AppContext, 'db' | 'config'>, receipt: string): Promise<ReceiptCheck> {
  const verdict = await receiptVerifier(await publishedVerificationKeys(deps))(receipt);
  if (!verdict.valid) return notValid(verdict.reason, verdict.issuer);
  if (verdict.issuer !== deps.config.publicBaseUrl)
    return notValid(`issued by ${verdict.issuer}, not by this service (${deps.config.publicBaseUrl})`, verdict.issuer);
  const row = await findClaimById(deps.db, verdict.claim.id);
  const summary = !row
    ? `Valid: ${verdict.issuer} issued this receipt and its Bitcoin proof holds, but this service has no record of the claim’s current status.`
    : row.status === 'revoked'
      ? 'Revoked: the receipt is genuine and its Bitcoin proof holds, but the account holder has since revoked the claim, so it no longer stands.'
      : `Valid: ${verdict.issuer} issued this receipt, its Bitcoin proof holds, and the claim is active.`;
  return { valid: true, claim: verdict.claim, issuer: verdict.issuer, ...(row ? { status: row.status } : {}), summary };
}

function notValid(reason: string, issuer: string | undefined): ReceiptCheck {
  return { valid: false, reason, ...(issuer ? { issuer } : {}), summary: `Not valid: ${reason}.` };
}
