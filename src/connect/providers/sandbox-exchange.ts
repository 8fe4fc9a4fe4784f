import { createHash } from 'node:crypto';
import { formatUnits } from '../amounts.js';
import {
  onePage,
  ProviderError,
  type ConnectOutcome,
  type Provider,
  type ProviderAddress,
  type ProviderBalance,
  type ProviderTransaction,
} from './provider.js';

/**
 * The test-mode exchange. Documented credentials (docs/sandbox.md) choose the behaviour:
 *
 * | username         | password    | what happens                                                      |
 * |------------------|-------------|-------------------------------------------------------------------|
 * | `user_good`      | `pass_good` | connects one account with several assets and ~40 transactions     |
 * | `user_multi`     | `pass_good` | connects two accounts (Spot and Savings)                          |
 * | `user_throttled` | `pass_good` | connects; every refresh is rate-limited for 5 minutes             |
 * | `user_reauth`    | `pass_good` | connects; refreshes say the login expired (`requires_reauth`)     |
 * | `user_outage`    | anything    | the exchange is down: login fails with a "try later" message      |
 * | anything else    |             | wrong username or password                                        |
 *
 * Everything it returns is derived from the username and account key, so the same login always
 * yields the same balances and history.
 */
const SANDBOX_USERS = ['user_good', 'user_multi', 'user_throttled', 'user_reauth'] as const;
export const SANDBOX_PASSWORD = 'pass_good';
const SANDBOX_OUTAGE_USER = 'user_outage';
export const SANDBOX_THROTTLE_SECONDS = 300;

interface SandboxConnection {
  username: string;
  account: 'main' | 'spot' | 'savings';
}

const DECIMALS: Record<string, number> = { BTC: 8, ETH: 8, USDC: 6, EUR: 2 };
/** First transaction of every sandbox history: 2026-01-05T09:00:00Z. */
const HISTORY_START = 1_767_603_600;

