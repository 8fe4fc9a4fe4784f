import { CompactSign, importJWK, type JWK } from 'jose';
import { RECEIPT_TYPE, SIGNATURE_ALGORITHM, type ReceiptPayload } from '@ownproof/verify';

/**
 * Signing what @ownproof/verify checks: claim receipts here, statement documents and statement
 * files (statement-check.ts). The checks themselves are the package's, for us and for anyone.
 */
export const RECEIPT_ALGORITHM = SIGNATURE_ALGORITHM;

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
