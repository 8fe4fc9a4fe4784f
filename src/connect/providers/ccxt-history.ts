import type { Exchange, LedgerEntry, Transaction } from 'ccxt';
import { canonicalDecimal } from '../amounts.js';
import type { HistorySource } from './exchanges.js';
import type { ProviderTransaction, TransactionPage } from './provider.js';

/**
 * An exchange's history as our transactions, page by page.
 *
 * Where the exchange keeps a ledger we read only the ledger: it is the complete record of every
 * balance change, one entry per asset leg (a trade is two entries, its fee is in them), with the
 * exchange's own id. Reading trades, deposits and withdrawals as well would count the same movement
 * twice. Exchanges without a ledger give their deposits and withdrawals.
 */
export async function* historyPages(exchange: Exchange, source: HistorySource, name: string, position: HistoryPosition): AsyncGenerator<TransactionPage> {
  const since = position.since;
  switch (source.kind) {
    case 'ledger-offset': {
      // A whole-history walk (no `since`) goes newest to oldest; after each page it leaves a
      // checkpoint: the oldest time read (as the inclusive `end` of the rest, which entries booked
      // meanwhile cannot shift, unlike offsets) and the newest (for the cursor once done).
      const end = position.backfill?.end;
      let top = position.backfill?.top;
      let oldest: number | undefined;
      const seen = new Set<string>();
      for (let offset = 0; ; offset += source.pageSize) {
        const page = await exchange.fetchLedger(undefined, since, source.pageSize, { [source.param]: offset, ...(end === undefined ? {} : { end }) });
        const fresh = page.filter((entry) => entry.id !== undefined && !seen.has(entry.id));
        for (const entry of fresh) seen.add(entry.id as string);
        const transactions = fresh.map((entry) => fromLedgerEntry(entry, name));
        for (const tx of transactions) {
          top = Math.max(top ?? tx.occurredAt, tx.occurredAt);
          oldest = Math.min(oldest ?? tx.occurredAt, tx.occurredAt);
        }
        // A short page is the last; a page with nothing new means the exchange ignored the offset
        // (walking on would loop forever). The last page needs no checkpoint: the walk ends with it.
        const last = page.length < source.pageSize || fresh.length === 0;
        const resumable = !last && since === undefined && top !== undefined && oldest !== undefined;
        // `occurredAt` is whole seconds, rounded down: the next second as the inclusive end keeps
        // every entry of the oldest second (re-read ones are upserted again).
        yield { transactions, ...(resumable ? { checkpoint: JSON.stringify({ backfill: { end: (oldest as number) + 1, top } }) } : {}) };
        if (last) return;
      }
    }
    case 'ledger-ccxt':
      // ccxt walks the pages itself and hands them over together: not streamed (yet).
      yield { transactions: (await exchange.fetchLedger(undefined, since, undefined, { paginate: true })).map((entry) => fromLedgerEntry(entry, name)) };
      return;
    case 'ledger-per-account':
      for (const account of await exchange.fetchAccounts({ paginate: true })) {
        const entries = await exchange.fetchLedger(account.code, since, undefined, { account_id: account.id, paginate: true });
        yield { transactions: entries.map((entry) => fromLedgerEntry(entry, name)) };
      }
      return;
    case 'transfers': {
      const window = source.window;
      if (!window) {
        yield* transferPages(exchange, name, since);
        return;
      }
      // Range by range up to now: each call covers `days` from its start (ccxt sets the end).
      const span = window.days * 86_400_000;
      for (let from = Math.max(since ?? window.earliest, window.earliest); from < exchange.milliseconds(); from += span) {
        yield* transferPages(exchange, name, from);
      }
      return;
    }
  }
}

async function* transferPages(exchange: Exchange, name: string, since: number | undefined): AsyncGenerator<TransactionPage> {
  if (exchange.has.fetchDeposits && exchange.has.fetchWithdrawals) {
    yield { transactions: (await exchange.fetchDeposits(undefined, since)).map((t) => fromTransfer(t, name)) };
    yield { transactions: (await exchange.fetchWithdrawals(undefined, since)).map((t) => fromTransfer(t, name)) };
  } else {
    yield { transactions: (await exchange.fetchDepositsWithdrawals(undefined, since)).map((t) => fromTransfer(t, name)) };
  }
}

