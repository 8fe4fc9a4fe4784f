import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';

/** The Bitcoin networks ownproof understands. Live mode uses mainnet; test mode the other three. */
export const NETWORK_NAMES = ['mainnet', 'testnet', 'signet', 'regtest'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

/**
 * Encoding parameters per network, in the shape @scure/btc-signer takes.
 * Testnet and signet share every prefix, and regtest differs from them only in its bech32 HRP,
 * so a base58 test address cannot tell testnet, signet and regtest apart.
 */
export const NETWORK_PARAMS: Record<NetworkName, BTC_NETWORK> = {
  mainnet: NETWORK,
  testnet: TEST_NETWORK,
  signet: TEST_NETWORK,
  regtest: { ...TEST_NETWORK, bech32: 'bcrt' },
};
