import type { Exchange, MarketInterface, Trade } from 'ccxt';
import { apiMethod } from '../ccxt-api.js';
import { fromConversion, fromDust, fromTrade, fromTransfer, type DustConversion } from '../ccxt-records.js';
import { DAY_MS, type HistorySource } from '../exchanges/row.js';
import type { ProviderTransaction } from '../provider.js';
import { encodeCursor } from './cursor.js';
import { byHalves, cursorOf, Newest, nextSince, type TimeRange, type WalkPages } from './walk.js';

type TransferPaging = NonNullable<Extract<HistorySource, { kind: 'transfers' }>['paging']>;

/**
 * Deposits and withdrawals (range by range where the exchange answers for a bounded range only),
 * then, where the row says how, trades market by market. Each range and each page of trades leaves
 * a checkpoint (`walk`: what is still to read), so a first walk — 40 ranges and hundreds of markets
 * on Binance, at its pace — goes on across jobs.
 */
export const transferPages: WalkPages<'transfers'> = async function* (exchange, source, walk) {
  const { name, held } = walk;
  const cursor = cursorOf('transfers', walk);
  const { since } = cursor;
  const progress = cursor.walk;
  const newest = new Newest(progress?.top);
  const assets = new Set(cursor.assets);
  const trades = { ...cursor.trades };
  const checked = new Set(progress?.checked);
  let converted = cursor.converted === true;
  const known = () => ({
    ...(source.trades ? { assets: [...assets].sort(), trades } : {}),
    ...(converted ? { converted: true as const } : {}),
  });
  const checkpoint = (still: { transfersFrom?: number; convertsFrom?: number }) =>
    encodeCursor({
      kind: 'transfers',
      ...(since === undefined ? {} : { since }),
      ...known(),
      walk: { ...still, checked: [...checked].sort(), ...(newest.value === undefined ? {} : { top: newest.value }) },
    });
  // Only transfers move the cursor's time: a deposit still pending must be read again until it
  // completes, however many trades come after it.
  const seen = (transactions: ProviderTransaction[], moving: 'transfers' | 'trades') => {
    for (const tx of transactions) assets.add(tx.asset);
    return moving === 'transfers' ? newest.saw(transactions) : transactions;
  };

  const window = source.window;
  const resumeFrom = progress ? progress.transfersFrom : (since ?? window?.earliest);
  if (!window) {
    if (!progress)
      for await (const page of listedTransfers(exchange, name, since, source.paging)) yield { transactions: seen(page, 'transfers') };
  } else if (resumeFrom !== undefined) {
    // Range by range up to now: each call covers `days` from its start (ccxt sets the end).
    const span = window.days * DAY_MS;
    for (let from = Math.max(resumeFrom, window.earliest); from < exchange.milliseconds(); from += span) {
      for await (const page of listedTransfers(exchange, name, from, source.paging)) yield { transactions: seen(page, 'transfers') };
      yield { transactions: [], checkpoint: checkpoint({ transfersFrom: from + span }) };
    }
  }
  // The transfers are done: the checkpoints below say so by carrying no `transfersFrom`.

  // Conversions (Binance Convert and its dust log), range by range like the transfers. Their
  // checkpoints carry `convertsFrom`; every cursor after them says `converted`. A cursor without
  // it predates them: they are read from the beginning once.
  const conversions = source.conversions;
  const inTrades = progress !== undefined && progress.transfersFrom === undefined;
  const convertsFrom =
    progress?.convertsFrom ?? (!converted ? conversions?.earliest : inTrades ? undefined : (since ?? conversions?.earliest));
  if (conversions && convertsFrom !== undefined) {
    const convert = (r: TimeRange) => exchange.fetchConvertTradeHistory(undefined, r.from, conversions.pageSize, { until: r.until });
    const dust = conversions.dust && { ...conversions.dust, read: dustLog(exchange, name, conversions.dust.method) };
    const span = conversions.days * DAY_MS;
    for (let from = Math.max(convertsFrom, conversions.earliest); from < exchange.milliseconds(); from += span) {
      const range = { from, until: Math.min(from + span, exchange.milliseconds()) };
      for await (const page of byHalves(range, conversions.pageSize, convert, `${name}'s Convert history`))
        yield {
          transactions: seen(
            page.flatMap((c) => fromConversion(c, name)),
            'transfers',
          ),
        };
      if (dust && range.until >= dust.earliest) {
        for await (const page of byHalves(
          { from: Math.max(range.from, dust.earliest), until: range.until },
          dust.max,
          dust.read,
          `${name}'s dust log`,
        )) {
          yield {
            transactions: seen(
              page.flatMap((c) => fromDust(c, name)),
              'transfers',
            ),
          };
        }
      }
      yield { transactions: [], checkpoint: checkpoint({ convertsFrom: from + span }) };
    }
  }
  if (conversions) converted = true;

  const paging = source.trades;
  if (paging) {
    // Every trade spends an asset the account had: held now, held at an earlier refresh, moved
    // in or out, or got by another trade. So the markets of those assets, widened by each trade
    // found until nothing new turns up, hold every trade, without asking about all of them.
    for (const asset of await held()) assets.add(asset);
    // A trade's place in its market's order: its id, or its time (ms).
    const placeOf = (trade: Trade) =>
      paging.by === 'id'
        ? trade.id !== undefined && /^\d+$/.test(trade.id)
          ? BigInt(trade.id)
          : undefined
        : trade.timestamp === undefined
          ? undefined
          : BigInt(trade.timestamp);
    const spot = Object.values(exchange.markets as Record<string, MarketInterface>).filter((m) => m.spot && m.id !== undefined);
    for (;;) {
      const due = spot
        .filter((m) => !checked.has(m.symbol) && (assets.has(m.base) || assets.has(m.quote)))
        .sort((a, b) => a.symbol.localeCompare(b.symbol));
      if (due.length === 0) break;
      for (const market of due) {
        for (;;) {
          const last = trades[market.symbol];
          const from = last === undefined ? 0n : BigInt(last) + 1n;
          const page = await exchange.fetchMyTrades(market.symbol, undefined, paging.pageSize, {
            [paging.param]: paging.by === 'id' ? from.toString() : Number(from),
          });
          // Only trades from `from` on count: an exchange that ignored the parameter cannot make us loop.
          const fresh = page.filter((trade) => (placeOf(trade) ?? -1n) >= from && trade.id !== undefined);
          const transactions = fresh.flatMap((trade) =>
            fromTrade(trade, { id: market.id as string, base: market.base, quote: market.quote }, name),
          );
          for (const trade of fresh)
            if ((placeOf(trade) as bigint) > BigInt(trades[market.symbol] ?? -1)) trades[market.symbol] = String(placeOf(trade));
          // Pages by id end short; Gemini's time pages end empty (its documented walk).
          const done = fresh.length === 0 || (paging.by === 'id' && page.length < paging.pageSize);
          if (done) checked.add(market.symbol);
          yield { transactions: seen(transactions, 'trades'), checkpoint: checkpoint({}) };
          if (done) break;
        }
      }
    }
  }
  // With no transfer at all, the next refresh still starts from now (less the overlap), not from
  // the beginning of the exchange again.
  return encodeCursor({ kind: 'transfers', since: nextSince(exchange, since, newest), ...known() });
};

