import { exchangeThrottles } from '../../src/connect/providers/ccxt-instance.js';
import { ccxtProvider } from '../../src/connect/providers/ccxt-provider.js';
import { EXCHANGES, type ExchangeRow } from '../../src/connect/providers/exchanges.js';
import type { Provider, ProviderTransaction } from '../../src/connect/providers/provider.js';
import { pointExchangeAt } from './exchange-overrides.js';

/**
 * The live provider of an exchange of the table, ccxt pointed at a local fake at `origin`; with
 * `history`, walking that instead of the row's own (to prove a walk against another fake).
 */
export function providerAt(id: string, origin: string, history?: ExchangeRow['history']): Provider {
  const row = EXCHANGES.find((r) => r.id === id);
  if (!row) throw new Error(`no exchange ${id} in the table`);
  if (row.accountLimits) throw new Error(`${id} paces calls per account in the database: walk it through an app (startTestApp)`);
  // Without accountLimits the provider never logs a call.
  const calls = { reserve: () => Promise.reject(new Error('no call log outside an app')) };
  return ccxtProvider(history ? { ...row, history } : row, {
    load: () => import('ccxt'),
    throttles: exchangeThrottles(),
    calls,
    overrides: pointExchangeAt(id, origin),
  });
}

export interface WalkedPage {
  transactions: ProviderTransaction[];
  checkpoint?: string;
}

/**
 * Walks a provider's history from `cursor` through the interface the refresh uses, `pages` pages
 * at most (then stops it, as a refresh out of time does); returns the pages read and, if it got to
 * the end, the cursor it returned.
 */
export async function walkHistory(
  provider: Provider,
  connection: Record<string, unknown>,
  cursor: string | null,
  pages = Infinity,
): Promise<{ read: WalkedPage[]; returned: string | null | undefined }> {
  const read: WalkedPage[] = [];
  const history = provider.fetchTransactions(connection, { cursor });
  for (;;) {
    if (read.length >= pages) {
      await history.return(null);
      return { read, returned: undefined };
    }
    const next = await history.next();
    if (next.done) return { read, returned: next.value };
    read.push(next.value);
  }
}

/** The references of the transactions of the pages read, in order. */
export const refsOf = (read: WalkedPage[]) => read.flatMap((page) => page.transactions.map((tx) => tx.ref));
