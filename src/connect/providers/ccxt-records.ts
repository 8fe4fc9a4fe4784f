import type { Conversion, LedgerEntry, Trade, Transaction } from 'ccxt';
import { addDecimals, canonicalDecimal } from '../amounts.js';
import type { Book, EntryTypes, RecordList } from './exchanges/row.js';
import type { ProviderTransaction } from './provider.js';

/**
 * ccxt's records (parsed with `number = String`, see ccxt-instance.ts) as our transactions. In
 * every one, `amount` is the signed movement and `fee` is charged on top of it, in `feeAsset`: an
 * asset's balance moves by the sum of its amounts less the fees charged in it.
 */

/** A value ccxt parsed with `number = String` as a canonical decimal, or null. */
export function decimalOrNull(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' && typeof value !== 'number') throw new TypeError(`not an amount: ${typeof value}`);
  return canonicalDecimal(String(value));
}

function required<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new TypeError(`the exchange's ${what} is missing`);
  return value;
}

function negate(amount: string): string {
  return amount === '0' ? amount : amount.startsWith('-') ? amount.slice(1) : `-${amount}`;
}

/** A decimal without its sign. */
export const unsigned = (amount: string) => amount.replace(/^-/, '');

/** How a trade reads: what was bought or sold, and for what. */
function tradeDescription(name: string, buy: boolean, quantity: string, base: string, cost: string, quote: string): string {
  return `${name} trade: ${buy ? 'bought' : 'sold'} ${quantity} ${base} for ${cost} ${quote}`;
}

function feeOf(fee: { cost?: unknown; currency?: string | undefined } | undefined): { fee: string | null; feeAsset: string | null } {
  const cost = decimalOrNull(fee?.cost);
  if (cost === null || cost === '0') return { fee: null, feeAsset: null };
  return { fee: cost, feeAsset: fee?.currency ?? null };
}

const NO_FEE = { fee: null, feeAsset: null };

const STATUS: Record<string, ProviderTransaction['status']> = { ok: 'completed', pending: 'pending', failed: 'failed', canceled: 'failed' };

function statusOf(status: string | undefined): ProviderTransaction['status'] {
  return (status && STATUS[status]) || 'completed';
}

const seconds = (timestamp: number | undefined, what: string) => Math.floor(required(timestamp, what) / 1000);

/** ccxt's unified ledger types → ours. `transaction` is ccxt's word for a deposit or a withdrawal. */
function ledgerType(entry: LedgerEntry, signed: string): ProviderTransaction['type'] {
  switch (entry.type) {
    case 'trade':
      return 'trade';
    case 'fee':
      return 'fee';
    case 'transaction':
      return signed.startsWith('-') ? 'withdrawal' : 'deposit';
    default:
      return 'transfer';
  }
}

/**
 * A ledger entry as our transaction. From one of several books (see Book), its reference (unless
 * the book keeps plain ones) and description name the book, and the book's own entry types
 * replace ccxt's reading of them.
 */
export function fromLedgerEntry(entry: LedgerEntry, name: string, book?: Book): ProviderTransaction {
  // ccxt gives a direction, with the amount unsigned (Kraken) or already signed (OKX's balChg):
  // the direction decides the sign.
  const amount = required(decimalOrNull(entry.amount), 'ledger amount');
  const size = unsigned(amount);
  const rawType = typeof entry.info?.type === 'string' ? entry.info.type : entry.type;
  const known = book?.types && rawType !== undefined ? book.types[rawType] : undefined;
  const fee = feeOf(entry.fee);
  let signed = entry.direction === 'out' ? negate(size) : entry.direction === 'in' ? size : amount;
  // An amount the fee was already taken off (OKX's balChg) is given back its fee: our amount is
  // the movement before the fee, so that amount less fee is the balance change.
  if (book?.feeIncluded && fee.fee !== null && fee.feeAsset === entry.currency) signed = addDecimals(signed, fee.fee);
  return {
    ref: `ledger:${book && !book.plainRefs ? `${book.name}:` : ''}${required(entry.id, 'ledger id')}`,
    type: known?.type ?? (book?.types && book.unlistedTypes !== 'ccxt' ? 'transfer' : ledgerType(entry, signed)),
    asset: required(entry.currency, 'ledger currency'),
    amount: signed,
    ...fee,
    occurredAt: seconds(entry.timestamp, 'ledger time'),
    status: statusOf(entry.status),
    txHash: null,
    description: `${name} ${book ? `${book.name} ` : ''}ledger: ${known?.label ?? rawType ?? 'entry'}${entry.referenceId ? ` (${entry.referenceId})` : ''}`,
  };
}

