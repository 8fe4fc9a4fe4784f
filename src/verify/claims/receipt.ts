import { createPrivateKey, sign, type JsonWebKey } from 'node:crypto';
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

/** Payload bytes base64url-encoded at a time: a multiple of 3, so the pieces join without padding. */
const ENCODE_CHUNK = 3 * 16_384;

/**
 * {@link signJws}'s JWS, byte for byte (Ed25519 signatures are deterministic; the tests compare the
 * two), as ASCII bytes made in one buffer: for the statement document, whose JWS is several
 * megabytes for a long statement and is attached to its PDF as bytes. jose's `CompactSign` makes it
 * through half a dozen whole-size copies (on Node 24, which lacks `Uint8Array.prototype.toBase64`:
 * the payload as a string of its bytes, `btoa`, three replacements, the signing input as a string
 * and as bytes, WebCrypto's copy of that): for a 7 MB payload, 50 MiB more peak memory and 0.5 s
 * more than here, where the payload is encoded a slice at a time into the buffer the JWS is, whose
 * first part is the signing input node:crypto signs.
 */
export function signJwsBytes(key: ReceiptSigningKey, typ: string, payload: Uint8Array): Buffer {
  const header = Buffer.from(JSON.stringify({ alg: RECEIPT_ALGORITHM, kid: key.kid, typ }), 'utf8').toString('base64url');
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const signed = header.length + 1 + Math.ceil((bytes.length * 4) / 3);
  // An Ed25519 signature is 64 bytes: 86 characters of base64url.
  const jws = Buffer.allocUnsafe(signed + 1 + 86);
  let at = jws.write(header, 0, 'latin1');
  at += jws.write('.', at, 'latin1');
  for (let i = 0; i < bytes.length; i += ENCODE_CHUNK) {
    at += jws.write(bytes.subarray(i, i + ENCODE_CHUNK).toString('base64url'), at, 'latin1');
  }
  if (at !== signed) throw new Error(`JWS signing input is ${at} bytes, expected ${signed}`);
  const privateKey = createPrivateKey({ key: key.privateJwk as JsonWebKey, format: 'jwk' });
  at += jws.write('.', at, 'latin1');
  at += jws.write(sign(null, jws.subarray(0, signed), privateKey).toString('base64url'), at, 'latin1');
  if (at !== jws.length) throw new Error(`JWS is ${at} bytes, expected ${jws.length}`);
  return jws;
}
