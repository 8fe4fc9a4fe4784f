import { parseWalletDescriptor, type WalletDescriptor } from './keys/index.js';
import type { NetworkName } from './network.js';

/** The networks each mode accepts: mainnet in live mode, the test networks in test mode. */
export function modeNetworks(mode: 'test' | 'live'): readonly NetworkName[] {
  return mode === 'live' ? ['mainnet'] : ['testnet', 'signet', 'regtest'];
}

/**
 * Reads what a person typed to name a wallet — an address, an extended public key or a
 * descriptor — for a mode, and says in plain words what is wrong with it otherwise (including a
 * pasted private key or seed phrase, which is never echoed back). Never throws on input.
 */
export function readWalletInput(
  input: string,
  mode: 'test' | 'live',
): { ok: true; wallet: WalletDescriptor } | { ok: false; message: string } {
  const text = input.trim();
  if (text === '') return { ok: false, message: 'Enter an address, an extended public key or a descriptor.' };
  if (looksLikeSecret(text)) {
    return {
      ok: false,
      message: 'This looks like a private key or seed phrase. Never share those: enter an address or an extended public key instead.',
    };
  }
  const parsed = parseWalletDescriptor(text, { mode });
  if (parsed.ok) return { ok: true, wallet: parsed.value };
  if (parsed.error.code === 'wrong_network') {
    // The parser speaks of descriptors, as it reads everything as one: name what the person typed.
    // Read again without the mode (it parses, its network being the wrong one) to learn what that was.
    const typed = parseWalletDescriptor(text);
    const what = typed.ok ? WHAT_WAS_TYPED[typed.value.source] : 'wallet';
    return {
      ok: false,
      message:
        mode === 'live'
          ? `This is a test-network ${what}; live mode needs a mainnet one.`
          : `This is a mainnet ${what}; test mode needs a test-network one.`,
    };
  }
  return { ok: false, message: `That is not a wallet we can watch: ${parsed.error.reason}.` };
}

const WHAT_WAS_TYPED: Record<WalletDescriptor['source'], string> = {
  address: 'address',
  'extended-key': 'extended public key',
  descriptor: 'descriptor',
};

/** WIF keys, xprv-style keys, hex private keys or 12/24-word phrases: things nobody should paste. */
function looksLikeSecret(text: string): boolean {
  if (/^[xyztuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,}/.test(text) || /prv[1-9A-HJ-NP-Za-km-z]{100,}/.test(text)) return true;
  if (/^[5KLc9][1-9A-HJ-NP-Za-km-z]{50,51}$/.test(text)) return true;
  const words = text.split(/\s+/);
  return (words.length === 12 || words.length === 24) && words.every((w) => /^[a-z]{3,8}$/.test(w));
}