/**
 * How far before the newest entry already read the next refresh starts again: entries an exchange
 * books late, and deposits that change status, show up within it. Re-read entries are the same
 * rows (upserted on the exchange id).
 */
const HISTORY_OVERLAP_SECONDS = 86_400;

/** The cursor we store: the time (ms, whole seconds) the next refresh reads from. */
export function cursorAfter(previous: string | null, pages: { newestSeconds: number | undefined }): string | null {
  if (pages.newestSeconds === undefined) return previous;
  return JSON.stringify({ since: (pages.newestSeconds - HISTORY_OVERLAP_SECONDS) * 1000 });
}

/**
 * Where a stored cursor says to read: from `since` (ms) after a complete walk, or the rest of an
 * unfinished whole-history walk (`backfill`: entries up to `end`, seconds, inclusive; `top` the
 * newest time it read). Nothing (everything) for no cursor or one we cannot read.
 */
export interface HistoryPosition {
  since?: number;
  backfill?: { end: number; top: number };
}

const whole = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

export function positionOf(cursor: string | null): HistoryPosition {
  if (cursor === null) return {};
  try {
    const parsed = JSON.parse(cursor) as { since?: unknown; backfill?: { end?: unknown; top?: unknown } };
    if (whole(parsed.since)) return { since: parsed.since };
    if (whole(parsed.backfill?.end) && whole(parsed.backfill?.top)) return { backfill: { end: parsed.backfill.end, top: parsed.backfill.top } };
    return {};
  } catch {
    return {};
  }
}

/** A value ccxt parsed with `number = String` (see ccxt-provider.ts) as a canonical decimal, or null. */
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

function feeOf(fee: { cost?: unknown; currency?: string | undefined } | undefined): { fee: string | null; feeAsset: string | null } {
  const cost = decimalOrNull(fee?.cost);
  if (cost === null || cost === '0') return { fee: null, feeAsset: null };
  return { fee: cost, feeAsset: fee?.currency ?? null };
}

const STATUS: Record<string, ProviderTransaction['status']> = { ok: 'completed', pending: 'pending', failed: 'failed', canceled: 'failed' };

function statusOf(status: string | undefined): ProviderTransaction['status'] {
  return (status && STATUS[status]) || 'completed';
}

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

function fromLedgerEntry(entry: LedgerEntry, name: string): ProviderTransaction {
  // ccxt gives the amount unsigned with a direction.
  const amount = required(decimalOrNull(entry.amount), 'ledger amount');
  const signed = entry.direction === 'out' ? negate(amount) : amount;
  const rawType = typeof entry.info?.type === 'string' ? entry.info.type : entry.type;
  return {
    ref: `ledger:${required(entry.id, 'ledger id')}`,
    type: ledgerType(entry, signed),
    asset: required(entry.currency, 'ledger currency'),
    amount: signed,
    ...feeOf(entry.fee),
    occurredAt: Math.floor(required(entry.timestamp, 'ledger time') / 1000),
    status: statusOf(entry.status),
    txHash: null,
    description: `${name} ledger: ${rawType ?? 'entry'}${entry.referenceId ? ` (${entry.referenceId})` : ''}`,
  };
}

function fromTransfer(transfer: Transaction, name: string): ProviderTransaction {
  const amount = required(decimalOrNull(transfer.amount), 'transfer amount');
  const withdrawal = transfer.type === 'withdrawal';
  return {
    ref: `${withdrawal ? 'withdrawal' : 'deposit'}:${required(transfer.id, 'transfer id')}`,
    type: withdrawal ? 'withdrawal' : 'deposit',
    asset: required(transfer.currency, 'transfer currency'),
    amount: withdrawal ? negate(amount) : amount,
    ...feeOf(transfer.fee),
    occurredAt: Math.floor(required(transfer.timestamp, 'transfer time') / 1000),
    status: statusOf(transfer.status),
    txHash: transfer.txid ?? null,
    description: `${name} ${withdrawal ? 'withdrawal' : 'deposit'}${transfer.network ? ` (${transfer.network})` : ''}`,
  };
}
