import { unixSeconds } from '../platform/clock.js';
import type { AppContext } from '../platform/context.js';
import { hashSecret, newId, newSecret, secretHint } from '../platform/crypto/random.js';
import type { KeyCheck } from '../platform/http/auth.js';
import type { Mode } from '../platform/scope.js';
import {
  countClients,
  expireApiKeys,
  findApiKeyByHash,
  findClient,
  findUsableApiKeys,
  insertApiKey,
  insertClient,
} from './client.repository.js';

export type ClientDeps = Pick<AppContext, 'db' | 'clock'>;

export interface CreatedClient {
  clientId: string;
  name: string;
  /** Shown once; only a hash is stored. */
  testKey: string;
  liveKey: string | undefined;
}

/** `sk_test_` / `sk_live_` followed by 32 base62 characters. */
export const API_KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

/** Creates a client with a fresh test key and, unless `withLiveKey` is false, a live key. */
export async function createClient(deps: ClientDeps, input: { name: string; withLiveKey?: boolean }): Promise<CreatedClient> {
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new RangeError('client name must be 1 to 200 characters');
  const now = unixSeconds(deps.clock);
  const clientId = newId('cli');
  const testKey = newSecret('sk_test');
  const liveKey = input.withLiveKey === false ? undefined : newSecret('sk_live');
  await deps.db.transaction().execute(async (trx) => {
    await insertClient(trx, { id: clientId, name, created_at: now });
    await insertApiKey(trx, keyRow(clientId, 'test', testKey, now));
    if (liveKey) await insertApiKey(trx, keyRow(clientId, 'live', liveKey, now));
  });
  return { clientId, name, testKey, liveKey };
}

/**
 * Issues a new key for a client and mode. Every key that worked before stops working after
 * `graceSeconds` (0 = at once), so a deployment can switch keys without downtime.
 */
export async function rollApiKey(
  deps: ClientDeps,
  input: { clientId: string; mode: Mode; graceSeconds: number },
): Promise<{ key: string; expiringKeyHints: string[]; oldKeysExpireAt: number }> {
  if (!Number.isInteger(input.graceSeconds) || input.graceSeconds < 0) {
    throw new RangeError('grace period must be a whole number of seconds ≥ 0');
  }
  const now = unixSeconds(deps.clock);
  const key = newSecret(`sk_${input.mode}`);
  const expiresAt = now + input.graceSeconds;
  const expiring = await deps.db.transaction().execute(async (trx) => {
    if (!(await findClient(trx, input.clientId))) throw new ClientNotFoundError(input.clientId);
    const old = await findUsableApiKeys(trx, input.clientId, input.mode, now);
    await expireApiKeys(
      trx,
      old.map((k) => k.id),
      expiresAt,
      input.graceSeconds === 0 ? now : null,
    );
    await insertApiKey(trx, keyRow(input.clientId, input.mode, key, now));
    return old;
  });
  return { key, expiringKeyHints: expiring.map((k) => k.key_hint), oldKeysExpireAt: expiresAt };
}

export class ClientNotFoundError extends Error {
  constructor(readonly clientId: string) {
    super(`no client with id ${clientId}`);
    this.name = 'ClientNotFoundError';
  }
}

/** Resolves a presented API key to the (client, mode) it acts for. */
export async function authenticateApiKey(deps: ClientDeps, presented: string): Promise<KeyCheck> {
  if (!API_KEY_PATTERN.test(presented)) return { ok: false, code: 'api_key_malformed' };
  const key = await findApiKeyByHash(deps.db, hashSecret(presented));
  if (!key) return { ok: false, code: 'api_key_invalid' };
  const now = unixSeconds(deps.clock);
  if (key.revoked_at !== null || (key.expires_at !== null && key.expires_at <= now)) {
    return { ok: false, code: 'api_key_revoked' };
  }
  return { ok: true, scope: { clientId: key.client_id, mode: key.mode }, keyId: key.id, expiresAt: key.expires_at };
}

/** The name a client shows to account holders (hosted pages, e-mails); undefined for an unknown id. */
export async function clientDisplayName(deps: Pick<ClientDeps, 'db'>, clientId: string): Promise<string | undefined> {
  return (await findClient(deps.db, clientId))?.name;
}

/**
 * On the very first start, creates a client with a test key so a newcomer can call the API at once.
 * Returns the key when it was created now, undefined when clients already exist.
 */
export async function bootstrapFirstClient(deps: ClientDeps): Promise<CreatedClient | undefined> {
  if ((await countClients(deps.db)) > 0) return undefined;
  return createClient(deps, { name: 'Default client', withLiveKey: false });
}

function keyRow(clientId: string, mode: Mode, key: string, now: number) {
  return {
    id: newId('key'),
    client_id: clientId,
    mode,
    key_hash: hashSecret(key),
    key_hint: secretHint(key),
    created_at: now,
    expires_at: null,
    revoked_at: null,
  };
}
