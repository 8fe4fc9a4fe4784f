import { setTimeout as sleep } from 'node:timers/promises';
import { unixSeconds } from '../platform/clock.js';
import type { AppContext } from '../platform/context.js';
import type { Mode } from '../platform/scope.js';
import { findCandles, insertCandles, type CandleSeries } from './candle.repository.js';
import { FINAL_AFTER, HOUR, INTERVAL, isFinal, PriceSourceError, type CandlePage } from './candle-source.js';
import { isFiatCurrency, SUPPORTED_CURRENCIES, type FiatCurrency } from './currencies.js';
import type { PriceMarket } from './price-sources.js';

type PriceDeps = Pick<AppContext, 'db' | 'clock' | 'prices' | 'priceRetryDelaysMs'>;

/** How many hours back a price may come from when the hour of the moment had no trade. */
export const LOOKBACK_HOURS = 24;

/** Waits between attempts when a source does not respond (three attempts in all), unless a test sets its own. */
const RETRY_DELAYS_MS = [1_000, 4_000];

/** Which price a moment gets, in the words the document prints. */
export const PRICE_RULE =
  'The close of the hourly candle (UTC) that contains the moment: the candle from one full hour to the next, ' +
  'a moment exactly on the hour taking the candle that closes then. If the market had no trade in that hour, ' +
  `the close of the latest earlier hour that had one, at most ${LOOKBACK_HOURS} hours earlier.`;

/** What a document says about where its prices come from, so anyone can look every figure up again. */
export interface PriceSourceDescription {
  /** The source by name: "Bitfinex", "Kraken", "Sandbox price series". */
  name: string;
  /** ccxt's exchange id (`bitfinex`, `kraken`), or `sandbox` in test mode. */
  exchange: string;
  /** The market, ccxt's unified symbol: `BTC/EUR`. */
  market: string;
  currency: FiatCurrency;
  /** The candle interval: `1h`. */
  interval: typeof INTERVAL;
  /** Which price of which candle a moment gets (PRICE_RULE). */
  rule: string;
}

/** The price of one moment. */
export interface PricedMoment {
  /** The moment asked about (Unix seconds). */
  at: number;
  /** The currency per BTC, decimal text as the source gave it (canonical form). */
  price: string;
  /** The open time (Unix seconds, UTC) of the candle whose close it is; that candle closes an hour later. */
  candleOpen: number;
}

export type PriceFailureCode =
  /** Not a currency we value in, or the source lists no market for it. */
  | 'unsupported_currency'
  /** A moment whose hour has not closed long enough ago (FINAL_AFTER): ask again later. */
  | 'not_final'
  /** The source has no price for a moment: its history does not reach back that far, or the market had no trade in the hours before. */
  | 'no_data'
  /** The source is down, in maintenance or did not respond (after retries). */
  | 'source_unavailable'
  /** The source is limiting how often we may ask. */
  | 'source_rate_limited'
  /** The source answered something we could not use. */
  | 'source_error';

export type PriceLookup =
  | { ok: true; source: PriceSourceDescription; prices: PricedMoment[] }
  | {
      ok: false;
      code: PriceFailureCode;
      /** Plain words for the document ("Bitfinex is not responding (asked 3 times)."). */
      reason: string;
      /** Where waiting helps (a rate limit, an outage, an hour not yet final): about how long. */
      retryAfterSeconds?: number;
      /** The source that could not answer, when there is one. */
      source?: PriceSourceDescription;
    };

/** The open time of the candle whose close prices `moment` (see PRICE_RULE): the hour that ends at or after it. */
export function candleOpenOf(moment: number): number {
  return Math.ceil(moment / HOUR) * HOUR - HOUR;
}

/** Where `currency`'s prices come from in `mode`, for the document; undefined for a currency we do not value in. */
export function describePriceSource(deps: Pick<AppContext, 'prices'>, mode: Mode, currency: string): PriceSourceDescription | undefined {
  if (!isFiatCurrency(currency)) return undefined;
  const priced = deps.prices.marketFor(mode, currency);
  return priced && descriptionOf(priced, currency);
}

