/**
 * What a statement states, computed from chain data alone: opening and closing balances, every
 * counted transaction with its amounts in, out and fee and the running balance, per month of the
 * statement's time zone, per claim and for all claims together. Pure: no database, no network,
 * no clock — the job reads the chain and hands the data in (docs/verify.md, "Statements").
 *
 * Amounts are bigint satoshis throughout and decimal text in the result; nothing is ever a float.
 */
import { parseAddress } from '../../bitcoin/address.js';
import type { ChainTx } from '../../bitcoin/chain/chain-source.js';
import { effectOf, movementOf, type Effect } from './statement-movement.js';
import { localTime, monthSpans, type MonthSpan } from './statement-period.js';
import {
  STATEMENT_DATA_VERSION,
  type StatementClaimSection,
  type StatementData,
  type StatementExclusion,
  type StatementMonth,
  type StatementPeriod,
  type StatementTotals,
  type StatementTransaction,
} from './statement.schemas.js';

/** One claim of the statement, with every address whose history was read. */
export interface StatementClaimInput {
  claim_id: string;
  subject: StatementClaimSection['subject'];
  network: string;
  addresses: readonly string[];
}

/** What the chain said when the statement was computed. */
export interface StatementChainInput {
  tipHeight: number;
  tipHash: string;
  /** Confirmations at the tip a transaction needs to count. */
  minConfirmations: number;
  /**
   * The last block height before an instant under the chain's balance-at-time rule (the last
   * block whose effective time is ≤ instant − 1), for each of `periodBoundaries(period, timezone)`.
   */
  heightBefore(instant: number): number;
}

export interface StatementInput {
  period: StatementPeriod;
  timezone: string;
  claims: readonly StatementClaimInput[];
  /** The claims' transactions, in any order; repeats (a transaction of two claims) are read once; unconfirmed ones are ignored. */
  transactions: readonly ChainTx[];
  /** The transactions the statement's deposit-proof claims were proven with (their `proof.txid`): named `deposit_proof`. None when absent. */
  depositProofTxids?: readonly string[];
  chain: StatementChainInput;
}

/** Sums of one span (a month or the whole period) while it runs; its closing balance is the ledger's balance at its end. */
interface SpanSums {
  opening: bigint;
  in: bigint;
  out: bigint;
  fees: bigint;
  count: number;
}

const startSpan = (balance: bigint): SpanSums => ({ opening: balance, in: 0n, out: 0n, fees: 0n, count: 0 });

/** A running balance with the sums of the current month and of the whole period. */
class Ledger {
  balance = 0n;
  whole = startSpan(0n);
  month = startSpan(0n);

  /** A counted transaction before the period: only the balance moves. */
  carry(effect: Effect): void {
    this.balance += effect.net;
  }

  beginPeriod(): void {
    this.whole = startSpan(this.balance);
  }

  beginMonth(): void {
    this.month = startSpan(this.balance);
  }

  apply(effect: Effect): void {
    this.balance += effect.net;
    for (const sums of [this.whole, this.month]) {
      sums.in += effect.amountIn;
      sums.out += effect.amountOut;
      sums.fees += effect.fee;
      sums.count += 1;
    }
  }

  totals(sums: SpanSums): StatementTotals {
    return {
      opening_balance: sums.opening.toString(),
      closing_balance: this.balance.toString(),
      total_in: sums.in.toString(),
      total_out: sums.out.toString(),
      total_fees: sums.fees.toString(),
      transaction_count: sums.count,
    };
  }
}

/** The output scripts (lowercase hex, as chain sources report them) of a claim's addresses. */
function scriptsOf(addresses: readonly string[]): Set<string> {
  return new Set(
    addresses.map((address) => {
      const parsed = parseAddress(address);
      if (!parsed.ok) throw new Error(`a claim address does not parse: ${address} (${parsed.error.reason})`);
      return Buffer.from(parsed.address.scriptPubKey).toString('hex');
    }),
  );
}

const heightOf = (tx: ChainTx): number => (tx.status.confirmed ? tx.status.blockHeight : Number.POSITIVE_INFINITY);
const confirmedStatus = (tx: ChainTx) => tx.status as Extract<ChainTx['status'], { confirmed: true }>;

