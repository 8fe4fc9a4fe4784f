import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Mode } from '../platform/scope.js';

export interface AccountHolderTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  mode: Mode;
  email: string;
  name: string | null;
  external_ref: string | null;
  /** JSON object of string values, stored as text so both engines treat it alike. */
  metadata: string;
  created_at: number;
  updated_at: number;
}

export type AccountHolderRow = Selectable<AccountHolderTable>;
export type NewAccountHolderRow = Insertable<AccountHolderTable>;
export type AccountHolderUpdate = Updateable<AccountHolderTable>;

export interface AccountHoldersTables {
  account_holders: AccountHolderTable;
}

declare module '../platform/db/schema.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- joins these tables to the service's Database
  interface Database extends AccountHoldersTables {}
}
