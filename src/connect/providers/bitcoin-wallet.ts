import type { ChainSource, ChainTx } from '../../bitcoin/chain/index.js';
import { chainOnNetwork } from '../../bitcoin/chain/on-network.js';
import { deriveWalletAddress, parseWalletDescriptor, scanWallet, type WalletDescriptor } from '../../bitcoin/keys/index.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import type { NetworkName } from '../../bitcoin/network.js';
import { readWalletInput } from '../../bitcoin/wallet-input.js';
import { unixSeconds, type Clock } from '../../platform/clock.js';
import type { Mode } from '../../platform/scope.js';
import { formatUnits } from '../amounts.js';
import { onePage, ProviderError, type ConnectOutcome, type Provider, type ProviderAddress, type ProviderTransaction } from './provider.js';

const SATS = 8;

interface WalletConnection {
  descriptor: string;
  network: NetworkName;
}

/**
 * A self-custody Bitcoin wallet connected watch-only: the account holder gives an address, an
 * extended public key or a descriptor, and its data comes from the mode's chain source. Proving
 * ownership (signing a challenge) is the verify domain's job; this provider only reads. The chain
 * source is looked up on use, so building the test-mode chain costs nothing until a wallet is read.
 */
export function bitcoinWalletProvider(mode: Mode, chainSource: () => ChainSource | undefined, clock: Clock): Provider {
  const scans = new WeakMap<object, ReturnType<typeof scanOnce>>();
  const provider: Provider = {
    id: 'bitcoin',
    type: 'wallet',
    name: 'Bitcoin wallet (self-custody)',
    description: 'Connect watch-only with an address, an xpub/ypub/zpub or an output descriptor.',
    credentialFields: [
      {
        name: 'wallet',
        label: 'Address, extended public key or descriptor',
        type: 'textarea',
        hint:
          mode === 'live'
            ? 'A mainnet address (bc1…, 1…, 3…), an xpub/ypub/zpub, or a descriptor such as wpkh([…]xpub…/<0;1>/*). Never enter a private key or seed phrase.'
            : 'A test-network address (tb1…, bcrt1…, m…, n…, 2…), a tpub/upub/vpub, or a descriptor. Never enter a private key or seed phrase.',
      },
    ],

    async connect(input): Promise<ConnectOutcome> {
      const read = readWalletInput(input.wallet ?? '', mode);
      if (!read.ok) return { ok: false, reason: 'invalid_input', message: read.message, field: 'wallet' };
      const wallet = read.wallet;
      const connection: WalletConnection = { descriptor: wallet.descriptor, network: wallet.network };
      return { ok: true, accounts: [{ displayName: displayName(wallet), connection: { ...connection } }] };
    },

    async fetchBalances(connection) {
      const { source, addresses } = await scan(connection);
      const utxos = await source.getUtxos(addresses);
      let confirmed = 0n;
      let unconfirmed = 0n;
      for (const list of utxos.values()) {
        for (const utxo of list) {
          if (utxo.status.confirmed) confirmed += utxo.value;
          else unconfirmed += utxo.value;
        }
      }
      return [{ asset: 'BTC', available: formatUnits(confirmed, SATS), total: formatUnits(confirmed + unconfirmed, SATS) }];
    },

    // The whole history each time: a wallet's history is read per address, and a scan finds the
    // addresses anew (a cursor would miss payments to addresses that were unused last time).
    fetchTransactions: (connection, options) =>
      onePage(async () => {
        const { source, addresses } = await scan(connection);
        const mine = new Set(addresses);
        const histories = await source.getAddressHistory(addresses, {
          includeMempool: true,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        const seen = new Map<string, ChainTx>();
        for (const list of histories.values()) for (const tx of list) seen.set(tx.txid, tx);
        // A chain source gives no time for an unconfirmed transaction: it is as of this reading.
        const now = unixSeconds(clock);
        return [...seen.values()].map((tx) => walletTransaction(tx, mine, now));
      }),

    async fetchAddresses(connection) {
      const { scanned, wallet } = await scan(connection);
      const out: ProviderAddress[] = scanned.used.map((used) => ({
        address: used.address,
        asset: 'BTC',
        network: networkLabel(wallet.network),
        kind: used.chain,
        label: wallet.isRange ? `${used.chain} #${used.index}` : null,
      }));
      if (wallet.isRange && !scanned.used.some((u) => u.chain === 'receive' && u.index === scanned.receive.nextIndex)) {
        const next = deriveWalletAddress(wallet, 'receive', scanned.receive.nextIndex);
        out.push({
          address: next.address,
          asset: 'BTC',
          network: networkLabel(wallet.network),
          kind: 'receive',
          label: `next unused receive #${next.index}`,
        });
      }
      return out;
    },
  };
  if (mode === 'test') {
    // Read when a page shows it: deriving the sandbox wallet would otherwise cost every process's start-up.
    Object.defineProperty(provider, 'instructions', {
      enumerable: true,
      get: () =>
        `Test mode: connect any test-network address, or the public sandbox wallet, which has a history: ${sandboxWallet().descriptor}`,
    });
  }
  return provider;

  /**
   * One gap-limit scan per connection object: a refresh passes the same object to each fetch, so
   * balances, addresses and transactions share it. A failed scan is not kept.
   */
  function scan(connection: Record<string, unknown>): ReturnType<typeof scanOnce> {
    const known = scans.get(connection);
    if (known) return known;
    const started = scanOnce(connection);
    scans.set(connection, started);
    started.catch(() => scans.delete(connection));
    return started;
  }

  /** The wallet's used addresses, encoded for the chain source's network. */
  async function scanOnce(connection: Record<string, unknown>) {
    const chain = chainSource();
    if (!chain) throw new ProviderError('provider_unavailable', 'No Bitcoin chain data source is configured for this mode (ESPLORA_URL).');
    const stored = connection as unknown as WalletConnection;
    const parsed = parseWalletDescriptor(stored.descriptor, { network: stored.network });
    if (!parsed.ok) throw new ProviderError('provider_error', `stored wallet descriptor no longer parses: ${parsed.error.reason}`);
    const wallet = parsed.value;
    const source = chainOnNetwork(chain, wallet.network);
    try {
      const scanned = await scanWallet(source, wallet, {});
      return { source, wallet, scanned, addresses: scanned.used.map((u) => u.address) };
    } catch (error) {
      throw new ProviderError(
        'provider_unavailable',
        `Bitcoin chain data is unavailable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/** Net effect of a transaction on the wallet: what it received minus what it spent; `now` dates it while unconfirmed. */
function walletTransaction(tx: ChainTx, mine: Set<string>, now: number): ProviderTransaction {
  const spent = tx.inputs.reduce(
    (sum, input) => sum + (input.prevout?.address && mine.has(input.prevout.address) ? input.prevout.value : 0n),
    0n,
  );
  const received = tx.outputs.reduce((sum, output) => sum + (output.address && mine.has(output.address) ? output.value : 0n), 0n);
  const paidFee = spent > 0n;
  // Outgoing amounts exclude the fee, which is shown separately.
  const net = paidFee ? received - spent + tx.fee : received;
  const allOutputsMine = tx.outputs.every((o) => o.address !== undefined && mine.has(o.address));
  const type: ProviderTransaction['type'] = paidFee && allOutputsMine ? 'transfer' : net >= 0n && !paidFee ? 'deposit' : 'withdrawal';
  return {
    ref: tx.txid,
    type,
    asset: 'BTC',
    amount: formatUnits(type === 'transfer' ? 0n : net, SATS),
    fee: paidFee ? formatUnits(tx.fee, SATS) : null,
    feeAsset: paidFee ? 'BTC' : null,
    occurredAt: tx.status.confirmed ? tx.status.blockTime : now,
    status: tx.status.confirmed ? 'completed' : 'pending',
    txHash: tx.txid,
    description: type === 'transfer' ? 'Between addresses of this wallet' : null,
  };
}

function displayName(wallet: WalletDescriptor): string {
  if (wallet.source === 'address') {
    const address = /addr\(([^)]+)\)/.exec(wallet.descriptor)?.[1] ?? wallet.descriptor;
    return `Bitcoin address ${address.slice(0, 8)}…${address.slice(-6)}`;
  }
  const kind: Record<string, string> = {
    p2pkh: 'legacy',
    p2sh: 'P2SH',
    p2wpkh: 'native segwit',
    p2wsh: 'segwit multisig',
    p2tr: 'taproot',
  };
  return `Bitcoin wallet (${kind[wallet.addressType] ?? wallet.addressType})`;
}

function networkLabel(network: NetworkName): string {
  return network === 'mainnet' ? 'bitcoin' : `bitcoin-${network}`;
}
