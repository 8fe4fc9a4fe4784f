import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseMasterKey, type Config } from '../config/config.js';

export const MASTER_KEY_FILE = 'master.key';

/**
 * The key that encrypts secrets at rest. In production it must come from MASTER_KEY (config refuses
 * to start without it); elsewhere it is generated once into DATA_DIR so a development install keeps
 * working across restarts.
 */
export function resolveMasterKey(config: Pick<Config, 'masterKey' | 'dataDir'>): Buffer {
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
