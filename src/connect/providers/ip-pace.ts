import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../platform/db/database.js';

/** ccxt's throttler as `Exchange.throttle` uses it: resolves when a call of `cost` may be sent. */
export interface Pace {
  throttle(cost?: number): Promise<void>;
}

/** Where every process takes its turns of an exchange's pace. */
export interface PaceLog {
  /** Takes the next `spanMs` of `key`'s pace; resolves how many ms until that span starts (0: now). */
  take(key: string, spanMs: number): Promise<number>;
}

/**
 * The paces in the service's database (table `connect_exchange_paces`): one row per exchange, the
 * time its next call may start, moved on by each call in one upsert, so spans are back to back
 * across every `serve` and `worker` process without a lock held between statements.
 */
export function paceLog(db: Db): PaceLog {
  return {
    async take(key, spanMs) {
      const now = Date.now();
      // Whole milliseconds: PostgreSQL reads the bound value as a bigint.
      const span = Math.ceil(spanMs);
      const { next_at } = await db
        .insertInto('connect_exchange_paces')
        .values({ key, next_at: now + span })
        .onConflict((conflict) =>
          conflict.column('key').doUpdateSet({
            next_at: sql<number>`case when connect_exchange_paces.next_at > ${now} then connect_exchange_paces.next_at else ${now} end + ${span}`,
          }),
        )
        .returning('next_at')
        .executeTakeFirstOrThrow();
      return Math.max(0, Number(next_at) - span - now);
    },
  };
}

/** A process takes the pace this long at a time at least, in whole calls, and spends it itself. */
const LEASE_MS = 10;

/**
 * ccxt's pace for one exchange (`rateLimit` ms per unit of cost: calls spaced by their cost, no
 * burst, as ccxt's own throttler does) held by every process on the database: the exchange counts
 * calls per IP address, and every `serve` and `worker` of a deployment calls from the same
 * address. ccxt's throttler paces one instance, or (shared, ccxt-instance.ts) one process; N
 * processes would each spend the whole pace.
 *
 * At an exchange's pace (Binance: 50 ms a unit) each call takes its own span of the log. So that a
 * pace lifted by tests (0.01 ms) does not cost a database statement a call, a process takes at
 * least `LEASE_MS` of the pace at a time, as whole calls, and lets what it did not spend within
 * that long lapse.
 */
export function sharedPace(exchangeId: string, rateLimitMs: number, log: PaceLog): Pace {
  const key = `ip:${exchangeId}`;
  let lease = { left: 0, until: 0 };
  // One waiter at a time, in call order, as ccxt's throttler queues them.
  let queue: Promise<unknown> = Promise.resolve();

  async function take(cost: number): Promise<void> {
    if (!(cost > 0)) return; // a call ccxt costs nothing
    if (lease.left < cost || Date.now() >= lease.until) {
      const perCall = cost * rateLimitMs;
      const calls = Math.max(1, Math.floor(LEASE_MS / perCall));
      const wait = await log.take(key, calls * perCall);
      if (wait > 0) await sleep(wait);
      lease = { left: calls * cost, until: Date.now() + Math.max(LEASE_MS, calls * perCall) };
    }
    lease.left -= cost;
  }

  return {
    throttle(cost = 1) {
      const turn = queue.then(() => take(cost));
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}
