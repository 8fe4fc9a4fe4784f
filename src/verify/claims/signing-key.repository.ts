import { Type } from '@sinclair/typebox';
import type { JWK } from 'jose';
import type { Insertable } from 'kysely';
import type { SecretBox } from '../../platform/crypto/secret-box.js';
import type { Db } from '../../platform/db/database.js';
import { jsonColumn } from '../../platform/db/json-column.js';
import type { SigningKeyRow, SigningKeyTable } from '../verify.table.js';

/** A JSON Web Key: an object with its key type; jose checks the rest when it imports the key. */
const Jwk = Type.Unsafe<JWK>(Type.Object({ kty: Type.String() }));
/** `verify_signing_keys.public_jwk`, and the private key sealed in `private_jwk_sealed`. */
const PUBLIC_JWK = jsonColumn('verify_signing_keys', 'public_jwk', Jwk);
const PRIVATE_JWK = jsonColumn('verify_signing_keys', 'private_jwk_sealed', Jwk);

/** The secret-box purpose of a private key: bound to its row. */
const privateKeyPurpose = (kid: string) => `verify_signing_keys.private_jwk:${kid}`;

/** A key's public JWK, as `/.well-known/jwks.json` publishes it. */
export function publicJwk(row: Pick<SigningKeyRow, 'id' | 'public_jwk'>): JWK {
  return PUBLIC_JWK.decode(row.public_jwk, row.id);
}

/** A key's private JWK, unsealed. */
export function privateJwk(box: SecretBox, row: Pick<SigningKeyRow, 'id' | 'private_jwk_sealed'>): JWK {
  return PRIVATE_JWK.decode(box.open(row.private_jwk_sealed, privateKeyPurpose(row.id)), row.id);
}

/** The `public_jwk` and `private_jwk_sealed` columns of key `kid`. */
export function encodeKeyPair(
  box: SecretBox,
  kid: string,
  keys: { publicJwk: JWK; privateJwk: JWK },
): Pick<SigningKeyRow, 'public_jwk' | 'private_jwk_sealed'> {
  return {
    public_jwk: PUBLIC_JWK.encode(keys.publicJwk),
    private_jwk_sealed: box.seal(PRIVATE_JWK.encode(keys.privateJwk), privateKeyPurpose(kid)),
  };
}

export async function findActiveSigningKey(db: Db): Promise<SigningKeyRow | undefined> {
  return db.selectFrom('verify_signing_keys').selectAll().where('status', '=', 'active').executeTakeFirst();
}

/** Every key, newest first: the active one and those kept so old receipts still verify. */
export async function listSigningKeys(db: Db): Promise<SigningKeyRow[]> {
  return db.selectFrom('verify_signing_keys').selectAll().orderBy('seq', 'desc').execute();
}

export async function insertSigningKey(db: Db, row: Insertable<SigningKeyTable>): Promise<void> {
  await db.insertInto('verify_signing_keys').values(row).execute();
}

export async function retireSigningKeys(db: Db, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('verify_signing_keys')
    .set({ status: 'retired', retired_at: now })
    .where('status', '=', 'active')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
