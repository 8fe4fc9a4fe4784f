import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { parseMasterKey, type Config } from '../config/config.js';

export const MASTER_KEY_FILE = 'master.key';

/**
 * The master keys a process holds: `current` wraps every data key it creates; `previous`
 * (MASTER_KEY_PREVIOUS) only unwraps, during a master key rotation (docs/architecture.md, "Secrets at rest").
 */
export interface MasterKeys {
  current: Buffer;
  previous?: Buffer | undefined;
}

/**
 * A master key's public name: the first 8 base64url characters of its SHA-256. Stored beside what
 * it wrapped and printed by `ownproof keys rotate-master`, so an operator can tell keys apart
 * without ever seeing one.
 */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

/** MASTER_KEY (or the development key file) and, during a rotation, MASTER_KEY_PREVIOUS. */
export function resolveMasterKeys(config: Pick<Config, 'masterKey' | 'previousMasterKey' | 'dataDir'>): MasterKeys {
  return { current: resolveMasterKey(config), previous: config.previousMasterKey };
}

/**
 * The key that encrypts secrets at rest. In production it must come from MASTER_KEY (config refuses
 * to start without it); elsewhere it is generated once into DATA_DIR so a development install keeps
 * working across restarts.
 */
function resolveMasterKey(config: Pick<Config, 'masterKey' | 'dataDir'>): Buffer {
  if (config.masterKey) return config.masterKey;
  const file = path.join(config.dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) {
    const key = parseMasterKey(readFileSync(file, 'utf8').trim());
    if (!key) throw new Error(`${file} does not hold a 32-byte key (64 hex characters); restore it or set MASTER_KEY`);
    return key;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  // wx: never overwrite a key another process wrote a moment ago; mode 600: only the owner reads it.
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveMasterKey(config);
    throw error;
  }
  return key;
}
