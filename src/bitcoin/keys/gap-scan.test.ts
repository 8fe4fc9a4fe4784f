import { sha256 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChainSource } from '../chain/chain-source.js';
import { SimulatedChain } from '../chain/sim/simulated-chain.js';
import { scanWallet } from './gap-scan.js';
import { deriveWalletAddress, parseWalletDescriptor, type WalletDescriptor } from './wallet-descriptor.js';

const TEST_VERSIONS = { private: 0x04358394, public: 0x043587cf };

function testWallet(label: string): { account: HDKey; wallet: WalletDescriptor } {
  const account = HDKey.fromMasterSeed(sha256(new TextEncoder().encode(label)), TEST_VERSIONS).derive("m/84'/1'/0'");
  const parsed = parseWalletDescriptor(`wpkh(${account.publicExtendedKey}/<0;1>/*)`, { network: 'regtest' });
  if (!parsed.ok) throw new Error(parsed.error.reason);
  return { account, wallet: parsed.value };
}

/** Counts batched calls and their sizes. */
function counting(source: ChainSource): { source: Pick<ChainSource, 'getAddressStats'>; batches: number[] } {
  const batches: number[] = [];
  return {
    batches,
    source: {
      getAddressStats: (addresses) => {
        batches.push(addresses.length);
        return source.getAddressStats(addresses);
      },
    },
  };
}

describe('gap-limit scanning against the simulated chain', () => {
  let sim: SimulatedChain;
  let wallet: WalletDescriptor;
  let account: HDKey;
  const receive = (i: number): string => deriveWalletAddress(wallet, 'receive', i).address;
  const change = (i: number): string => deriveWalletAddress(wallet, 'change', i).address;

  beforeAll(() => {
    sim = new SimulatedChain({ seed: 'gap-scan' });
    ({ wallet, account } = testWallet('gap-scan wallet'));
    sim.fund(receive(0), 50_000n);
    sim.fund(receive(3), 20_000n);
    sim.fund(receive(22), 10_000n);
    sim.fund(receive(45), 5_000n);
    sim.registerKey(account.derive('m/0/0').privateKey as Uint8Array);
    sim.spend(receive(0), sim.newAddress(), 10_000n, { changeAddress: change(0) });
  });

  it('finds used addresses until 20 consecutive unused ones (the default gap)', async () => {
    const scan = await scanWallet(sim, wallet);
    expect(scan.gap).toBe(20);
    expect(scan.receive.used.map((u) => u.index)).toEqual([0, 3, 22]);
    expect(scan.receive.lastUsedIndex).toBe(22);
    expect(scan.receive.nextIndex).toBe(23);
    expect(scan.receive.scanned).toBe(43);
    expect(scan.receive.truncated).toBe(false);
  });

  it('reaches further with a larger gap', async () => {
    const scan = await scanWallet(sim, wallet, { gap: 25 });
    expect(scan.receive.used.map((u) => u.index)).toEqual([0, 3, 22, 45]);
  });

  it('stops earlier with a smaller gap', async () => {
    const scan = await scanWallet(sim, wallet, { gap: 2 });
    expect(scan.receive.used.map((u) => u.index)).toEqual([0]);
    expect(scan.receive.scanned).toBe(3);
  });

  it('scans the change chain and reports its used addresses with their activity', async () => {
    const scan = await scanWallet(sim, wallet);
    expect(scan.change?.used.map((u) => u.index)).toEqual([0]);
    expect(scan.used.map((u) => `${u.chain}/${u.index}`)).toEqual(['receive/0', 'receive/3', 'receive/22', 'change/0']);
    const r0 = scan.used[0];
    expect(r0?.address).toBe(receive(0));
    expect(r0?.stats.chain.txCount).toBe(2);
    expect(r0?.stats.chain.spentCount).toBe(1);
  });

  it('asks the source in batches no larger than the gap', async () => {
    const { source, batches } = counting(sim);
    await scanWallet(source, wallet);
    expect(batches.every((n) => n <= 20)).toBe(true);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(43 + 21);
  });

  it('counts mempool-only activity as use unless told otherwise', async () => {
    const local = new SimulatedChain({ seed: 'gap-scan-mempool' });
    const { wallet: w } = testWallet('mempool wallet');
    local.fund(deriveWalletAddress(w, 'receive', 5).address, 1_000n, { mempool: true });
    expect((await scanWallet(local, w)).receive.used.map((u) => u.index)).toEqual([5]);
    expect((await scanWallet(local, w, { includeMempool: false })).receive.used).toEqual([]);
  });

  it('checks the single address of a non-ranged descriptor once', async () => {
    const address = receive(3);
    const parsed = parseWalletDescriptor(`addr(${address})`, { network: 'regtest' });
    if (!parsed.ok) throw new Error(parsed.error.reason);
    const { source, batches } = counting(sim);
    const scan = await scanWallet(source, parsed.value);
    expect(batches).toEqual([1]);
    expect(scan.receive.used.map((u) => u.address)).toEqual([address]);
  });

  it('stops at the safety bound for a source that reports everything used', async () => {
    const everythingUsed: Pick<ChainSource, 'getAddressStats'> = {
      getAddressStats: async (addresses) =>
        new Map(
          addresses.map((a) => [
            a,
            {
              address: a,
              chain: { txCount: 1, fundedCount: 1, fundedSum: 1n, spentCount: 0, spentSum: 0n },
              mempool: { txCount: 0, fundedCount: 0, fundedSum: 0n, spentCount: 0, spentSum: 0n },
            },
          ]),
        ),
    };
    const scan = await scanWallet(everythingUsed, wallet, { maxAddressesPerChain: 50 });
    expect(scan.receive.truncated).toBe(true);
    expect(scan.receive.scanned).toBe(50);
  });

  it('refuses a gap below 1', async () => {
    await expect(scanWallet(sim, wallet, { gap: 0 })).rejects.toThrow(RangeError);
  });
});
