import pg from 'pg';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterPostgres,
  type RateLimiterAbstract,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Config } from '../config/config.js';
import type { DbCapabilities } from '../db/database.js';

/** One rate-limit policy over fixed windows. */
export interface Limiter {
  /** Requests allowed per window, shown as RateLimit-Limit. */
  readonly limit: number;
  /**
   * Counts one request for `key`. Resolves when allowed; rejects with a RateLimiterRes when over
   * the limit (its msBeforeNext says when the next request is allowed), or with an Error when the
   * store failed.
   */
  consume(key: string): Promise<RateLimiterRes>;
}

export interface RateLimitStore {
  /** Per client and mode: RATE_LIMIT_PER_SECOND, plus RATE_LIMIT_BURST per 10 s once a second's allowance is used. */
  client: Limiter;
  /** Per polled object (routes with `config.pollLimit`, such as a session's status): 2 requests per second. */
  poll: Limiter;
  /** Per client IP address on the public routes anyone may call (`config.ipRateLimit`): 60 requests a minute. */
  perIp: Limiter;
  close(): Promise<void>;
}

/** The connect spec's polling rule: at most two status requests per second per session. */
const POLLS_PER_SECOND = 2;
/** Requests a client IP address may make to the public routes per minute (an abuse guard, not a quota). */
const PUBLIC_REQUESTS_PER_MINUTE = 60;
/** The window over which RATE_LIMIT_BURST extra requests may be spent. */
const BURST_WINDOW_SECONDS = 10;
/** The rate-limiter-flexible table, created by migration 0006 (UNLOGGED). */
const TABLE = 'rate_limits';
/** A small pool of its own: a rate check never queues behind slow queries of the main pool. */
const POOL_SIZE = 4;
/** A database that does not answer in this time is treated as failed: the per-process fallback decides. */
const QUERY_TIMEOUT_MS = 1_000;

interface Policy {
  keyPrefix: string;
  points: number;
  duration: number;
}

/**
 * The rate limiters of one server process. Where the database has a single writer (SQLite: one
 * process serves it) counters live in memory. Otherwise (PostgreSQL: N processes serve one database)
 * they live in the database, so a client's limit holds across processes; each of those limiters
 * - answers from memory, without a query, once a key has used up its window in this process
 *   (`inMemoryBlockOnConsumed`), so a client over its limit costs the database nothing;
 * - falls back to a per-process memory limiter of the same policy when the database fails or is
 *   slower than 1 s (`insuranceLimiter`), so rate limiting never takes the API down with it.
 */
export function createRateLimitStore(
  config: Pick<Config, 'rateLimit' | 'database'>,
  capabilities: Pick<DbCapabilities, 'singleWriter'>,
): RateLimitStore {
  const { perSecond, burst } = config.rateLimit;
  const client: Policy = { keyPrefix: 'client', points: perSecond, duration: 1 };
  const clientBurst: Policy = { keyPrefix: 'client_burst', points: burst, duration: BURST_WINDOW_SECONDS };
  const poll: Policy = { keyPrefix: 'poll', points: POLLS_PER_SECOND, duration: 1 };
  const perIp: Policy = { keyPrefix: 'ip', points: PUBLIC_REQUESTS_PER_MINUTE, duration: 60 };

  const { limiter, close } = capabilities.singleWriter ? memoryLimiters() : sharedLimiters(config.database);
  return {
    client: withLimit(
      perSecond,
      burst > 0 ? new BurstyRateLimiter(limiter(client, true), limiter(clientBurst, false)) : limiter(client, true),
    ),
    poll: withLimit(poll.points, limiter(poll, false)),
    perIp: withLimit(perIp.points, limiter(perIp, false)),
    close,
  };
}

/** Makes the limiter of one policy; `clearExpired` is set on one limiter per store. */
type LimiterFactory = (policy: Policy, clearExpired: boolean) => RateLimiterAbstract;

function memoryLimiters(): { limiter: LimiterFactory; close(): Promise<void> } {
  return { limiter: (policy) => new RateLimiterMemory(policy), close: async () => undefined };
}

function sharedLimiters(database: Config['database']): { limiter: LimiterFactory; close(): Promise<void> } {
  if (database.engine !== 'postgres') throw new Error('shared rate limits need a PostgreSQL database');
  const pool = new pg.Pool({
    connectionString: database.url,
    max: POOL_SIZE,
    connectionTimeoutMillis: QUERY_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const limiter: LimiterFactory = (policy, clearExpired) =>
    new RateLimiterPostgres({
      ...policy,
      storeClient: pool,
      storeType: 'pool',
      tableName: TABLE,
      tableCreated: true,
      // One limiter is enough to delete rows expired over an hour ago (every 5 minutes).
      clearExpiredByTimeout: clearExpired,
      inMemoryBlockOnConsumed: policy.points,
      insuranceLimiter: new RateLimiterMemory(policy),
    });
  return { limiter, close: () => pool.end() };
}

function withLimit(limit: number, limiter: { consume(key: string): Promise<RateLimiterRes> }): Limiter {
  return { limit, consume: (key) => limiter.consume(key) };
}