export const sandboxExchange: Provider = {
  id: 'sandbox',
  type: 'exchange',
  name: 'Sandbox Exchange',
  description: 'Test exchange with documented logins and deterministic data.',
  credentialFields: [
    { name: 'username', label: 'Username', type: 'text', autocomplete: 'username' },
    { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password' },
  ],
  instructions:
    'Test mode. Sign in with username user_good and password pass_good. Other test logins: user_multi (two accounts), ' +
    'user_throttled (refreshes are rate-limited), user_reauth (login expires), user_outage (the exchange is down).',

  async connect(input): Promise<ConnectOutcome> {
    const username = input.username?.trim() ?? '';
    const password = input.password ?? '';
    if (username === '') return { ok: false, reason: 'invalid_input', message: 'Enter your username.', field: 'username' };
    if (username === SANDBOX_OUTAGE_USER) {
      return {
        ok: false,
        reason: 'provider_unavailable',
        message: 'Sandbox Exchange is not responding right now (simulated outage). Please try again later.',
      };
    }
    if (!(SANDBOX_USERS as readonly string[]).includes(username) || password !== SANDBOX_PASSWORD) {
      return { ok: false, reason: 'invalid_credentials', message: 'The username or password is incorrect.' };
    }
    if (username === 'user_multi') {
      return {
        ok: true,
        accounts: [
          { displayName: 'Sandbox Exchange — Spot', connection: { username, account: 'spot' } },
          { displayName: 'Sandbox Exchange — Savings', connection: { username, account: 'savings' } },
        ],
      };
    }
    return { ok: true, accounts: [{ displayName: `Sandbox Exchange (${username})`, connection: { username, account: 'main' } }] };
  },

  async fetchBalances(connection): Promise<ProviderBalance[]> {
    const sandbox = checkConnection(connection);
    const history = sandboxHistory(sandbox);
    const totals = new Map<string, bigint>();
    for (const tx of history) {
      if (tx.status !== 'completed') continue;
      totals.set(tx.asset, (totals.get(tx.asset) ?? 0n) + tx.units);
      if (tx.feeUnits) totals.set(tx.asset, (totals.get(tx.asset) ?? 0n) - tx.feeUnits);
    }
    return [...totals.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([asset, total]) => {
        // A tenth of the EUR balance is on hold (an open order), so available < total there.
        const held = asset === 'EUR' ? total / 10n : 0n;
        const decimals = DECIMALS[asset] ?? 8;
        return { asset, total: formatUnits(total, decimals), available: formatUnits(total - held, decimals) };
      });
  },

  // About 40 entries, derived anew each time: one page, no cursor.
  fetchTransactions: (connection) => onePage(async () => sandboxTransactions(connection)),

  async fetchAddresses(connection): Promise<ProviderAddress[]> {
    const sandbox = checkConnection(connection);
    const seed = `${sandbox.username}:${sandbox.account}`;
    return [
      {
        address: `tb1q${hex(seed, 'btc-address').slice(0, 38)}`,
        asset: 'BTC',
        network: 'bitcoin-testnet',
        kind: 'deposit',
        label: 'BTC deposit address (sandbox, not a real address)',
      },
      {
        address: `0x${hex(seed, 'eth-address').slice(0, 40)}`,
        asset: 'ETH',
        network: 'ethereum-sepolia',
        kind: 'deposit',
        label: 'ETH deposit address (sandbox)',
      },
      {
        address: `0x${hex(seed, 'eth-address').slice(0, 40)}`,
        asset: 'USDC',
        network: 'ethereum-sepolia',
        kind: 'deposit',
        label: 'USDC deposit address (sandbox)',
      },
    ];
  },
};

function sandboxTransactions(connection: Record<string, unknown>): ProviderTransaction[] {
  return sandboxHistory(checkConnection(connection)).map((tx) => ({
    ref: tx.ref,
    type: tx.type,
    asset: tx.asset,
    amount: formatUnits(tx.units, DECIMALS[tx.asset] ?? 8),
    fee: tx.feeUnits ? formatUnits(tx.feeUnits, DECIMALS[tx.asset] ?? 8) : null,
    feeAsset: tx.feeUnits ? tx.asset : null,
    occurredAt: tx.occurredAt,
    status: tx.status,
    txHash: tx.txHash,
    description: tx.description,
  }));
}

/** Applies the scripted failures of the special sandbox users to every data call. */
function checkConnection(connection: Record<string, unknown>): SandboxConnection {
  const username = String(connection.username);
  const account = String(connection.account) as SandboxConnection['account'];
  if (username === 'user_throttled') {
    throw new ProviderError('provider_rate_limited', 'Sandbox Exchange rate limit reached (simulated).', SANDBOX_THROTTLE_SECONDS);
  }
  if (username === 'user_reauth') {
    throw new ProviderError('reauthentication_required', 'The Sandbox Exchange login has expired; the account holder must connect again.');
  }
  return { username, account };
}

interface SandboxTx {
  ref: string;
  type: ProviderTransaction['type'];
  asset: string;
  units: bigint;
  feeUnits: bigint;
  occurredAt: number;
  status: ProviderTransaction['status'];
  txHash: string | null;
  description: string;
}

function hex(seed: string, label: string): string {
  return createHash('sha256').update(`${seed}/${label}`).digest('hex');
}

/** A deterministic number in [min, max] from the seed and a label. */
function pick(seed: string, label: string, min: number, max: number): number {
  return min + (parseInt(hex(seed, label).slice(0, 8), 16) % (max - min + 1));
}

/**
 * The scripted history: euro deposits, buys of BTC and ETH, on-chain deposits and withdrawals
 * with network fees, a USDC transfer, a trading fee — about 40 entries, one every 5–9 days, and the
 * newest still pending. Balances never go negative.
 */
function sandboxHistory(connection: SandboxConnection): SandboxTx[] {
  const seed = `${connection.username}:${connection.account}`;
  const scale = connection.account === 'savings' ? 3n : 1n;
  const txs: SandboxTx[] = [];
  let time = HISTORY_START;
  const add = (
    type: SandboxTx['type'],
    asset: string,
    units: bigint,
    description: string,
    options: { fee?: bigint; onChain?: boolean } = {},
  ) => {
    const index = txs.length;
    txs.push({
      ref: `sbx_${hex(seed, `tx-${index}`).slice(0, 24)}`,
      type,
      asset,
      units,
      feeUnits: options.fee ?? 0n,
      occurredAt: time,
      status: 'completed',
      txHash: options.onChain ? hex(seed, `txhash-${index}`) : null,
      description,
    });
  };
  for (let round = 0; round < 6; round++) {
    const r = (label: string, min: number, max: number) => BigInt(pick(seed, `${round}-${label}`, min, max));
    const eur = r('eur', 1_000, 5_000) * 100n * scale;
    add('deposit', 'EUR', eur, 'SEPA bank transfer');
    time += 86_400 * Number(r('gap1', 1, 3));
    const btcEur = eur / 2n;
    add('trade', 'EUR', -btcEur, 'Buy BTC');
    add('trade', 'BTC', (btcEur * 1_000n) / 95n, 'Buy BTC');
    add('fee', 'EUR', -(btcEur / 200n), 'Trading fee 0.5%');
    time += 86_400 * Number(r('gap2', 1, 3));
    const ethEur = eur / 4n;
    add('trade', 'EUR', -ethEur, 'Buy ETH');
    add('trade', 'ETH', ethEur * 333n, 'Buy ETH');
    time += 86_400 * Number(r('gap3', 2, 4));
    add('deposit', 'BTC', r('btcin', 100_000, 900_000) * scale, 'On-chain deposit', { onChain: true });
    if (round % 2 === 1) {
      time += 86_400;
      add('withdrawal', 'ETH', -(ethEur * 100n), 'Withdrawal to external wallet', { fee: 50_000n, onChain: true });
      add('transfer', 'USDC', r('usdc', 50, 500) * 1_000_000n, 'Internal transfer from another sandbox user');
    }
    time += 86_400 * Number(r('gap4', 1, 2));
  }
  const last = txs[txs.length - 1];
  if (last) last.status = 'pending';
  return txs;
}
