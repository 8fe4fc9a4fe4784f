import type { JSONWebKeySet } from 'jose';
import { deriveWalletAddress, parseWalletDescriptor } from '../../../src/bitcoin/keys/wallet-descriptor.js';
import { verifyMessage } from '../../../src/bitcoin/message/verify-message.js';
import { NETWORK_NAMES, type NetworkName } from '../../../src/bitcoin/network.js';
import { challengeMismatch } from './challenge.js';
import { isClaimStatement, MAX_RECEIPT_LENGTH, type ClaimStatement, type ReceiptPayload } from './claim.js';
import { checkSignedJws, jsonPayload, verificationKeys, type SignedKind, type VerificationKeys } from './jws.js';

/** The JWS `typ` of a claim receipt, so a receipt is never mistaken for another signed object. */
export const RECEIPT_TYPE = 'ownproof-claim+jws';

export type ReceiptVerdict =
  | { valid: true; kid: string; issuer: string; claim: ClaimStatement }
  | { valid: false; reason: string; issuer?: string; claim?: ClaimStatement };

const CLAIM_RECEIPT: SignedKind = {
  typ: RECEIPT_TYPE,
  subject: 'the receipt',
  signature: 'the receipt’s signature',
  kind: 'a claim receipt',
};

/**
 * Checks a receipt with nothing but the issuer's public keys: the JWS signature (EdDSA, a key of
 * `jwks` named by `kid`, our `typ`), the statement's shape, and then the Bitcoin proof itself,
 * re-verified from what the statement holds (see {@link checkProof}). Never throws on input.
 */
export async function verifyReceipt(receipt: string, jwks: JSONWebKeySet): Promise<ReceiptVerdict> {
  return receiptVerifier(verificationKeys(jwks))(receipt);
}

/**
 * {@link verifyReceipt} for many receipts against one key set: the keys are imported once (jose
 * caches each imported key in the set), which more than doubles the rate of a batch.
 */
export function receiptVerifier(keys: VerificationKeys): (receipt: string) => Promise<ReceiptVerdict> {
  return async (receipt) => {
    if (typeof receipt !== 'string' || receipt.length > MAX_RECEIPT_LENGTH)
      return { valid: false, reason: 'the receipt is too long or not text' };
    const verified = await checkSignedJws(receipt.trim(), keys, CLAIM_RECEIPT);
    if (!verified.ok) return { valid: false, reason: verified.reason };
    const payload = jsonPayload(verified.payload);
    if (payload === undefined) return { valid: false, reason: 'the signed content is not JSON' };
    const { iss, claim } = (payload ?? {}) as Partial<ReceiptPayload>;
    if (typeof iss !== 'string' || !isClaimStatement(claim)) return { valid: false, reason: 'the signed content is not a claim statement' };
    const problem = checkProof(claim, iss);
    if (problem) return { valid: false, reason: problem, issuer: iss, claim };
    return { valid: true, kid: verified.kid, issuer: iss, claim };
  };
}

const isNetworkName = (name: string): name is NetworkName => (NETWORK_NAMES as readonly string[]).includes(name);

/**
 * Why the statement's Bitcoin proof does not hold, or undefined when it does. Needs no network:
 * - a signature is verified again for the statement's signing address and message, with the
 *   format the statement names;
 * - for a wallet, the signing address must be the one the descriptor derives at `signed_path`;
 * - the message must be a challenge of the issuer about the subject, so a signature made for
 *   another verifier, or for another address, cannot be dressed up as this claim;
 * - a deposit cannot be re-checked offline: only the receipt's signature vouches for it (its
 *   txid can be looked up on any block explorer).
 */
export function checkProof(claim: ClaimStatement, issuer: string): string | undefined {
  const { proof, subject } = claim;
  const mismatch = challengeMismatch(proof.message, issuer, subject, proof.address);
  if (mismatch) return mismatch;
  if (subject.type === 'address' && proof.address !== subject.address) return 'the proof is for another address than the claim';
  if (proof.format === 'deposit') return proof.txid ? undefined : 'a deposit proof without a transaction id';
  if (subject.type === 'wallet') {
    if (!isNetworkName(claim.network)) return `the claim names an unknown network (${claim.network})`;
    const problem = walletPathProblem(subject.descriptor, proof.signed_path, proof.address, claim.network);
    if (problem) return problem;
  }
  if (proof.signature === undefined) return 'the proof has no signature';
  const result = verifyMessage({ address: proof.address, message: proof.message, signature: proof.signature });
  if (!result.valid) return `the Bitcoin proof does not hold: ${result.reason}`;
  if (result.format !== proof.format) return `the signature is ${result.format}, not ${proof.format} as the claim states`;
  return undefined;
}

/** `0/7` → receive index 7; `1/2` → change index 2. */
function parseSignedPath(path: string | undefined): { chain: 'receive' | 'change'; index: number } | undefined {
  const match = path === undefined ? null : /^([01])\/(0|[1-9]\d{0,9})$/.exec(path);
  if (!match) return undefined;
  const index = Number(match[2]);
  return index < 2 ** 31 ? { chain: match[1] === '0' ? 'receive' : 'change', index } : undefined;
}

function walletPathProblem(descriptor: string, signedPath: string | undefined, address: string, network: NetworkName): string | undefined {
  const path = parseSignedPath(signedPath);
  if (!path) return 'a wallet proof must name the signed path (e.g. 0/0)';
  const wallet = parseWalletDescriptor(descriptor, { network });
  if (!wallet.ok) return `the wallet descriptor does not parse: ${wallet.error.reason}`;
  if (path.chain === 'change' && !wallet.value.change) return 'the signed path is on a change chain the wallet does not have';
  if (deriveWalletAddress(wallet.value, path.chain, path.index).address !== address)
    return `the wallet does not derive the signing address at ${signedPath}`;
  return undefined;
}