export function fromTransfer(transfer: Transaction, name: string): ProviderTransaction {
  const amount = required(decimalOrNull(transfer.amount), 'transfer amount');
  const withdrawal = transfer.type === 'withdrawal';
  return {
    ref: `${withdrawal ? 'withdrawal' : 'deposit'}:${required(transfer.id, 'transfer id')}`,
    type: withdrawal ? 'withdrawal' : 'deposit',
    asset: required(transfer.currency, 'transfer currency'),
    amount: withdrawal ? negate(amount) : amount,
    ...feeOf(transfer.fee),
    occurredAt: seconds(transfer.timestamp, 'transfer time'),
    status: statusOf(transfer.status),
    txHash: transfer.txid ?? null,
    description: `${name} ${withdrawal ? 'withdrawal' : 'deposit'}${transfer.network ? ` (${transfer.network})` : ''}`,
  };
}

/**
 * A trade of one market as its two legs (the docs' "one entry per asset leg"): the base asset
 * bought or sold, the quote asset paid or received. The fee goes with the leg of its asset, or
 * with the base leg when it is charged in a third asset (Binance's BNB).
 */
export function fromTrade(trade: Trade, market: { id: string; base: string; quote: string }, name: string): ProviderTransaction[] {
  const id = required(trade.id, 'trade id');
  const quantity = required(decimalOrNull(trade.amount), 'trade amount');
  const cost = required(decimalOrNull(trade.cost), 'trade cost');
  const buy = trade.side === 'buy';
  if (!buy && trade.side !== 'sell') throw new TypeError(`the exchange's trade side is missing`);
  const fee = feeOf(trade.fee);
  const feeOnQuote = fee.feeAsset === market.quote;
  return tradeLegs(
    `trade:${market.id}:${id}`,
    [
      { side: 'base', asset: market.base, amount: buy ? quantity : negate(quantity), fee: feeOnQuote ? NO_FEE : fee },
      { side: 'quote', asset: market.quote, amount: buy ? negate(cost) : cost, fee: feeOnQuote ? fee : NO_FEE },
    ],
    {
      occurredAt: seconds(trade.timestamp, 'trade time'),
      status: 'completed',
      description: tradeDescription(name, buy, quantity, market.base, cost, market.quote),
    },
  );
}

/** One leg of an exchange of one asset for another: its side (in the reference), asset, signed amount and fee. */
interface Leg {
  side: string;
  asset: string;
  amount: string;
  fee?: ReturnType<typeof feeOf>;
}

/**
 * An exchange of one asset for another (a trade, a conversion) as its two `trade` transactions,
 * each referenced `<ref>:<side>`, sharing time, status and description.
 */
function tradeLegs(
  ref: string,
  legs: [Leg, Leg],
  shared: Pick<ProviderTransaction, 'occurredAt' | 'status' | 'description'>,
): ProviderTransaction[] {
  return legs.map((leg) => ({
    ref: `${ref}:${leg.side}`,
    type: 'trade',
    asset: leg.asset,
    amount: leg.amount,
    ...(leg.fee ?? NO_FEE),
    ...shared,
    txHash: null,
  }));
}

/** The fields of a column-per-currency row that are not a currency's column (pairs and order ids have a `_`). */
const NOT_COLUMNS = new Set(['id', 'datetime', 'type', 'fee', 'status', 'price']);

/**
 * A ledger row with a column per currency (Bitstamp's `user_transactions`), read exactly as the
 * exchange wrote it: ccxt reads such a trade as one entry of its base currency (with no currency
 * at all in ccxt 4.5), finds no currency for an amount under one unit and reads deposits as
 * outflows.
 * - A trade is the pair (a `base_quote` rate key) whose two columns both moved: two legs
 *   (`ledger:<id>:base`, `:quote`), the quote as the exchange booked it (rounded to the market's
 *   decimals, not price × amount), with the fee, which the exchange charges in the quote currency.
 *   Zero rate keys of other pairs, which every row carries, are no trade.
 * - Any other row is its moved column (`ledger:<id>`, the fee in that currency), or one transfer
 *   per moved column where several moved (`ledger:<id>:<column>`); a row that moved nothing is
 *   no transaction.
 * `code` turns a column's name into a currency code; `types` reads the row's type.
 */