/** Reads one range of Binance's dust log through the ccxt API method `method`. */
function dustLog(exchange: Exchange, name: string, method: string): (range: TimeRange) => Promise<DustConversion[]> {
  const call = apiMethod(exchange, method);
  return async (range) => {
    const answer = (await call({ startTime: range.from, endTime: range.until })) as { userAssetDribblets?: unknown };
    if (!Array.isArray(answer?.userAssetDribblets)) throw new TypeError(`${name}'s dust log answer has no list`);
    return answer.userAssetDribblets as DustConversion[];
  };
}

/**
 * Deposits, then withdrawals (or both in one list), from `since`; page by page where the exchange
 * pages them (`paging`).
 */
async function* listedTransfers(
  exchange: Exchange,
  name: string,
  since: number | undefined,
  paging: TransferPaging | undefined,
): AsyncGenerator<ProviderTransaction[]> {
  const lists =
    exchange.has.fetchDeposits && exchange.has.fetchWithdrawals
      ? [exchange.fetchDeposits.bind(exchange), exchange.fetchWithdrawals.bind(exchange)]
      : [exchange.fetchDepositsWithdrawals.bind(exchange)];
  for (const list of lists) {
    const seen = new Set<string>();
    let offset = 0;
    let from = since ?? 0;
    for (;;) {
      const params = !paging ? {} : { [paging.param]: paging.by === 'offset' ? offset : from };
      const page = await list(undefined, since, paging?.pageSize, params);
      // A transfer without an id is kept: fromTransfer refuses it, failing the refresh.
      const fresh = page.filter((t) => t.id === undefined || !seen.has(t.id));
      for (const t of fresh) if (t.id !== undefined) seen.add(t.id);
      yield fresh.map((t) => fromTransfer(t, name));
      if (!paging || fresh.length === 0) break;
      if (paging.by === 'offset') {
        // A short page is the last.
        if (page.length < paging.pageSize) break;
        offset += paging.pageSize;
      } else {
        from = Math.max(...fresh.map((t) => t.timestamp ?? from)) + 1;
      }
    }
  }
}