/**
 * Confirmed transactions once each, in chain order: by height, and inside a block every
 * transaction after those whose outputs it spends (a block's order guarantees that; the chain
 * sources do not report positions), ties by txid so the order is reproducible.
 */
export function inChainOrder(transactions: readonly ChainTx[]): ChainTx[] {
  const unique = new Map<string, ChainTx>();
  for (const tx of transactions) if (tx.status.confirmed && !unique.has(tx.txid)) unique.set(tx.txid, tx);
  const byHeight = new Map<number, ChainTx[]>();
  for (const tx of unique.values()) {
    const group = byHeight.get(heightOf(tx));
    if (group) group.push(tx);
    else byHeight.set(heightOf(tx), [tx]);
  }
  const ordered: ChainTx[] = [];
  for (const height of [...byHeight.keys()].sort((a, b) => a - b)) ordered.push(...inBlockOrder(byHeight.get(height) as ChainTx[]));
  return ordered;
}

function inBlockOrder(group: ChainTx[]): ChainTx[] {
  if (group.length === 1) return group;
  const inGroup = new Set(group.map((tx) => tx.txid));
  const remaining = [...group].sort((a, b) => (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0));
  const placed = new Set<string>();
  const ordered: ChainTx[] = [];
  while (remaining.length > 0) {
    const ready = remaining.findIndex((tx) => tx.inputs.every((input) => !inGroup.has(input.txid) || placed.has(input.txid)));
    // A valid block always has a ready transaction; a source that reported a cycle keeps txid order.
    const [tx] = remaining.splice(ready === -1 ? 0 : ready, 1) as [ChainTx];
    placed.add(tx.txid);
    ordered.push(tx);
  }
  return ordered;
}

/**
 * Computes a statement. The rules (docs/verify.md, "Statements"):
 *
 * - **What counts**: confirmed transactions with at least `minConfirmations` confirmations at the
 *   tip. Shallower ones inside the period, and those in blocks above the tip (mined while the
 *   histories were read), are left out: each is listed in `excluded` with the reason, and
 *   `pending_transaction_count` counts them.
 * - **What each is**: see {@link movementOf}, for all the claims' addresses as one set.
 * - **Bounds**: the period is [open, close): a transaction belongs to it when its block's effective
 *   time (the running maximum of block timestamps, the chain's balance-at-time rule) is ≥ open and
 *   < close. The opening balance is everything counted before open, the closing balance everything
 *   counted before close. Month sections are cut the same way at each local midnight on the 1st.
 * - **Amounts, fees, internal transfers**: see {@link effectOf}. The statement's own figures treat
 *   all its claims' addresses as one set (a transfer between two of its claims is internal, an
 *   address in two claims counts once); each claim's section treats that claim alone.
 *
 * Every span reconciles: opening + in − out − fees = closing.
 */
