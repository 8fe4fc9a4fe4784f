import type { ReceiptVerdict } from './receipt.js';
import type { StatementCheck, StatementDocument } from './statement.js';

/**
 * A receipt verdict as JSON. `status` is always null: whether a claim was revoked lives only in the
 * issuer's database, which an offline check never reads (the issuer's online check answers it).
 */
export function receiptVerdictJson(verdict: ReceiptVerdict) {
  return verdict.valid
    ? { valid: true, issuer: verdict.issuer, kid: verdict.kid, claim: verdict.claim, status: null }
    : { valid: false, reason: verdict.reason };
}

/** A receipt verdict for people: VALID and what the receipt states, or INVALID and why. */
export function describeReceiptVerdict(verdict: ReceiptVerdict): string {
  if (!verdict.valid) return `INVALID: ${verdict.reason}`;
  const { claim } = verdict;
  const subject = claim.subject.type === 'address' ? `address ${claim.subject.address}` : `wallet ${claim.subject.descriptor}`;
  const lines = [
    `VALID: ${verdict.issuer} states that account holder ${claim.account_holder_id} controls the ${claim.network} ${subject}`,
    `  claim ${claim.id}, proven by ${claim.proof.format}${claim.proof.signed_path ? ` with the key at ${claim.proof.signed_path} (${claim.proof.address})` : ''}`,
    `  verified ${isoTime(claim.verified_at)} at block ${claim.chain.height} (${claim.chain.block_hash}); signed with key ${verdict.kid}`,
  ];
  if (claim.proof.format === 'deposit')
    lines.push(`  a deposit cannot be re-checked offline: look up transaction ${claim.proof.txid} on a block explorer`);
  else lines.push('  the Bitcoin signature was verified again here');
  lines.push(
    `  not checked: whether the claim was revoked since it was issued — only the issuer knows; check the receipt at ${verdict.issuer}/verify`,
  );
  return lines.join('\n');
}

/** A statement verdict for people: VALID and what the statement states, or INVALID and why. */
export function describeStatementVerdict(check: StatementCheck): string {
  if (!check.valid || !check.document) return `INVALID: ${check.reason ?? 'it could not be checked'}`;
  return [
    `VALID: an unaltered statement issued by ${check.issuer ?? ''}, signed with key ${check.signing_key_id ?? ''}; the receipt and Bitcoin proof of every claim in it were checked again here`,
    ...statementLines(check.document).map((line) => `  ${line}`),
    `  Document hash: ${check.document_hash ?? ''}`,
    `  File SHA-256: ${check.file_sha256 ?? ''}`,
  ].join('\n');
}

/** What a statement document states, one fact a line; times in UTC (the PDF shows them in the statement's time zone). */
function statementLines({ statement, document, data, claims }: StatementDocument): string[] {
  const summary = data.summary;
  return [
    `Statement: ${statement.id}, ${document.format} layout, issued ${isoTime(document.issued_at)}${statement.livemode ? '' : ' (test mode: sandbox chain, not real bitcoin)'}`,
    `Requested by: ${statement.requested_by}`,
    `Account holder: ${statement.account_holder.id}`,
    `Period: from ${isoTime(data.period.open)} to ${isoTime(data.period.close)} (excluded); the statement's time zone is ${data.timezone}`,
    `Chain tip: block ${data.chain.height}, hash ${data.chain.block_hash}`,
    ...claims.map(
      ({ claim }) =>
        `Claim: ${claim.subject.type === 'address' ? `address ${claim.subject.address}` : `wallet ${claim.subject.descriptor}`} (${claim.network}), ${claim.id}`,
    ),
    `Balance: ${bitcoin(summary.opening_balance)} BTC at the start, ${bitcoin(summary.closing_balance)} BTC at the end`,
    `Movements: ${bitcoin(summary.total_in)} BTC in, ${bitcoin(summary.total_out)} BTC out, ${bitcoin(summary.total_fees)} BTC of network fees, in ${summary.transaction_count} transactions`,
  ];
}

const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** Satoshis (decimal text) in BTC with 8 decimals, by integer arithmetic. */
function bitcoin(sats: string): string {
  const amount = BigInt(sats);
  const size = amount < 0n ? -amount : amount;
  return `${amount < 0n ? '-' : ''}${size / 100_000_000n}.${String(size % 100_000_000n).padStart(8, '0')}`;
}
