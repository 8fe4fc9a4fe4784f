import { Type } from '@sinclair/typebox';
import type { SecretBox } from '../platform/crypto/secret-box.js';
import { jsonColumn } from '../platform/db/json-column.js';
import { OAuthTokens } from './oauth/oauth-client.js';
import type { AccountRow } from './connect.table.js';

/**
 * The provider connection sealed in `connect_accounts.connection_sealed`: each provider's own
 * fields (credentials, an address), with the two that code outside the provider reads typed — an
 * OAuth sign-in's tokens and a wallet's descriptor. An erased connection is `{}`.
 */
export const StoredConnection = Type.Object({
  oauth: Type.Optional(OAuthTokens),
  descriptor: Type.Optional(Type.String()),
});
const CONNECTION = jsonColumn('connect_accounts', 'connection_sealed', StoredConnection);
export type StoredConnection = Record<string, unknown> & ReturnType<typeof CONNECTION.decode>;

/**
 * What an account's sealed provider connection is bound to (SecretBox purpose). This file is the
 * one place that seals and opens a connection.
 */
export function connectionPurpose(accountId: string): string {
  return `connect_account.connection:${accountId}`;
}

/** The `connection_sealed` column of an account for this connection. */
export function sealConnection(box: SecretBox, accountId: string, connection: StoredConnection): string {
  return box.seal(CONNECTION.encode(connection), connectionPurpose(accountId));
}

/** An account's provider connection, unsealed and checked against its schema. */
export function openConnection(box: SecretBox, account: Pick<AccountRow, 'id' | 'connection_sealed'>): StoredConnection {
  return CONNECTION.decode(box.open(account.connection_sealed, connectionPurpose(account.id)), account.id);
}

/** The sealed connection of an account whose credentials are erased. */
export function erasedConnection(box: SecretBox, accountId: string): string {
  return sealConnection(box, accountId, {});
}
