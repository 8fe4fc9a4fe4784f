import { addressFromScript, parseAddress } from '../address.js';
import type { NetworkName } from '../network.js';
import type { ChainSource, ChainTx } from './chain-source.js';

/**
 * The chain source as seen with another encoding of the same scripts: test networks share one
 * simulated chain in test mode, so a regtest or signet address is looked up by its script.
 */
export function chainOnNetwork(source: ChainSource, network: NetworkName): ChainSource {
  if (source.network === network) return source;
  const toSource = (address: string) => convert(address, source.network);
  const toWallet = (address: string) => convert(address, network);
  const rekey = <T>(map: Map<string, T>): Map<string, T> => new Map([...map].map(([address, value]) => [toWallet(address), value]));
  const relabel = (tx: ChainTx): ChainTx => ({
    ...tx,
    inputs: tx.inputs.map((input) =>
      input.prevout?.address ? { ...input, prevout: { ...input.prevout, address: toWallet(input.prevout.address) } } : input,
    ),
    outputs: tx.outputs.map((output) => (output.address ? { ...output, address: toWallet(output.address) } : output)),
  });
  return {
    network,
    getTip: () => source.getTip(),
    getBlock: (height) => source.getBlock(height),
    getHeightAtTime: (time) => source.getHeightAtTime(time),
    getTransaction: async (txid) => {
      const tx = await source.getTransaction(txid);
      return tx && relabel(tx);
    },
    getAddressStats: async (addresses) => rekey(await source.getAddressStats(addresses.map(toSource))),
    getAddressHistory: async (addresses, opts) => {
      const map = await source.getAddressHistory(addresses.map(toSource), opts);
      return new Map([...map].map(([address, txs]) => [toWallet(address), txs.map(relabel)]));
    },
    streamAddressHistory: async function* (address, opts) {
      for await (const tx of source.streamAddressHistory(toSource(address), opts)) yield relabel(tx);
    },
    getUtxos: async (addresses) => {
      const map = await source.getUtxos(addresses.map(toSource));
      return new Map([...map].map(([address, utxos]) => [toWallet(address), utxos.map((u) => ({ ...u, address: toWallet(u.address) }))]));
    },
    getBalance: async (addresses, at, opts) => {
      const balance = await source.getBalance(addresses.map(toSource), at, opts);
      return { ...balance, byAddress: rekey(balance.byAddress) };
    },
  };
}

function convert(address: string, network: NetworkName): string {
  const parsed = parseAddress(address);
  if (!parsed.ok) return address;
  return addressFromScript(parsed.address.scriptPubKey, network) ?? address;
}
