import { unixSeconds, type Clock } from '../../platform/clock.js';
import { SimulatedChain, type ChainSource } from '../chain/index.js';
import { sandboxWallet } from './sandbox-wallet.js';

/** Fixed timestamps keep the sandbox history identical everywhere (UTC). */
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const BTC = 100_000_000n;

/** Where the sandbox wallet's outgoing payments go (an address of the simulated chain's own). */
const SANDBOX_EXTERNAL_SEED = 'ownproof-sandbox';

/**
 * The chain test mode reads: a deterministic simulated chain (testnet encoding) on which the
 * sandbox wallet has a history of receipts, payments, internal transfers and one unconfirmed
 * receipt, from March 2025 to September 2026. Any other test address simply has no history unless
 * a test funds it.
 */
export function buildSandboxChain(): SimulatedChain {
  const sim = new SimulatedChain({ seed: SANDBOX_EXTERNAL_SEED, network: 'testnet', startTime: at('2025-01-01T00:00:00Z') });
  const wallet = sandboxWallet();
  const receive = (i: number) => wallet.address('receive', i);
  const change = (i: number) => wallet.address('change', i);
  for (let i = 0; i < 6; i++) sim.registerKey(wallet.privateKey('receive', i));
  for (let i = 0; i < 3; i++) sim.registerKey(wallet.privateKey('change', i));
  const merchant = sim.newAddress('p2wpkh');

  sim.fund(receive(0), BTC / 2n, { time: at('2025-03-01T10:00:00Z') });
  sim.fund(receive(1), BTC / 4n, { time: at('2025-05-10T14:30:00Z') });
  sim.spend(receive(0), merchant, BTC / 10n, { time: at('2025-07-15T09:15:00Z'), changeAddress: change(0) });
  sim.fund(receive(2), BTC, { time: at('2025-09-01T18:00:00Z') });
  sim.spend(receive(1), receive(3), BTC / 5n, { time: at('2025-11-20T08:45:00Z'), changeAddress: change(1) });
  sim.fund(receive(3), BTC / 20n, { time: at('2026-01-10T12:00:00Z') });
  sim.spend(receive(2), merchant, (BTC * 3n) / 10n, { time: at('2026-02-14T16:20:00Z'), changeAddress: change(2) });
  sim.fund(receive(4), (BTC * 12n) / 100n, { time: at('2026-04-01T07:30:00Z') });
  sim.spend(change(0), merchant, BTC / 5n, { time: at('2026-06-30T21:10:00Z'), changeAddress: change(0) });
  sim.fund(receive(0), (BTC * 333n) / 1000n, { time: at('2026-09-15T11:00:00Z') });
  // Enough blocks on top that everything above is final (6+ confirmations).
  sim.mine({ time: at('2026-09-15T12:00:00Z'), count: 12 });
  sim.fund(receive(5), BTC / 100n, { mempool: true });
  return sim;
}

/**
 * Test mode only: pays `sats` from `from` to `to` on the sandbox chain and confirms it in a block
 * dated now by `clock` (never before the chain's last block), as the person would from their
 * wallet; the sandbox pages' "send it from the sandbox wallet" button and tests make deposit proofs
 * with it. The block takes the whole mempool, as a miner would, so it also confirms the sandbox
 * wallet's unconfirmed receipt. `from` must be an address whose key the chain holds (the sandbox
 * wallet's used addresses, or one a test registered) and that has the funds.
 */
export function sandboxPay(
  source: ChainSource,
  from: string,
  to: string,
  sats: bigint,
  clock: Clock,
): { ok: true; txid: string } | { ok: false; reason: string } {
  if (!(source instanceof SimulatedChain)) return { ok: false, reason: 'only the test-mode sandbox chain can make payments' };
  try {
    return { ok: true, txid: source.spend(from, to, sats, { time: source.blockTimeAt(unixSeconds(clock)) }) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
