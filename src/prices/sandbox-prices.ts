import { formatUnits } from '../connect/amounts.js';
import { HOUR, isFinal, type Candle, type CandleSource } from './candle-source.js';
import { FIAT_CURRENCIES, SUPPORTED_CURRENCIES, type FiatCurrency } from './currencies.js';

/**
 * Test mode's prices: a deterministic series, the same on every server and every run, computed
 * with whole numbers only (so anyone can recompute a figure by hand; docs/sandbox.md, "Prices").
 *
 * For the candle opening at hour index h (its open time / 3600):
 *
 *   usd_cents(h) = 3,000,000 + ⌊4,000,000 · tri(h, 35,064) / 35,064⌋   (a four-year swing of 40,000 USD)
 *                            + ⌊  300,000 · tri(h, 168) / 168⌋         (a weekly one of 3,000 USD)
 *                            + ⌊   50,000 · tri(h, 24) / 24⌋           (a daily one of 500 USD)
 *   tri(h, p)    = |2 · (h mod p) − p|                                   (a triangle wave from p down to 0 and back)
 *
 * so BTC/USD moves between 30,000 and 73,500. Each other currency is USD at a fixed rate, rounded
 * down to its minor unit: minor(h) = ⌊usd_cents(h) · num · 10^exponent / (den · 100)⌋.
 */
const RATES: Record<FiatCurrency, { num: number; den: number }> = {
  USD: { num: 1, den: 1 },
  EUR: { num: 92, den: 100 },
  GBP: { num: 79, den: 100 },
  CHF: { num: 88, den: 100 },
  CAD: { num: 137, den: 100 },
  JPY: { num: 150, den: 1 },
};

function tri(h: number, period: number): number {
  const phase = ((h % period) + period) % period;
  return Math.abs(2 * phase - period);
}

/** The sandbox series in US cents at hour index `h` (see above). */
function usdCents(h: number): number {
  return (
    3_000_000 +
    Math.floor((4_000_000 * tri(h, 35_064)) / 35_064) +
    Math.floor((300_000 * tri(h, 168)) / 168) +
    Math.floor((50_000 * tri(h, 24)) / 24)
  );
}

/** The sandbox close of the hourly candle opening at `open` (Unix seconds, on the hour), in `currency` per BTC. */
export function sandboxClose(currency: FiatCurrency, open: number): string {
  const { num, den } = RATES[currency];
  const exponent = FIAT_CURRENCIES[currency];
  // Below 2^53 throughout: at most 7,350,000 · 150 · 100.
  const minor = Math.floor((usdCents(open / HOUR) * num * 10 ** exponent) / (den * 100));
  return formatUnits(BigInt(minor), exponent);
}

/** The market symbol of each currency in the sandbox. */
const MARKETS = Object.fromEntries(SUPPORTED_CURRENCIES.map((currency) => [currency, `BTC/${currency}`])) as Record<FiatCurrency, string>;

/**
 * The sandbox as a candle source: every finished hour has a candle, and it answers any span in one
 * call (no network). Cached like any other source, so test mode runs the path live mode runs.
 */
export const sandboxCandles: CandleSource = {
  id: 'sandbox',
  name: 'Sandbox price series',
  markets: MARKETS,
  pageHours: 100_000,
  page(market, from, to, now) {
    const currency = market.slice('BTC/'.length) as FiatCurrency;
    const candles: Candle[] = [];
    let last = from - HOUR;
    for (let open = from; open <= to && isFinal(open, now); open += HOUR) {
      candles.push({ open, close: sandboxClose(currency, open) });
      last = open;
    }
    return Promise.resolve({ candles, covered: last < from ? undefined : { from, to: last } });
  },
};
