import type { Exchange } from 'ccxt';
import { connectFailure, refreshFailure } from './ccxt-errors.js';
import {
  credentialsOf,
  exchangeAccess,
  instanceFor,
  readWith,
  withMarkets,
  type Credentials,
  type ExchangeAccess,
  type ExchangeDeps,
} from './ccxt-access.js';
import { depositAddresses } from './ccxt-addresses.js';
import { apiMethod } from './ccxt-api.js';
import { allBalances, presentBooks } from './ccxt-balances.js';
import { historyPages } from './history/history-pages.js';
import { isBooks, type CcxtCredential, type ExchangeRow } from './exchanges/row.js';
import type { ConnectOutcome, CredentialField, Provider, TransactionPages } from './provider.js';
import type { StoredConnection } from '../stored-connection.js';

export type { ExchangeOverrides } from './ccxt-access.js';

const FIELDS: Record<CcxtCredential, Omit<CredentialField, 'name'>> = {
  // The key is not the secret, but it names the account to the exchange: it is not echoed either.
  apiKey: { label: 'API key', type: 'text', autocomplete: 'off', sensitive: true },
  secret: { label: 'API secret', type: 'password', autocomplete: 'off', sensitive: true },
  password: { label: 'Passphrase', type: 'password', autocomplete: 'off', sensitive: true },
  uid: { label: 'User ID', type: 'text', autocomplete: 'off' },
};

/** The form field of a credential: ccxt's name, our wording, and the row's own changes to it. */
function fieldFor(row: ExchangeRow, credential: CcxtCredential): CredentialField {
  return { name: credential, ...FIELDS[credential], ...row.fields?.[credential] };
}

/**
 * A provider for one exchange of the table, through ccxt. `load` imports ccxt (lazily: it costs about
 * a second and 140 MB, so a server that never connects an exchange never pays it).
 */
export function ccxtProvider(row: ExchangeRow, deps: ExchangeDeps): Provider {
  const access = exchangeAccess(row, deps);
  return {
    id: row.id,
    type: 'exchange',
    name: row.name,
    description: `Connect with a read-only API key.`,
    credentialFields: row.credentials.map((credential) => fieldFor(row, credential)),
    steps: row.steps,

    async connect(input): Promise<ConnectOutcome> {
      const credentials: Credentials = {};
      for (const credential of row.credentials) {
        const value = cleanCredential(input[credential] ?? '');
        if (value === '')
          return { ok: false, reason: 'invalid_input', message: `Enter the ${FIELDS[credential].label.toLowerCase()}.`, field: credential };
        credentials[credential] = value;
      }
      const refused = await checkAccess(access, credentials);
      if (refused) return refused;
      return {
        ok: true,
        accounts: [{ displayName: `${row.name} (API key …${credentials.apiKey?.slice(-4) ?? ''})`, connection: credentials }],
      };
    },

    ...(row.oauth
      ? {
          oauth: {
            server: { ...row.oauth, ...deps.oauthServer },
            async connectWithTokens(tokens): Promise<ConnectOutcome> {
              const refused = await checkAccess(access, { token: tokens.access_token });
              if (refused) return refused;
              return { ok: true, accounts: [{ displayName: `${row.name} (signed in)`, connection: { oauth: tokens } }] };
            },
          },
        }
      : {}),

    fetchBalances: (connection) => readWith(access, connection, (exchange) => allBalances(row, exchange)),

    fetchTransactions: (connection, options) => transactionPages(access, connection, options),

    fetchAddresses: async (connection, options) => {
      const source = row.depositAddresses ?? { kind: 'lookup' };
      if (source.kind === 'none') return [];
      return readWith(access, connection, async (exchange, ccxt) =>
        depositAddresses(row, source, exchange, ccxt, options.balances ?? (await allBalances(row, exchange))),
      );
    },
  };
}

/**
 * Proves the credentials work before anything is stored (balances first) and, where the exchange
 * tells, that a key cannot trade or withdraw (an OAuth sign-in is granted our read scopes only).
 * Undefined when they pass.
 */
async function checkAccess(access: ExchangeAccess, credentials: Credentials): Promise<ConnectOutcome | undefined> {
  const { row } = access;
  const ccxt = await access.deps.load();
  try {
    const exchange = await withMarkets(access, instanceFor(access, ccxt, credentials));
    // Balances first: they prove the key works before anything is stored.
    await exchange.fetchBalance();
    const refused = row.refuseAccount?.reason(await apiMethod(exchange, row.refuseAccount.method)({}));
    if (refused !== undefined) return { ok: false, reason: 'invalid_input', field: 'apiKey', message: refused };
    if (row.keyPermissions && credentials.token === undefined) {
      const check = row.keyPermissions;
      const powers = check.read(await apiMethod(exchange, check.method)({}));
      if (powers.canTrade || powers.canWithdraw) {
        const what =
          powers.canTrade && powers.canWithdraw ? 'trade and withdraw' : powers.canTrade ? 'trade' : 'withdraw or transfer funds';
        return {
          ok: false,
          reason: 'invalid_input',
          field: 'apiKey',
          message: `This key can ${what}. We only accept read-only keys: create a new key with read permissions only (steps above) and enter that one.`,
        };
      }
    }
  } catch (error) {
    return connectFailure(ccxt, error, row.name);
  }
  return undefined;
}

/** The account's history, page by page from the stored cursor (see history/history-pages.ts). */
async function* transactionPages(
  access: ExchangeAccess,
  connection: StoredConnection,
  options: Parameters<Provider['fetchTransactions']>[1],
): TransactionPages {
  const { row } = access;
  const ccxt = await access.deps.load();
  let exchange: Exchange | undefined;
  try {
    exchange = instanceFor(access, ccxt, credentialsOf(connection));
    const ready = await withMarkets(access, exchange);
    const held = async () => (options.balances ?? (await allBalances(row, ready))).map((b) => b.asset);
    const history = isBooks(row.history) ? await presentBooks(ready, row.history) : row.history;
    const pages = historyPages(ready, history, { name: row.name, cursor: options.cursor, held });
    try {
      for (;;) {
        const next = await pages.next();
        if (next.done) return next.value;
        options.signal?.throwIfAborted();
        yield next.value;
      }
    } finally {
      // A refresh out of time stops reading mid-walk: the walk is closed with it.
      await pages.return(null);
    }
  } catch (error) {
    throw refreshFailure(ccxt, error, row.name, exchange?.last_response_headers);
  }
}

/** Pasted keys carry stray spaces and line breaks; a PEM key keeps its inner line breaks. */
function cleanCredential(value: string): string {
  return value.replace(/\r\n?/g, '\n').trim();
}
