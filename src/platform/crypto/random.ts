import { createHash, randomBytes } from 'node:crypto';
import type { SecretPrefix } from './secret-kinds.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Uniformly random base62 text. Bytes ≥ 248 are dropped (rejection sampling) so every character is
 * equally likely; each character carries log2(62) ≈ 5.95 bits.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Object ids: `prefix_` + 22 base62 characters (≈ 131 random bits). Opaque to clients. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(22)}`;
}

/**
 * Secrets handed out (API keys, session secrets, portal tokens): ≥ 190 random bits. Only the
 * prefixes of `SECRET_KINDS` are accepted, so every secret we mint is one the logs are scrubbed of.
 */
export function newSecret(prefix: SecretPrefix): string {
  return `${prefix}_${randomBase62(32)}`;
}

/**
 * Hash for looking secrets up. The secrets carry ≥ 128 random bits, so a fast hash is enough: there
 * is nothing to brute-force, unlike a human-chosen password.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** `sk_test_…a1B2`: the prefix and the last four characters, for people to tell keys apart. */
export function secretHint(secret: string): string {
  const cut = secret.lastIndexOf('_') + 1;
  return `${secret.slice(0, cut)}…${secret.slice(-4)}`;
}

/**
 * Request ids: unique, not secret. A random per-process prefix plus a counter is unique across
 * processes and restarts for all practical purposes, and costs nothing per request.
 */
export function requestIdGenerator(): () => string {
  const prefix = randomBase62(12);
  let counter = 0;
  return () => `req_${prefix}${(counter++).toString(36).padStart(10, '0')}`;
}
