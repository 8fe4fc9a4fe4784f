import { CompactSign, compactVerify, createLocalJWKSet, importJWK, type JSONWebKeySet, type JWK } from 'jose';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { parseWalletDescriptor, deriveWalletAddress } from '../bitcoin/keys/index.js';
import { verifyMessage } from '../bitcoin/message/verify-message.js';
import type { NetworkName } from '../bitcoin/network.js';
import { challengeMismatch } from './challenge-message.js';
import { ClaimStatement, MAX_RECEIPT_LENGTH, type ReceiptPayload } from './claim.schemas.js';

/** The JWS `typ` of a claim receipt, so a receipt is never mistaken for another signed object. */
export const RECEIPT_TYPE = 'ownproof-claim+jws';
export const RECEIPT_ALGORITHM = 'EdDSA';

/** A key that signs receipts. */
export interface ReceiptSigningKey {
  kid: string;
  /** Private Ed25519 JWK (`kty: OKP`, `crv: Ed25519`, `d`, `x`). */
  privateJwk: JWK;
}

/** Signs a claim statement: a compact JWS whose protected header names the key. */
export async function signReceipt(key: ReceiptSigningKey, payload: ReceiptPayload): Promise<string> {
  return signJws(key, RECEIPT_TYPE, new TextEncoder().encode(JSON.stringify(payload)));
}

/**
 * A compact JWS (EdDSA) over exactly `payload`, its protected header naming the key and `typ`:
 * what every document the service signs with these keys is (claim receipts, statement documents).
 */
export async function signJws(key: ReceiptSigningKey, typ: string, payload: Uint8Array): Promise<string> {
  const privateKey = await importJWK({ ...key.privateJwk, alg: RECEIPT_ALGORITHM }, RECEIPT_ALGORITHM);
  return new CompactSign(payload).setProtectedHeader({ alg: RECEIPT_ALGORITHM, kid: key.kid, typ }).sign(privateKey);
}

export type ReceiptVerdict =
  | { valid: true; kid: string; issuer: string; claim: ClaimStatement }
  | { valid: false; reason: string; issuer?: string; claim?: ClaimStatement };

const statementCheck = TypeCompiler.Compile(ClaimStatement);

/**
 * Checks a receipt with nothing but the issuer's public keys: the JWS signature (EdDSA, a key of
 * `jwks` named by `kid`, our `typ`), the statement's shape, and then the Bitcoin proof itself,
 * re-verified from what the statement holds (see {@link checkProof}). Never throws on input.
 */
export async function verifyReceipt(receipt: string, jwks: JSONWebKeySet): Promise<ReceiptVerdict> {
  return receiptVerifier(verificationKeys(jwks))(receipt);
}

/** A key set to check signatures with: built once from a JWKS, it imports each key once (jose caches them). */
export type VerificationKeys = ReturnType<typeof createLocalJWKSet>;
export const verificationKeys = (jwks: JSONWebKeySet): VerificationKeys => createLocalJWKSet(jwks);

/**
 * What a signed thing is called in verdicts, so that each reason names it once, as the subject of
 * one sentence: `subject` the thing ("the receipt"), `signature` its signature ("the receipt’s
 * signature"; a thing that is itself a signature is named once: "the file signature"), `kind` what
 * it is not ("a claim receipt").
 */
export interface SignedKind {
  typ: string;
  subject: string;
  signature: string;
  kind: string;
}
const CLAIM_RECEIPT: SignedKind = { typ: RECEIPT_TYPE, subject: 'the receipt', signature: 'the receipt’s signature', kind: 'a claim receipt' };

/**
 * Checks a compact JWS of one of our types: EdDSA, signed by a key of `keys` named by `kid`, with
 * `typ` in its protected header. Never throws on input.
 */
export async function checkSignedJws(text: string, keys: VerificationKeys, signed: SignedKind): Promise<{ ok: true; kid: string; payload: Uint8Array } | { ok: false; reason: string }> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text)) {
    return { ok: false, reason: `${signed.subject} is not a compact JWS (three base64url parts separated by dots)` };
  }
  let verified;
  try {
    verified = await compactVerify(text, keys, { algorithms: [RECEIPT_ALGORITHM] });
  } catch (error) {
    return { ok: false, reason: signatureFailure(error, signed) };
  }
  if (verified.protectedHeader.typ !== signed.typ) return { ok: false, reason: `${signed.subject} is not ${signed.kind} (its typ is ${String(verified.protectedHeader.typ)})` };
  return { ok: true, kid: verified.protectedHeader.kid as string, payload: verified.payload };
}

/** The signed payload as JSON, or undefined when it is not UTF-8 JSON. */
export function jsonPayload(payload: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    return undefined;
  }
}

/**
 * {@link verifyReceipt} for many receipts against one key set: the keys are imported once (jose
 * caches each imported key in the set), which more than doubles the rate of a batch.
 */
export function receiptVerifier(keys: VerificationKeys): (receipt: string) => Promise<ReceiptVerdict> {
  return async (receipt) => {
    if (typeof receipt !== 'string' || receipt.length > MAX_RECEIPT_LENGTH) return { valid: false, reason: 'the receipt is too long or not text' };
    const verified = await checkSignedJws(receipt.trim(), keys, CLAIM_RECEIPT);
    if (!verified.ok) return { valid: false, reason: verified.reason };
    const payload = jsonPayload(verified.payload);
    if (payload === undefined) return { valid: false, reason: 'the signed content is not JSON' };
    const { iss, claim } = (payload ?? {}) as Partial<ReceiptPayload>;
    if (typeof iss !== 'string' || !statementCheck.Check(claim)) return { valid: false, reason: 'the signed content is not a claim statement' };
    const problem = checkProof(claim, iss);
    if (problem) return { valid: false, reason: problem, issuer: iss, claim };
    return { valid: true, kid: verified.kid, issuer: iss, claim };
  };
}

function signatureFailure(error: unknown, signed: SignedKind): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_JWKS_NO_MATCHING_KEY') return `${signed.signature} was made with a key the issuer does not publish (unknown kid)`;
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return `${signed.signature} does not match the content it signs: it was altered or not issued with this key`;
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED') return `${signed.signature} uses an algorithm other than EdDSA`;
  return `${signed.subject} is not a valid JWS`;
}

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
    const problem = walletPathProblem(subject.descriptor, proof.signed_path, proof.address, claim.network as NetworkName);
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
  if (deriveWalletAddress(wallet.value, path.chain, path.index).address !== address) return `the wallet does not derive the signing address at ${signedPath}`;
  return undefined;
}
