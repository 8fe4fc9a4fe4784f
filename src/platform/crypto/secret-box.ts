import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets we must be able to read back (webhook signing secrets, exchange credentials)
 * with AES-256-GCM. The stored form is `v1.<key id>.<iv>.<ciphertext+tag>` in base64url, and the
 * purpose string is bound as associated data so a value cannot be moved to another column.
 */
export interface SecretBox {
  seal(plaintext: string, purpose: string): string;
  open(sealed: string, purpose: string): string;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  const keyId = createHash('sha256').update(masterKey).digest('base64url').slice(0, 8);
  return {
    seal(plaintext, purpose) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return ['v1', keyId, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, purpose) {
      const [version, id, ivText, bodyText] = sealed.split('.');
      if (version !== 'v1' || !ivText || !bodyText) throw new Error('unrecognised sealed secret');
      if (id !== keyId) throw new Error('sealed secret was encrypted with another master key');
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(ivText, 'base64url'));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}
