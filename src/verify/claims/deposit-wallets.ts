import { parseWalletDescriptor, type WalletDescriptor } from '../../bitcoin/keys/index.js';
import { sandboxDepositWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import { ConfigError } from '../../platform/config/config.js';
import type { Mode } from '../../platform/scope.js';

/** The watch-only wallet whose receive addresses take deposit proofs, per mode. */
export interface DepositWallets {
  /** Undefined when the mode takes no deposit proofs (live mode without DEPOSIT_XPUB). */
  forMode(mode: Mode): WalletDescriptor | undefined;
}

/**
 * Test mode: the sandbox's deposit account (docs/sandbox.md). Live mode: `DEPOSIT_XPUB`, a mainnet
 * extended public key or descriptor of a wallet the operator controls (so deposits are not lost),
 * checked when the service starts: a wrong value stops it with one line naming the variable.
 */
export function createDepositWallets(depositXpub: string | undefined): DepositWallets {
  let live: WalletDescriptor | undefined;
  if (depositXpub !== undefined) {
    const parsed = parseWalletDescriptor(depositXpub, { network: 'mainnet' });
    if (!parsed.ok) throw new ConfigError('DEPOSIT_XPUB', `must be a mainnet extended public key or descriptor (${parsed.error.reason})`);
    if (!parsed.value.isRange)
      throw new ConfigError(
        'DEPOSIT_XPUB',
        'must derive many addresses (an xpub, or a descriptor ending in /*): each deposit proof gets a fresh one',
      );
    live = parsed.value;
  }
  let test: WalletDescriptor | undefined;
  return {
    forMode: (mode) => (mode === 'live' ? live : (test ??= sandboxDepositWallet())),
  };
}
