import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a random 96-bit IV, as text: `<iv>.<ciphertext+tag>` in base64url. `aad` (the
 * associated data) is authenticated but not stored, so the same text opens only for the same `aad`:
 * secrets and wrapped data keys pass what they are bound to (a column and row, a key id).
 */
export function encrypt(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** The plaintext of `encrypt`'s text; throws when the key, the associated data or any byte differs. */
export function decrypt(key: Buffer, text: string, aad: string): Buffer {
  const [ivText, bodyText, extra] = text.split('.');
  if (!ivText || !bodyText || extra !== undefined) throw new Error('malformed ciphertext');
  const iv = Buffer.from(ivText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  if (iv.length !== 12 || body.length < 16) throw new Error('malformed ciphertext');
  // A fixed tag length: GCM would otherwise accept a truncated tag, which is easier to forge.
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
}
