import { base58 } from '@scure/base';
import { sha256d } from './hashes.js';

/** Base58Check decoding outcome; callers word the problem for what they were reading. */
type Base58CheckResult = { ok: true; payload: Uint8Array } | { ok: false; problem: 'encoding' | 'short' | 'checksum' };

/** Decodes base58 text whose last four bytes are the SHA256d checksum of the rest. Never throws. */
export function decodeBase58Check(text: string): Base58CheckResult {
  let raw: Uint8Array;
  try {
    raw = base58.decode(text);
  } catch {
    return { ok: false, problem: 'encoding' };
  }
  if (raw.length < 5) return { ok: false, problem: 'short' };
  const payload = raw.subarray(0, raw.length - 4);
  const sum = sha256d(payload);
  for (let i = 0; i < 4; i++) if (sum[i] !== raw[payload.length + i]) return { ok: false, problem: 'checksum' };
  return { ok: true, payload };
}

/** `payload` followed by its 4-byte SHA256d checksum, in base58. */
export function encodeBase58Check(payload: Uint8Array): string {
  const out = new Uint8Array(payload.length + 4);
  out.set(payload);
  out.set(sha256d(payload).subarray(0, 4), payload.length);
  return base58.encode(out);
}
