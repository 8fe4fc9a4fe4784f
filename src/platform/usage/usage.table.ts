import type { Generated, Insertable, Selectable } from 'kysely';
import type { Mode } from '../scope.js';

/** One billable use of the service by a client in a mode: what was used, for which object, once. */
export interface UsageRecordTable {
  seq: Generated<number>;
  /** `ur_…` */
  id: string;
  client_id: string;
  mode: Mode;
  /** A type of `USAGE_TYPES`. */
  type: string;
  /** The object the use was for (`stmt_…`): at most one record per type and object (a unique index). */
  resource_id: string;
  quantity: number;
  created_at: number;
}

export type UsageRecordRow = Selectable<UsageRecordTable>;
export type NewUsageRecordRow = Insertable<UsageRecordTable>;

export interface UsageTables {
  usage_records: UsageRecordTable;
}
