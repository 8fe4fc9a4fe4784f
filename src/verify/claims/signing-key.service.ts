import { generateKeyPairSync } from 'node:crypto';
import type { JSONWebKeySet, JWK } from 'jose';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import { newId } from '../../platform/crypto/random.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { verificationKeys, type VerificationKeys } from '@ownproof/verify';
import { RECEIPT_ALGORITHM, type ReceiptSigningKey } from './receipt.js';
import { findActiveSigningKey, insertSigningKey, listSigningKeys, retireSigningKeys } from './signing-key.repository.js';
import type { SigningKeyRow } from '../verify.table.js';
import { encodeKeyPair, privateJwk, publicJwk } from './signing-key.repository.js';

export type SigningKeyDeps = Pick<AppContext, 'db' | 'clock' | 'secretBox'>;

function newKeyRow(deps: SigningKeyDeps, now: number) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const kid = newId('rk');
  const publicJwk: JWK = { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: RECEIPT_ALGORITHM, use: 'sig' };
  return {
    id: kid,
    ...encodeKeyPair(deps.secretBox, kid, { publicJwk, privateJwk: privateKey.export({ format: 'jwk' }) as JWK }),
    status: 'active' as const,
    created_at: now,
    retired_at: null,
  };
}

function toSigningKey(deps: SigningKeyDeps, row: SigningKeyRow): ReceiptSigningKey {
  return { kid: row.id, privateJwk: privateJwk(deps.secretBox, row) };
}

/**
 * The key that signs new receipts, created on first use. Two processes creating the first key
 * at once are serialised by the one-active-key index: the loser reads the winner's key.
 */
export async function activeSigningKey(deps: SigningKeyDeps): Promise<ReceiptSigningKey> {
  const found = await findActiveSigningKey(deps.db);
  if (found) return toSigningKey(deps, found);
  try {
    await insertSigningKey(deps.db, newKeyRow(deps, unixSeconds(deps.clock)));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  const created = await findActiveSigningKey(deps.db);
  if (!created) throw new Error('no active receipt signing key after creating one');
  return toSigningKey(deps, created);
}

/**
 * Adds a new signing key and retires the active one. Retired keys stay published, so every receipt
 * ever issued still verifies; new receipts are signed with the new key.
 */
export async function rotateSigningKey(deps: SigningKeyDeps): Promise<{ kid: string; retired: string[] }> {
  const now = unixSeconds(deps.clock);
  const row = newKeyRow(deps, now);
  const retired = await deps.db.transaction().execute(async (trx) => {
    const ids = await retireSigningKeys(trx, now);
    await insertSigningKey(trx, row);
    return ids;
  });
  return { kid: row.id, retired };
}

/** The public keys receipts are checked with (`/.well-known/jwks.json`), newest first. */
export async function publicJwks(deps: Pick<AppContext, 'db'>): Promise<JSONWebKeySet> {
  return { keys: (await listSigningKeys(deps.db)).map(publicJwk) };
}

/** Each database's published keys, imported, kept while they stay the same. */
const published = new WeakMap<object, { kids: string; keys: VerificationKeys }>();

/**
 * The keys published now, ready to check signatures (receipts, statement documents). The key set
 * is read each time (another process may have rotated), but imported again only when it changed.
 */
export async function publishedVerificationKeys(deps: Pick<AppContext, 'db'>): Promise<VerificationKeys> {
  const jwks = await publicJwks(deps);
  const kids = jwks.keys.map((key) => key.kid).join(' ');
  const cached = published.get(deps.db);
  if (cached?.kids === kids) return cached.keys;
  const keys = verificationKeys(jwks);
  published.set(deps.db, { kids, keys });
  return keys;
}

/** Keys with their state, for `ownproof keys list`. */
export async function describeSigningKeys(
  deps: Pick<AppContext, 'db'>,
): Promise<{ kid: string; status: string; created_at: number; retired_at: number | null }[]> {
  return (await listSigningKeys(deps.db)).map((row) => ({
    kid: row.id,
    status: row.status,
    created_at: row.created_at,
    retired_at: row.retired_at,
  }));
}
