import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import type { Exchange } from 'ccxt';
import type { ExchangeCallLog } from './exchange-call-log.js';
import type { AccountLimits } from './exchanges/row.js';

/**
 * Our window is this much longer than the exchange's minute: a call we release as the window
 * frees reaches the exchange a little later than the one it replaces may have, and the exchange
 * counts by arrival.
 */
const MARGIN = 1.05;

/**
 * The per-account limits of one exchange (see AccountLimits): one rolling one-minute window for
 * each account and endpoint, kept in `calls` (the database) so that every process spends the same
 * minute. `pace` makes an instance's calls to those endpoints wait in the account's window; the
 * rest of its calls are untouched.
 *
 * The minute is the exchange's minute at ccxt's own pace: an instance whose `rateLimit` is lifted
 * (tests, the benchmark) has its minute shortened in proportion, as ccxt's shared limiter is.
 */
export function accountLimiters(exchangeId: string, limits: AccountLimits, calls: ExchangeCallLog) {
  /** Waits until the account's window for this endpoint has room for `weight`, and counts it there. */
  async function spend(key: string, weight: number, windowMs: number): Promise<void> {
    for (;;) {
      const wait = await calls.reserve(key, weight, limits.perMinute, windowMs);
      if (wait === 0) return;
      await sleep(wait);
    }
  }

  return {
    /**
     * Paces `exchange`'s calls to the account-weighted endpoints (`account`: its key) in the
     * account's windows as well. ccxt's fetch2 asks the call's cost and, at once, waits in the
     * shared limiter; after that it signs and sends. So the cost asked for names the endpoint
     * (and is its IP weight), and the wait takes the shared limiter first, then the account's
     * window: the window counts the call when it is sent, and Binance's signed timestamp is
     * taken after both waits (a call signed before a minute's wait would be refused as stale).
     */
    pace(exchange: Exchange, account: string, defaultRateLimit: number): void {
      const id = createHash('sha256').update(account).digest('hex');
      const minuteMs = (60_000 * (exchange.rateLimit ?? defaultRateLimit)) / defaultRateLimit;
      const cost = exchange.calculateRateLimiterCost.bind(exchange);
      const throttle = exchange.throttle.bind(exchange);
      let next: { path: string; weight: number } | undefined;
      exchange.calculateRateLimiterCost = (api, method, path: string, params, config) => {
        if (!Object.hasOwn(limits.weights, path)) return cost(api, method, path, params, config);
        next = { path, weight: limits.weights[path] as number };
        return limits.sharedCost;
      };
      exchange.throttle = async (...args: Parameters<Exchange['throttle']>) => {
        const call = next;
        next = undefined;
        await throttle(...args);
        if (call) await spend(`${exchangeId}:${id}:${call.path}`, call.weight, minuteMs * MARGIN);
      };
    },
  };
}