export function fromColumnEntry(
  row: Record<string, unknown>,
  name: string,
  code: (column: string) => string,
  types: EntryTypes,
): ProviderTransaction[] {
  const id = String(required(row.id as string | number | undefined, 'ledger id'));
  const datetime = String(required(row.datetime as string | undefined, 'ledger time'));
  // `2024-01-02 03:04:05.123456`: UTC, microseconds.
  const at = Date.parse(`${datetime.replace(' ', 'T').slice(0, 23)}Z`);
  if (Number.isNaN(at)) throw new TypeError(`the exchange's ledger time ${datetime} is not a time`);
  const columns = new Map(
    Object.entries(row)
      .filter(
        ([key, value]) =>
          !key.includes('_') &&
          !NOT_COLUMNS.has(key) &&
          (typeof value === 'number' || (typeof value === 'string' && /^[+-]?\d*\.?\d+(e[+-]?\d+)?$/i.test(value))),
      )
      .map(([key, value]) => [key, decimalOrNull(value) as string]),
  );
  const moved = [...columns].filter(([, amount]) => amount !== '0');
  const kind = types[String(row.type)] ?? { type: 'transfer' as const, label: `type ${String(row.type)}` };
  const shared = { occurredAt: Math.floor(at / 1000), status: 'completed' as const };
  if (kind.type === 'trade') {
    const pairs = Object.keys(row)
      .map((key) => key.split('_'))
      .filter(
        (parts): parts is [string, string] =>
          parts.length === 2 && moved.some(([c]) => c === parts[0]) && moved.some(([c]) => c === parts[1]),
      );
    if (pairs.length !== 1 || moved.length !== 2) throw new TypeError(`the exchange's trade ${id} is not one pair of moved currencies`);
    const [base, quote] = pairs[0] as [string, string];
    const bought = columns.get(base) as string;
    const paid = columns.get(quote) as string;
    return tradeLegs(
      `ledger:${id}`,
      [
        { side: 'base', asset: code(base), amount: bought },
        { side: 'quote', asset: code(quote), amount: paid, fee: feeOf({ cost: row.fee, currency: code(quote) }) },
      ],
      {
        ...shared,
        description: tradeDescription(name, !bought.startsWith('-'), unsigned(bought), code(base), unsigned(paid), code(quote)),
      },
    );
  }
  return moved.map(([column, amount]) => ({
    ref: moved.length === 1 ? `ledger:${id}` : `ledger:${id}:${column}`,
    // Deposits and withdrawals go by the sign: the type code says which, the amount how much.
    type:
      kind.type === 'deposit' || kind.type === 'withdrawal'
        ? amount.startsWith('-')
          ? 'withdrawal'
          : 'deposit'
        : moved.length === 1
          ? kind.type
          : 'transfer',
    asset: code(column),
    amount,
    ...(moved.length === 1 ? feeOf({ cost: row.fee, currency: code(column) }) : NO_FEE),
    ...shared,
    txHash: null,
    description: `${name} ledger: ${kind.label}`,
  }));
}

/**
 * A conversion's id: Binance's `quoteId` (text) where there is one. ccxt takes the `orderId`, a
 * JSON number past 2^53 that JavaScript rounds: two conversions would share one id.
 */
function conversionId(conversion: Conversion): string {
  const quote: unknown = conversion.info?.quoteId;
  return typeof quote === 'string' && quote !== '' ? quote : required(conversion.id, 'conversion id');
}

/** Binance Convert's order states → ours (an order still in progress is pending). */
const CONVERSION_STATUS: Record<string, ProviderTransaction['status']> = { SUCCESS: 'completed', FAIL: 'failed' };

/**
 * A conversion (one asset exchanged for another at a quoted price, outside the order books) as its
 * two legs, like a trade: the asset given and the asset got. Its cost is in the price: no fee.
 */
