import type { SecretBox } from '../platform/crypto/secret-box.js';
import type { AccountRow } from './connect.table.js';

/**
 * An account's provider connection (exchange credentials, OAuth tokens, a wallet's descriptor) as
 * stored: JSON sealed with the secret box, bound to the account. The one place that seals and
 * opens it.
 */
export type StoredConnection = Record<string, unknown>;

/** What an account's sealed provider connection is bound to (SecretBox purpose). */
export function connectionPurpose(accountId: string): string {
  return `connect_account.connection:${accountId}`;
}

/** The `connection_sealed` column of an account for this connection. */
export function sealConnection(box: SecretBox, accountId: string, connection: StoredConnection): string {
  return box.seal(JSON.stringify(connection), connectionPurpose(accountId));
}

/** The connection an account stores. */
export function openConnection(box: SecretBox, account: Pick<AccountRow, 'id' | 'connection_sealed'>): StoredConnection {
  return JSON.parse(box.open(account.connection_sealed, connectionPurpose(account.id))) as StoredConnection;
}

/** The sealed connection of an account whose credentials are erased. */
export function erasedConnection(box: SecretBox, accountId: string): string {
  return sealConnection(box, accountId, {});
}
