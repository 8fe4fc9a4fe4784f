import { sql } from 'kysely';
import type { Db, DbCapabilities } from '../../platform/db/database.js';

/** Where every process records the calls an exchange counts per account (account-limits.ts). */
export interface ExchangeCallLog {
  /**
   * Records a call of `weight` under `key` if the calls logged under it in the last `windowMs`
   * leave room for it within `limit`, and resolves 0; otherwise records nothing and resolves how
   * many milliseconds until enough of them have left the window.
   */
  reserve(key: string, weight: number, limit: number, windowMs: number): Promise<number>;
}

/**
 * The log in the service's database, so that the account's minute holds across every `serve` and
 * `worker` process (an in-process window let each process spend the whole minute). A sliding log,
 * not fixed windows: the exchange counts calls by arrival over a rolling minute, and a fixed window
 * would let twice the limit through across its edge.
 *
 * One reservation at a time per key: on PostgreSQL under an advisory lock for the transaction; on
 * SQLite the transaction's first statement is a write (dropping the key's expired calls), which
 * takes the file's write lock before the calls are read.
 */
export function exchangeCallLog(db: Db, capabilities: Pick<DbCapabilities, 'supportsAdvisoryLocks'>): ExchangeCallLog {
  return {
    reserve: (key, weight, limit, windowMs) =>
      db.transaction().execute(async (trx) => {
        if (capabilities.supportsAdvisoryLocks) await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
        const now = Date.now();
        // Whole milliseconds: PostgreSQL reads the bound value as a bigint.
        await trx
          .deleteFrom('connect_exchange_calls')
          .where('key', '=', key)
          .where('at', '<=', Math.floor(now - windowMs))
          .execute();
        const calls = await trx
          .selectFrom('connect_exchange_calls')
          .select(['at', 'weight'])
          .where('key', '=', key)
          .orderBy('at')
          .execute();
        let used = calls.reduce((sum, call) => sum + call.weight, 0);
        if (used + weight <= limit) {
          await trx.insertInto('connect_exchange_calls').values({ key, at: now, weight }).execute();
          return 0;
        }
        // The oldest calls leave the window first: wait until enough of them have.
        for (const call of calls) {
          used -= call.weight;
          if (used + weight <= limit) return Math.max(1, Number(call.at) + windowMs - now);
        }
        throw new Error(`a call of weight ${weight} can never fit in a limit of ${limit}`);
      }),
  };
}
