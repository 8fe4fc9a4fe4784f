import { pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { deriveWalletAddress, parseWalletDescriptor, type WalletDescriptor } from '../keys/index.js';
import { bip32Version } from '../keys/slip132.js';

/**
 * The sandbox wallet: a BIP-84 (native segwit) testnet wallet whose recovery phrase is public on
 * purpose — BIP-39's well-known test mnemonic, which every wallet can restore — so anyone can
 * sign test-mode challenges with it (in Sparrow, Electrum, or `ownproof sandbox sign-message`)
 * and see a realistic history in test mode. Never use it for anything real.
 */
export const SANDBOX_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const SANDBOX_ACCOUNT_PATH = "m/84'/1'/0'";

/** BIP-39: the seed of a mnemonic without passphrase (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic"). */
function mnemonicSeed(mnemonic: string): Uint8Array {
  return pbkdf2Sync(Buffer.from(mnemonic.normalize('NFKD'), 'utf8'), Buffer.from('mnemonic', 'utf8'), 2048, 64, 'sha512');
}

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
let cachedRoot: HDKey | undefined;

/** The sandbox mnemonic's master key, testnet versions. */
function sandboxRoot(): HDKey {
  const testnet = bip32Version('test');
  cachedRoot ??= HDKey.fromMasterSeed(mnemonicSeed(SANDBOX_MNEMONIC), { public: testnet.publicVersion, private: testnet.privateVersion });
  return cachedRoot;
}

/**
 * Where test-mode deposit proofs are paid: the receive addresses of the same mnemonic's second
 * account (`m/84'/1'/1'`), watch-only like an operator's `DEPOSIT_XPUB` in live mode.
 */
export function sandboxDepositWallet(): WalletDescriptor {
  const root = sandboxRoot();
  const fingerprint = root.fingerprint.toString(16).padStart(8, '0');
  const parsed = parseWalletDescriptor(`wpkh([${fingerprint}/84h/1h/1h]${root.derive("m/84'/1'/1'").publicExtendedKey}/0/*)`, {
    network: 'testnet',
  });
  if (!parsed.ok) throw new Error(`sandbox deposit descriptor does not parse: ${parsed.error.reason}`);
  return parsed.value;
}

export function sandboxWallet(): SandboxWallet {
  if (cached) return cached;
  const root = sandboxRoot();
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