export function fromConversion(conversion: Conversion, name: string): ProviderTransaction[] {
  const given = required(decimalOrNull(conversion.fromAmount), 'conversion amount');
  const got = required(decimalOrNull(conversion.toAmount), 'conversion amount');
  const from = required(conversion.fromCurrency, 'conversion currency');
  const to = required(conversion.toCurrency, 'conversion currency');
  const state = typeof conversion.info?.orderStatus === 'string' ? conversion.info.orderStatus : 'SUCCESS';
  return tradeLegs(
    `convert:${conversionId(conversion)}`,
    [
      { side: 'from', asset: from, amount: negate(given) },
      { side: 'to', asset: to, amount: got },
    ],
    {
      occurredAt: seconds(conversion.timestamp, 'conversion time'),
      status: CONVERSION_STATUS[state] ?? 'pending',
      description: `${name} convert: ${given} ${from} to ${got} ${to}`,
    },
  );
}

/** One small-balance conversion of Binance's dust log (`userAssetDribblets[]`), as Binance answers it. */
export interface DustConversion {
  userAssetDribbletDetails?: {
    transId?: unknown;
    fromAsset?: unknown;
    amount?: unknown;
    transferedAmount?: unknown;
    serviceChargeAmount?: unknown;
    operateTime?: unknown;
  }[];
}

/**
 * Dust converted to BNB: per asset converted, its two legs, like a trade. `transferedAmount` is
 * the BNB it was worth and the service charge (2 %) is taken from it: the fee on the BNB leg.
 */
export function fromDust(conversion: DustConversion, name: string): ProviderTransaction[] {
  return (conversion.userAssetDribbletDetails ?? []).flatMap((detail) => {
    const id = required(
      typeof detail.transId === 'number' && Number.isSafeInteger(detail.transId) ? String(detail.transId) : undefined,
      'dust conversion id',
    );
    const asset = required(typeof detail.fromAsset === 'string' && detail.fromAsset !== '' ? detail.fromAsset : undefined, 'dust asset');
    const given = required(decimalOrNull(detail.amount), 'dust amount');
    const got = required(decimalOrNull(detail.transferedAmount), 'dust amount');
    return tradeLegs(
      `dust:${id}`,
      [
        { side: 'from', asset, amount: negate(given) },
        { side: 'to', asset: 'BNB', amount: got, fee: feeOf({ cost: detail.serviceChargeAmount, currency: 'BNB' }) },
      ],
      {
        occurredAt: seconds(typeof detail.operateTime === 'number' ? detail.operateTime : undefined, 'dust time'),
        status: 'completed',
        description: `${name} dust: ${given} ${asset} to ${got} BNB`,
      },
    );
  });
}

/**
 * A record of one of the exchange's record lists (a reward, a purchase, a P2P order) as our
 * transaction: its amount signed by the list's direction, its fee (in the record's asset) and its
 * status where the list has them.
 */
export function fromRecord(row: Record<string, unknown>, list: RecordList, asset: string, name: string): ProviderTransaction {
  const time = Number(row[list.fields.time]);
  const amount = required(decimalOrNull(row[list.fields.amount]), `${list.label} amount`);
  const fee = list.fields.fee;
  return {
    ref: `${list.ref}:${list.fields.id.map((field) => String(required(row[field], `${list.label} ${field}`))).join(':')}`,
    type: list.type ?? 'transfer',
    asset,
    amount: recordOut(row, list) ? negate(unsigned(amount)) : amount,
    ...(fee === undefined ? NO_FEE : feeOf({ cost: row[fee], currency: asset })),
    occurredAt: seconds(Number.isFinite(time) ? time : undefined, `${list.label} time`),
    status: recordStatus(row, list),
    txHash: null,
    description: `${name} ${list.label}`,
  };
}

/** Whether a record is money going out of the account. */
function recordOut(row: Record<string, unknown>, list: RecordList): boolean {
  const { direction } = list;
  return direction === 'out' || (direction !== undefined && direction.out.includes(String(row[direction.field])));
}

/** A record's status: completed unless the list has a status field; a value neither completed nor failed is pending. */
function recordStatus(row: Record<string, unknown>, list: RecordList): ProviderTransaction['status'] {
  if (!list.status) return 'completed';
  const value = String(required(row[list.status.field], `${list.label} ${list.status.field}`));
  return list.status.completed.includes(value) ? 'completed' : list.status.failed.includes(value) ? 'failed' : 'pending';
}
