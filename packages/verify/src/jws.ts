import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';

/** Every document ownproof signs is a compact JWS made with an Ed25519 key of its JWKS. */
export const SIGNATURE_ALGORITHM = 'EdDSA';

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

export type SignedJwsCheck = { ok: true; kid: string; payload: Uint8Array } | { ok: false; reason: string };

/**
 * Checks a compact JWS of one of our types: EdDSA, signed by a key of `keys` named by `kid`, with
 * `typ` in its protected header. Never throws on input.
 */
export async function checkSignedJws(text: string, keys: VerificationKeys, signed: SignedKind): Promise<SignedJwsCheck> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text)) {
    return { ok: false, reason: `${signed.subject} is not a compact JWS (three base64url parts separated by dots)` };
  }
  let verified;
  try {
    verified = await compactVerify(text, keys, { algorithms: [SIGNATURE_ALGORITHM] });
  } catch (error) {
    return { ok: false, reason: signatureFailure(error, signed) };
  }
  if (verified.protectedHeader.typ !== signed.typ)
    return { ok: false, reason: `${signed.subject} is not ${signed.kind} (its typ is ${String(verified.protectedHeader.typ)})` };
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

function signatureFailure(error: unknown, signed: SignedKind): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_JWKS_NO_MATCHING_KEY') return `${signed.signature} was made with a key the issuer does not publish (unknown kid)`;
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED')
    return `${signed.signature} does not match the content it signs: it was altered or not issued with this key`;
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED') return `${signed.signature} uses an algorithm other than EdDSA`;
  return `${signed.subject} is not a valid JWS`;
}
