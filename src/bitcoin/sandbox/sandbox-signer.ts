import { parseAddress } from '../address.js';
import { signMessage, singleKeyWallet } from '../message/sign-message.js';
import { sandboxWallet } from './sandbox-wallet.js';

/** How far along each chain the sandbox signs: well past every address its history uses. */
const SANDBOX_SIGNING_DEPTH = 100;

export type SandboxSignature = { ok: true; signature: string } | { ok: false; reason: string };

/**
 * Signs a message with the sandbox wallet's key for `address` (a receive or change address among
 * the first 100 of each chain, in any test-network encoding). The sandbox keys are public, so this
 * proves nothing in the real world; it lets a person try the ownership proof without a wallet.
 * Refuses mainnet addresses outright.
 */
export function signWithSandboxWallet(address: string, message: string): SandboxSignature {
  const found = sandboxKeyFor(address);
  return found.ok ? { ok: true, signature: signMessage(singleKeyWallet(found.key, 'p2wpkh', 'testnet'), message) } : found;
}

/** Whether {@link signWithSandboxWallet} can sign for `address`, or why not, without signing anything. */
export function canSignWithSandboxWallet(address: string): { ok: true } | { ok: false; reason: string } {
  const found = sandboxKeyFor(address);
  return found.ok ? { ok: true } : found;
}

function sandboxKeyFor(address: string): { ok: true; key: Uint8Array } | { ok: false; reason: string } {
  const parsed = parseAddress(address.trim());
  if (!parsed.ok) return { ok: false, reason: `not an address: ${parsed.error.reason}` };
  if (parsed.address.networks.includes('mainnet')) return { ok: false, reason: 'the sandbox wallet never signs for mainnet addresses' };
  const key = sandboxKeys().get(Buffer.from(parsed.address.scriptPubKey).toString('hex'));
  if (key) return { ok: true, key };
  return {
    ok: false,
    reason: `${parsed.address.address} is not an address of the sandbox wallet (its first ${SANDBOX_SIGNING_DEPTH} receive and change addresses)`,
  };
}

let keysByScript: Map<string, Uint8Array> | undefined;

/** The sandbox wallet's keys by output script (hex), derived once. */
function sandboxKeys(): Map<string, Uint8Array> {
  if (keysByScript) return keysByScript;
  const wallet = sandboxWallet();
  keysByScript = new Map();
  for (const chain of ['receive', 'change'] as const) {
    for (let index = 0; index < SANDBOX_SIGNING_DEPTH; index++) {
      const key = wallet.privateKey(chain, index);
      keysByScript.set(Buffer.from(singleKeyWallet(key, 'p2wpkh', 'testnet').script).toString('hex'), key);
    }
  }
  return keysByScript;
}
