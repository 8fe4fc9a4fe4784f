/**
 * A completed statement for the benchmarks: a claim proven through the service, its history made on
 * a simulated chain and computed by the statement computation, stored as the job would store it.
 */
import { SimulatedChain } from '../src/bitcoin/chain/index.js';
import { makeWallet } from '../src/bitcoin/message/fixtures/signers.js';
import type { AppContext } from '../src/platform/context.js';
import { newId } from '../src/platform/crypto/random.js';
import type { Scope } from '../src/platform/scope.js';
import { computeStatement } from '../src/verify/statements/statement-computation.js';
import { boundaryHeights } from '../src/verify/statements/statement-generation.js';
import { insertStatement } from '../src/verify/statements/statement.repository.js';
import { proveWith } from '../test/support/verify.js';

const at = (iso: string) => Date.parse(iso) / 1000;

/** Stores a completed statement of `transactions` receipts to a new address claim of the holder; returns its id. */
export async function benchStatement(ctx: AppContext, scope: Scope, holderId: string, transactions = 100): Promise<string> {
  const wallet = makeWallet('p2wpkh', 'testnet');
  const claim = await proveWith(ctx, scope, holderId, wallet, {
    kind: 'connect_session',
    session_id: 'sess_bench',
    permissions: ['transactions'],
  });
  const sim = new SimulatedChain({ seed: 'bench-statement-pdf', network: 'testnet', startTime: at('2025-01-01T00:00:00Z') });
  sim.fundMany(wallet.address, transactions, 25_000n, { time: at('2025-03-01T00:00:00Z'), perBlock: 5 });
  sim.mine({ count: 6 });
  const period = { open: at('2025-01-01T00:00:00Z'), close: at('2025-07-01T00:00:00Z') };
  const heights = await boundaryHeights(sim, period, 'UTC');
  const tip = await sim.getTip();
  const data = computeStatement({
    period,
    timezone: 'UTC',
    claims: [
      { claim_id: claim.id, subject: { type: 'address', address: wallet.address }, network: 'testnet', addresses: [wallet.address] },
    ],
    transactions: (await sim.getAddressHistory([wallet.address], { includeMempool: false })).get(wallet.address) ?? [],
    chain: { tipHeight: tip.height, tipHash: tip.hash, minConfirmations: 6, heightBefore: (instant) => heights.get(instant) as number },
  });
  const id = newId('stmt');
  const now = Math.floor(ctx.clock.now() / 1000);
  await insertStatement(ctx.db, {
    id,
    client_id: scope.clientId,
    mode: scope.mode,
    account_holder_id: holderId,
    claim_ids: JSON.stringify([claim.id]),
    period_open: period.open,
    period_close: period.close,
    timezone: 'UTC',
    status: 'completed',
    failure_reason: null,
    summary: JSON.stringify(data.summary),
    chain: JSON.stringify(data.chain),
    data: JSON.stringify(data),
    created_at: now,
    updated_at: now,
    completed_at: now,
    pdf_generated_at: null,
  });
  return id;
}
