/**
 * How one transaction moves one set of addresses: the amounts in, out and fee ({@link effectOf}),
 * and what it is, in words a statement prints, with the outside addresses involved
 * ({@link movementOf}). Pure (docs/verify.md, "What it covers").
 */
import type { ChainTx } from '../../bitcoin/chain/chain-source.js';
import { MAX_COUNTERPARTIES, type MovementKind } from './statement.schemas.js';

/** How one transaction moves one set of addresses. `net` = `amountIn` − `amountOut` − `fee`. */
export interface Effect {
  amountIn: bigint;
  amountOut: bigint;
  fee: bigint;
  net: bigint;
}

/**
 * The effect of a transaction on a set of output scripts, or undefined when it touches none.
 *
 * Fees: the fee is attributed as soon as any input spends one of the scripts. When every input
 * does, the whole fee is theirs. When only some do (a coinjoin, a payjoin, a transaction built
 * with another party), the chain cannot say who paid it: they are attributed the fee in proportion
 * to the value of the inputs they spent (rounded down to the satoshi), but never more than they
 * lost in the transaction — a party that came out ahead paid none of it.
 *
 * Internal transfers: money moving between the scripts of the set is neither in nor out; a
 * transaction whose outputs all return to the set leaves only its fee.
 */
export function effectOf(tx: ChainTx, scripts: ReadonlySet<string>): Effect | undefined {
  let spent = 0n;
  let spentByAll = 0n;
  let received = 0n;
  let touched = false;
  let allInputsOurs = tx.inputs.length > 0;
  for (const input of tx.inputs) {
    const prevout = input.prevout;
    if (prevout) spentByAll += prevout.value;
    if (prevout && scripts.has(prevout.scriptPubKey)) {
      spent += prevout.value;
      touched = true;
    } else {
      allInputsOurs = false;
    }
  }
  for (const output of tx.outputs) {
    if (!scripts.has(output.scriptPubKey)) continue;
    received += output.value;
    touched = true;
  }
  if (!touched) return undefined;
  const net = received - spent;
  let fee = 0n;
  if (spent > 0n && tx.fee > 0n && spentByAll > 0n) {
    const share = allInputsOurs ? tx.fee : (tx.fee * spent) / spentByAll;
    const lost = net < 0n ? -net : 0n;
    fee = share < lost ? share : lost;
  }
  const beforeFee = net + fee;
  return { amountIn: beforeFee > 0n ? beforeFee : 0n, amountOut: beforeFee < 0n ? -beforeFee : 0n, fee, net };
}

/** What a transaction is for a set of addresses, and the outside addresses worth naming. */
export interface Movement {
  kind: MovementKind;
  /** At most {@link MAX_COUNTERPARTIES} outside addresses, each once, in the transaction's order. */
  counterparties: string[];
  /** How many more outside addresses there were. */
  more: number;
}

/** The distinct addresses among `entries` that are outside the set: the first {@link MAX_COUNTERPARTIES}, and how many more. */
function outside(
  entries: Iterable<{ scriptPubKey: string; address?: string } | undefined>,
  scripts: ReadonlySet<string>,
): Pick<Movement, 'counterparties' | 'more'> {
  const addresses = new Set<string>();
  for (const entry of entries) if (entry?.address !== undefined && !scripts.has(entry.scriptPubKey)) addresses.add(entry.address);
  const all = [...addresses];
  return { counterparties: all.slice(0, MAX_COUNTERPARTIES), more: Math.max(0, all.length - MAX_COUNTERPARTIES) };
}

/**
 * Names a transaction for a set of scripts, given its {@link effectOf} on them:
 *
 * - `deposit_proof`: its txid is one a deposit-proof claim of the statement was proven with;
 * - `received`: none of its inputs spends from the set, or some do but the set came out ahead
 *   (a payjoin it received in); the counterparties are the outside addresses its inputs spent from;
 * - `self_transfer`: every input spends from the set and every output pays it (only the fee
 *   leaves), unless it is a `consolidation`: two or more inputs into a single output;
 * - `sent`: everything else — an input of the set, money out to outside addresses (a payment, a
 *   coinjoin it paid into); the counterparties are the addresses of the outside outputs.
 *
 * A deposit proof names its outside outputs (the service's deposit address) as a payment does.
 */
export function movementOf(tx: ChainTx, scripts: ReadonlySet<string>, effect: Effect, depositProofs: ReadonlySet<string>): Movement {
  const spends = tx.inputs.some((input) => input.prevout !== undefined && scripts.has(input.prevout.scriptPubKey));
  const outputs = () => outside(tx.outputs, scripts);
  if (depositProofs.has(tx.txid)) return { kind: 'deposit_proof', ...outputs() };
  if (!spends || effect.amountIn > 0n)
    return {
      kind: 'received',
      ...outside(
        tx.inputs.map((input) => input.prevout),
        scripts,
      ),
    };
  const internal =
    tx.inputs.every((input) => input.prevout !== undefined && scripts.has(input.prevout.scriptPubKey)) &&
    tx.outputs.every((output) => scripts.has(output.scriptPubKey));
  if (internal)
    return { kind: tx.inputs.length >= 2 && tx.outputs.length === 1 ? 'consolidation' : 'self_transfer', counterparties: [], more: 0 };
  return { kind: 'sent', ...outputs() };
}
