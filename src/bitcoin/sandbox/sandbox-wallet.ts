import { HDKey } from '@scure/bip32';
import { hex } from '@scure/base';
import { deriveWalletAddress, parseWalletDescriptor, type WalletDescriptor } from '../keys/index.js';
import { bip32Version } from '../keys/slip132.js';

/**
 * The sandbox wallet: a BIP-84 (native segwit) testnet wallet whose seed is public on purpose —
 * the seed of BIP-32 test vector 1 — so integrators can sign test-mode challenges with it and see
 * a realistic history in test mode. Never use it for anything real.
 */
const SANDBOX_SEED_HEX = '000102030405060708090a0b0c0d0e0f';
const SANDBOX_ACCOUNT_PATH = "m/84'/1'/0'";

export interface SandboxWallet {
  /** `wpkh([fingerprint/84h/1h/0h]tpub…/<0;1>/*)#checksum` */
  descriptor: string;
  /** The account's extended public key, tpub form. */
  tpub: string;
  wallet: WalletDescriptor;
  /** Private key (32 bytes) of a receive or change address, for signing in tests and in the sandbox. */
  privateKey(chain: 'receive' | 'change', index: number): Uint8Array;
  address(chain: 'receive' | 'change', index: number): string;
}

let cached: SandboxWallet | undefined;

export function sandboxWallet(): SandboxWallet {
  if (cached) return cached;
  const testnet = bip32Version('test');
  const root = HDKey.fromMasterSeed(hex.decode(SANDBOX_SEED_HEX), { public: testnet.publicVersion, private: testnet.privateVersion });
  const account = root.derive(SANDBOX_ACCOUNT_PATH);
  const fingerprint = root.fingerprint.toString(16).padStart(8, '0');
  const tpub = account.publicExtendedKey;
  const parsed = parseWalletDescriptor(`wpkh([${fingerprint}/84h/1h/0h]${tpub}/<0;1>/*)`, { network: 'testnet' });
  if (!parsed.ok) throw new Error(`sandbox wallet descriptor does not parse: ${parsed.error.reason}`);
  const wallet = parsed.value;
  cached = {
    descriptor: wallet.descriptor,
    tpub,
    wallet,
    privateKey(chain, index) {
      const key = account.deriveChild(chain === 'receive' ? 0 : 1).deriveChild(index).privateKey;
      if (!key) throw new Error('sandbox key derivation failed');
      return key;
    },
    address(chain, index) {
      return deriveWalletAddress(wallet, chain, index).address;
    },
  };
  return cached;
}
