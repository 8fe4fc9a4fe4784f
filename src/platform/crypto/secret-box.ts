import { unixSeconds, type Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { decrypt, encrypt } from './aes-gcm.js';
import { legacyKeyId, loadKeyring, type Keyring } from './data-key.service.js';
import type { MasterKeys } from './master-key.js';

/**
 * Encrypts secrets we must be able to read back (webhook signing secrets, exchange credentials,
 * saved idempotent responses, receipt signing keys) with AES-256-GCM under a data key, itself
 * stored wrapped by the master key (envelope encryption; docs/architecture.md, "Secrets at rest").
 *
 * The stored form is `v2.<data key id>.<iv>.<ciphertext+tag>` (base64url). Values sealed before
 * envelope encryption, `v1.<master key id>.<iv>.<ciphertext+tag>` directly under the master key,
 * still open. Either way the purpose string is bound as associated data, so a value cannot be
 * moved to another column or row.
 *
 * Both calls are synchronous: the keys are unwrapped once, when the box is opened.
 */
export interface SecretBox {
  seal(plaintext: string, purpose: string): string;
  open(sealed: string, purpose: string): string;
}

/**
 * The value names a key this process does not hold yet: a data key another process created after
 * this one loaded its keys. The box is reloading them in the background; a retry (the job's next
 * attempt, the client's next request) opens it.
 */
export class UnknownDataKeyError extends Error {
  override name = 'UnknownDataKeyError';
}

/**
 * Loads the data keys of the database (creating the first ones on a new database) and returns the
 * box sealing with the active one. Unwrapped keys stay in this closure only: nothing enumerable
 * holds them, so logging or serialising the context shows none.
 */
export async function openSecretBox(db: Db, masters: MasterKeys, clock: Clock): Promise<SecretBox> {
  let ring: Keyring = await loadKeyring(db, masters, unixSeconds(clock));
  // Reloads run one after another, each from the keys the one before it left. A request joins a
  // load only if that load has not read the database yet: a load already reading may miss the key
  // the request is for (created by another process meanwhile), so it gets the next one, queued
  // behind the running one and shared by every request made until it starts.
  let last: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  const reload = (): Promise<void> => {
    if (!queued) {
      queued = last
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return loadKeyring(db, masters, unixSeconds(clock), ring.keys);
        })
        .then((next) => {
          ring = next;
        });
      last = queued;
    }
    return queued;
  };
  // Unknown ids a reload was asked for: one per id, not one per attempt to open a value that names
  // a key nobody holds. The reload asked for starts after the request, so it reads the key if it exists.
  const reloadedFor = new Set<string>();

  return {
    seal(plaintext, purpose) {
      const key = ring.keys.get(ring.activeId) as Buffer;
      return `v2.${ring.activeId}.${encrypt(key, Buffer.from(plaintext, 'utf8'), purpose)}`;
    },
    open(sealed, purpose) {
      const [version, id, ...rest] = sealed.split('.');
      if ((version !== 'v1' && version !== 'v2') || !id || rest.length !== 2) throw new Error('unrecognised sealed secret');
      const keyId = version === 'v1' ? legacyKeyId(id) : id;
      const key = ring.keys.get(keyId);
      if (!key) {
        if (!reloadedFor.has(keyId)) {
          reloadedFor.add(keyId);
          // A reload that failed (database unreachable) leaves the keys as they were: try again next time.
          reload().catch(() => reloadedFor.delete(keyId));
        }
        throw new UnknownDataKeyError(
          version === 'v1'
            ? `sealed secret was encrypted before envelope encryption with master key ${id}, which this process does not hold (as MASTER_KEY, MASTER_KEY_PREVIOUS, or the data key ${keyId} the first \`ownproof keys rotate-master\` keeps)`
            : `sealed secret uses data key ${id}, which this process has not loaded (another process created it after this one started); the keys are being reloaded, try again`,
        );
      }
      try {
        return decrypt(key, rest.join('.'), purpose).toString('utf8');
      } catch {
        throw new Error('sealed secret does not open: it was altered, or belongs to another purpose');
      }
    },
  };
}
