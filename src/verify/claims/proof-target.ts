import { deriveWalletAddress } from '../../bitcoin/keys/index.js';
import type { NetworkName } from '../../bitcoin/network.js';
import { readWalletInput } from '../../bitcoin/wallet-input.js';
import type { Scope } from '../../platform/scope.js';
import type { ChallengeSubject } from './challenge.schemas.js';

export interface ProofTarget {
  ok: true;
  subject: ChallengeSubject;
  signingAddress: string;
  signingPath: string | null;
  network: NetworkName;
}

/**
 * An address proves itself; a wallet is proven by the key of its first receive address (path
 * 0/0). What was typed is read once, by the wallet input reader the connect flow uses too, so both
 * refuse the same input in the same words.
 */
export function proofTarget(input: string, mode: Scope['mode']): ProofTarget | { ok: false; message: string } {
  const read = readWalletInput(input, mode);
  if (!read.ok) return read;
  const signing = deriveWalletAddress(read.wallet, 'receive', 0);
  // An address, or a descriptor of one fixed address (`addr(…)`, no `/*`), is proven and claimed as that address.
  if (!read.wallet.isRange) {
    return {
      ok: true,
      subject: { type: 'address', address: signing.address },
      signingAddress: signing.address,
      signingPath: null,
      network: read.wallet.network,
    };
  }
  return {
    ok: true,
    subject: { type: 'wallet', descriptor: read.wallet.descriptor },
    signingAddress: signing.address,
    signingPath: '0/0',
    network: read.wallet.network,
  };
}

/**
 * The address whose key proves `input` (an address proves itself, a wallet its first receive
 * address), or why `input` cannot be proven in this mode, in the words the proof pages use.
 */
export function signingAddressOf(input: string, mode: Scope['mode']): { ok: true; address: string } | { ok: false; message: string } {
  const target = proofTarget(input, mode);
  return target.ok ? { ok: true, address: target.signingAddress } : target;
}
