import ccxt from 'ccxt';
import type { ExchangeOverrides } from '../../src/connect/providers/ccxt-provider.js';
import { trustingFetch } from './self-signed-tls.js';

/** Every URL of a ccxt `urls.api` tree with its origin replaced by `origin` (paths such as `/api/v3` kept). */
function rebase(tree: unknown, origin: string): unknown {
  if (typeof tree === 'string') return tree.replace(/^https?:\/\/[^/]+/, origin);
  if (typeof tree === 'object' && tree !== null)
    return Object.fromEntries(Object.entries(tree).map(([key, value]) => [key, rebase(value, origin)]));
  return tree;
}

/**
 * The ccxt options that send one exchange's every API call to a local fake at `origin`
 * (`http://127.0.0.1:<port>`), with ccxt itself unchanged, and lift ccxt's client-side pacing so
 * tests do not wait between calls: ccxt waits `rateLimit` ms times a call's cost, and some calls
 * cost 20 (Binance's Convert history: weight 3,000), so 0.01 ms, not 1. A fake speaking HTTPS
 * (`https://…`: its certificate is the test one) is reached through a fetch that trusts it.
 */
export function pointExchangeAt(id: string, origin: string): ExchangeOverrides {
  const Class = (ccxt as unknown as Record<string, new () => { urls: { api: unknown } }>)[id];
  if (!Class) throw new Error(`ccxt has no exchange ${id}`);
  return {
    urls: { api: rebase(new Class().urls.api, origin) },
    rateLimit: 0.01,
    ...(origin.startsWith('https:') ? { fetchImplementation: trustingFetch } : {}),
  };
}
