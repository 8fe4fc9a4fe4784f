import { createHash } from 'node:crypto';
import type { Exchange } from 'ccxt';
import type { Ccxt } from './ccxt-errors.js';
import type { AccountLimits } from './exchanges/row.js';

type Throttler = InstanceType<Ccxt['functions']['Throttler']>;

/**
 * Our window is this much longer than the exchange's minute: a call we release as the window
 * frees reaches the exchange a little later than the one it replaces may have, and the exchange
 * counts by arrival.
 */
const MARGIN = 1.05;

/**
 * The per-account limiters of one exchange (see AccountLimits): one rolling one-minute window for
 * each account and endpoint, kept while in use. `pace` makes an instance's calls to those
 * endpoints wait in the account's window; the rest of its calls are untouched.
 *
 * The minute is the exchange's minute at ccxt's own pace: an instance whose `rateLimit` is lifted
 * (tests, the benchmark) has its minute shortened in proportion, as ccxt's shared limiter is.
 */
export function accountLimiters(limits: AccountLimits) {
  const windows = new Map<string, Throttler>();

  /** The window of one account's endpoint; idle windows are let go (an account's key is not kept longer than needed). */
  function windowFor(ccxt: Ccxt, key: string, minuteMs: number): Throttler {
    const now = Date.now();
    for (const [other, throttler] of windows) {
      const last = throttler.timestamps.at(-1)?.timestamp ?? 0;
      if (other !== key && !throttler.running && now - last > minuteMs * MARGIN) windows.delete(other);
    }
    let throttler = windows.get(key);
    if (!throttler) {
      throttler = new ccxt.functions.Throttler({ algorithm: 'rollingWindow', windowSize: minuteMs * MARGIN, rateLimit: 1 });
      // ccxt derives the window's capacity from its size and pace; ours is the exchange's figure.
      throttler.config.maxWeight = limits.perMinute;
      windows.set(key, throttler);
    }
    return throttler;
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
    pace(exchange: Exchange, ccxt: Ccxt, account: string, defaultRateLimit: number): void {
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
        if (call) await windowFor(ccxt, `${id}:${call.path}`, minuteMs).throttle(call.weight);
      };
    },
  };
}