/**
 * The price of bitcoin in `currency` at each of `instants` (Unix seconds), in the same order, by
 * PRICE_RULE; or why there is none. All or nothing: a statement is valued whole or not at all.
 *
 * Served from the cache (docs/prices.md, "The cache") with one query for the whole span; hours the
 * cache lacks are asked of the source in as few calls as its page size allows, each stored as it
 * arrives. A source that cannot answer is an answer here (`ok: false`), never a throw; a source
 * that does not respond is asked three times in all.
 */
export async function lookUpPrices(
  deps: PriceDeps,
  input: { mode: Mode; currency: string; instants: readonly number[] },
): Promise<PriceLookup> {
  const { mode, currency, instants } = input;
  if (!isFiatCurrency(currency)) {
    return {
      ok: false,
      code: 'unsupported_currency',
      reason: `${currency} is not a currency statements are valued in (${SUPPORTED_CURRENCIES.join(', ')}).`,
    };
  }
  const priced = deps.prices.marketFor(mode, currency);
  if (!priced) return { ok: false, code: 'unsupported_currency', reason: `No price source has a BTC/${currency} market.` };
  const source = descriptionOf(priced, currency);
  for (const moment of instants) if (!Number.isSafeInteger(moment)) throw new TypeError(`not a moment in Unix seconds: ${moment}`);
  if (instants.length === 0) return { ok: true, source, prices: [] };

  const now = unixSeconds(deps.clock);
  const opens = instants.map(candleOpenOf);
  // A loop, not Math.max(...opens): a statement's moments may outnumber a call's arguments.
  let [earliest, latest] = [opens[0] as number, opens[0] as number];
  for (const open of opens) [earliest, latest] = [Math.min(earliest, open), Math.max(latest, open)];
  if (!isFinal(latest, now)) {
    return {
      ok: false,
      code: 'not_final',
      reason: `The price of the hour that closes at ${utcText(latest + HOUR)} is not final yet; prices are final ${FINAL_AFTER / 60} minutes after their hour closes.`,
      retryAfterSeconds: latest + HOUR + FINAL_AFTER - now,
      source,
    };
  }
  const series: CandleSeries = { source: priced.source.id, market: priced.market, interval: INTERVAL };
  const known = await findCandles(deps.db, series, earliest - LOOKBACK_HOURS * HOUR, latest);
  const missing = hoursToAsk(opens, known);
  if (missing.length > 0) {
    const failure = await fetchHours(deps, priced, series, missing, now, known);
    if (failure) return { ...failure, source };
  }

  const prices: PricedMoment[] = [];
  for (const [index, at] of instants.entries()) {
    const found = priceAt(known, opens[index] as number);
    if ('reason' in found) return { ok: false, code: 'no_data', reason: `${priced.source.name} ${found.reason(priced.market)}`, source };
    prices.push({ at, ...found });
  }
  return { ok: true, source, prices };
}

function descriptionOf(priced: PriceMarket, currency: FiatCurrency): PriceSourceDescription {
  return { name: priced.source.name, exchange: priced.source.id, market: priced.market, currency, interval: INTERVAL, rule: PRICE_RULE };
}

/** The hours not in the cache that pricing needs: each candle asked for, and the ones before a cached hour without trade. */
function hoursToAsk(opens: readonly number[], known: ReadonlyMap<number, string | null>): number[] {
  const wanted = new Set<number>();
  for (const open of new Set(opens)) {
    if (!known.has(open)) wanted.add(open);
    else if (known.get(open) === null)
      for (let back = 1; back <= LOOKBACK_HOURS; back++) if (!known.has(open - back * HOUR)) wanted.add(open - back * HOUR);
  }
  return [...wanted].sort((a, b) => a - b);
}