export function computeStatement(input: StatementInput): StatementData {
  const { period, timezone, chain } = input;
  const spans = monthSpans(period, timezone);
  const claims = input.claims.map((claim) => ({
    claim,
    scripts: scriptsOf(claim.addresses),
    ledger: new Ledger(),
    months: [] as StatementClaimSection['months'],
  }));
  const everyScript = new Set(claims.flatMap((c) => [...c.scripts]));
  const total = new Ledger();
  // A block above the tip (the chain moved on while histories were read) is not part of this view.
  const cutBefore = (instant: number) => Math.min(chain.heightBefore(instant), chain.tipHeight);
  const confirmations = (height: number) => chain.tipHeight - height + 1;
  const depositProofs = new Set(input.depositProofTxids ?? []);
  const ordered = inChainOrder(input.transactions);
  const transactions = ordered.filter((tx) => heightOf(tx) <= chain.tipHeight);

  const excluded: StatementExclusion[] = [];
  const leaveOut = (tx: ChainTx, depth: number, reason: string) => {
    const effect = effectOf(tx, everyScript);
    if (!effect) return;
    const status = confirmedStatus(tx);
    excluded.push({
      txid: tx.txid,
      block_height: status.blockHeight,
      block_time: status.blockTime,
      block_time_local: localTime(status.blockTime, timezone),
      kind: movementOf(tx, everyScript, effect, depositProofs).kind,
      net: effect.net.toString(),
      confirmations: depth,
      reason,
    });
  };
  const tipWords = `the tip the statement was computed at (block ${chain.tipHeight})`;

  let next = 0;
  /** Moves through the transactions up to `cut` (a height), handing each counted one to `use` and leaving out the shallow ones of the period. */
  const advanceTo = (cut: number, use: (tx: ChainTx) => void, inPeriod: boolean) => {
    for (; next < transactions.length && heightOf(transactions[next] as ChainTx) <= cut; next++) {
      const tx = transactions[next] as ChainTx;
      const depth = confirmations(heightOf(tx));
      if (depth >= chain.minConfirmations) use(tx);
      else if (inPeriod)
        leaveOut(tx, depth, `${depth} confirmation${depth === 1 ? '' : 's'} at ${tipWords}; ${chain.minConfirmations} needed`);
    }
  };

  advanceTo(
    cutBefore(period.open),
    (tx) => {
      const effect = effectOf(tx, everyScript);
      if (effect) total.carry(effect);
      for (const c of claims) {
        const own = effectOf(tx, c.scripts);
        if (own) c.ledger.carry(own);
      }
    },
    false,
  );
  total.beginPeriod();
  for (const c of claims) c.ledger.beginPeriod();

  const months: StatementMonth[] = spans.map((span: MonthSpan) => {
    total.beginMonth();
    for (const c of claims) c.ledger.beginMonth();
    const rows: StatementTransaction[] = [];
    advanceTo(
      cutBefore(span.end),
      (tx) => {
        const effect = effectOf(tx, everyScript);
        if (!effect) return;
        total.apply(effect);
        const perClaim: StatementTransaction['claims'] = [];
        for (const c of claims) {
          const own = effectOf(tx, c.scripts);
          if (!own) continue;
          c.ledger.apply(own);
          perClaim.push({
            claim_id: c.claim.claim_id,
            amount_in: own.amountIn.toString(),
            amount_out: own.amountOut.toString(),
            fee: own.fee.toString(),
            balance: c.ledger.balance.toString(),
          });
        }
        const status = confirmedStatus(tx);
        const movement = movementOf(tx, everyScript, effect, depositProofs);
        rows.push({
          txid: tx.txid,
          block_height: status.blockHeight,
          block_time: status.blockTime,
          block_time_local: localTime(status.blockTime, timezone),
          kind: movement.kind,
          counterparties: movement.counterparties,
          counterparties_more: movement.more,
          amount_in: effect.amountIn.toString(),
          amount_out: effect.amountOut.toString(),
          fee: effect.fee.toString(),
          balance: total.balance.toString(),
          claims: perClaim,
        });
      },
      true,
    );
    for (const c of claims) c.months.push({ ...span, ...c.ledger.totals(c.ledger.month) });
    return { ...span, ...total.totals(total.month), transactions: rows };
  });
  // Blocks found above the tip while the histories were read: in the period by their header's time.
  for (const tx of ordered) {
    if (heightOf(tx) <= chain.tipHeight) continue;
    const { blockHeight, blockTime } = confirmedStatus(tx);
    if (blockTime >= period.open && blockTime < period.close) leaveOut(tx, 0, `in block ${blockHeight}, mined after ${tipWords}`);
  }

  return {
    version: STATEMENT_DATA_VERSION,
    period: { open: period.open, close: period.close },
    timezone,
    chain: { height: chain.tipHeight, block_hash: chain.tipHash, min_confirmations: chain.minConfirmations },
    summary: { ...total.totals(total.whole), pending_transaction_count: excluded.length },
    claims: claims.map((c) => ({
      claim_id: c.claim.claim_id,
      subject: c.claim.subject,
      network: c.claim.network,
      addresses: [...c.claim.addresses],
      summary: c.ledger.totals(c.ledger.whole),
      months: c.months,
    })),
    months,
    excluded,
  };
}
