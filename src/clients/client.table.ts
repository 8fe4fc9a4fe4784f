import type { Generated, Insertable, Selectable } from 'kysely';
import type { Mode } from '../platform/scope.js';

export interface ClientTable {
  seq: Generated<number>;
  id: string;
  name: string;
  created_at: number;
}

export interface ApiKeyTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  mode: Mode;
  /** SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  /** Enough of the key for a person to recognise it, e.g. `sk_test_…a1B2`. */
  key_hint: string;
  created_at: number;
  /** Set when the key is rolled with a grace period: it keeps working until then. */
  expires_at: number | null;
  revoked_at: number | null;
}

export type ClientRow = Selectable<ClientTable>;
export type NewClientRow = Insertable<ClientTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type NewApiKeyRow = Insertable<ApiKeyTable>;

export interface ClientsTables {
  clients: ClientTable;
  api_keys: ApiKeyTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- joins these tables to the service's Database
  interface Database extends ClientsTables {}
}