/** The price at the candle opening at `open` by PRICE_RULE, or why there is none (finished by the caller with the source's name). */
function priceAt(
  known: ReadonlyMap<number, string | null>,
  open: number,
): { price: string; candleOpen: number } | { reason: (market: string) => string } {
  for (let back = 0; back <= LOOKBACK_HOURS; back++) {
    const hour = open - back * HOUR;
    const close = known.get(hour);
    if (close === undefined)
      return {
        reason: (market) =>
          `has no ${market} prices for the hour that closes at ${utcText(hour + HOUR)} (its history does not reach back that far).`,
      };
    if (close !== null) return { price: close, candleOpen: hour };
  }
  return { reason: (market) => `recorded no ${market} trade in the ${LOOKBACK_HOURS} hours before ${utcText(open + HOUR)}.` };
}

/**
 * Asks the source for the `missing` hours (ascending) and stores what it answers, adding it to
 * `known`. Each call starts LOOKBACK_HOURS before the first hour still missing, so an hour without
 * trade comes with the hours its price may come from, and ends at the last missing hour a page
 * reaches. An hour the
 * source's answer does not speak for stays unknown (no price). Returns the failure, if any.
 */
async function fetchHours(
  deps: PriceDeps,
  priced: PriceMarket,
  series: CandleSeries,
  missing: readonly number[],
  now: number,
  known: Map<number, string | null>,
): Promise<Extract<PriceLookup, { ok: false }> | undefined> {
  const lastFinal = Math.floor((now - FINAL_AFTER) / HOUR) * HOUR - HOUR;
  let next = 0;
  while (next < missing.length) {
    const from = (missing[next] as number) - LOOKBACK_HOURS * HOUR;
    // Up to the last missing hour one call can reach: no longer (a sparse statement downloads no
    // idle hours), no further (a page).
    const reach = Math.min(from + (priced.source.pageHours - 1) * HOUR, lastFinal);
    let to = missing[next] as number;
    for (let later = next + 1; later < missing.length && (missing[later] as number) <= reach; later++) to = missing[later] as number;
    const page = await withRetries(deps, () => priced.source.page(priced.market, from, to, now));
    if ('code' in page) return page;
    const hours = answeredHours(page);
    await insertCandles(deps.db, series, hours, now);
    for (const hour of hours) known.set(hour.open, hour.close);
    // Every missing hour up to where this answer reached is now known, or out of the source's reach.
    const reached = Math.max(page.covered?.to ?? to, missing[next] as number);
    while (next < missing.length && (missing[next] as number) <= reached) next++;
  }
  return undefined;
}

/** The hours an answer speaks for: each covered hour with its close, or null where it had no candle. */
function answeredHours(page: CandlePage): { open: number; close: string | null }[] {
  const closes = new Map(page.candles.map((candle) => [candle.open, candle.close]));
  if (!page.covered) return [];
  const hours: { open: number; close: string | null }[] = [];
  for (let open = page.covered.from; open <= page.covered.to; open += HOUR) hours.push({ open, close: closes.get(open) ?? null });
  return hours;
}

/** Runs one source call, again after a pause while the source does not respond; its failure in plain words. */
async function withRetries(deps: PriceDeps, call: () => Promise<CandlePage>): Promise<CandlePage | Extract<PriceLookup, { ok: false }>> {
  const delays = deps.priceRetryDelaysMs ?? RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PriceSourceError)) throw error;
      const delay = delays[attempt];
      if (error.failure === 'unavailable' && delay !== undefined) {
        await sleep(delay);
        continue;
      }
      const wait = error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds };
      switch (error.failure) {
        case 'unavailable':
          return {
            ok: false,
            code: 'source_unavailable',
            reason: `${error.message.replace(/\.$/, '')} (asked ${attempt + 1} times).`,
            ...wait,
          };
        case 'maintenance':
          return { ok: false, code: 'source_unavailable', reason: error.message, ...wait };
        case 'rate_limited':
          return { ok: false, code: 'source_rate_limited', reason: error.message, ...wait };
        case 'unlisted':
          return { ok: false, code: 'unsupported_currency', reason: error.message };
        case 'other':
          return { ok: false, code: 'source_error', reason: error.message };
      }
    }
  }
}

/** "2025-10-26 01:00 UTC". */
function utcText(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
