import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainSourceError } from '../chain-source.js';
import { SimulatedChain } from '../sim/simulated-chain.js';
import type { SimTx } from '../sim/chain-state.js';
import { chainTx } from '../sim/sim-chain-source.js';
import { parseEsploraAddress, parseEsploraBlock, parseEsploraTx, parseEsploraUtxos, renderEsploraTx } from './json.js';

function onlyTypedErrors(parse: () => unknown): void {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(ChainSourceError);
    expect((err as ChainSourceError).code).toBe('bad_response');
  }
}

describe('Esplora JSON parsing', () => {
  const sim = new SimulatedChain({ seed: 'json', premineBlocks: 101 });
  const address = sim.newAddress();
  const txid = sim.fund(address, 12_345n);
  const tx = sim.transaction(txid) as SimTx;
  const rendered = renderEsploraTx(chainTx(tx), tx);

  it('reads back what the simulated server renders', () => {
    expect(parseEsploraTx(JSON.parse(JSON.stringify(rendered)))).toEqual(chainTx(tx));
  });

  it('turns any malformed value into a bad_response error and nothing else', () => {
    const mutated = fc
      .tuple(fc.constantFrom('txid', 'vin', 'vout', 'fee', 'status', 'size', 'version'), fc.anything())
      .map(([key, value]) => ({ ...rendered, [key]: value }));
    fc.assert(
      fc.property(fc.oneof(fc.anything(), mutated), (value) => {
        onlyTypedErrors(() => parseEsploraTx(value));
        onlyTypedErrors(() => parseEsploraBlock(value));
        onlyTypedErrors(() => parseEsploraAddress(value, address));
        onlyTypedErrors(() => parseEsploraUtxos(value, address));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses amounts that are not exact non-negative integers', () => {
    const withFloat = { ...rendered, vout: [{ scriptpubkey: '51', value: 0.1 }] };
    expect(() => parseEsploraTx(withFloat)).toThrow(ChainSourceError);
    const negative = { ...rendered, fee: -1 };
    expect(() => parseEsploraTx(negative)).toThrow(ChainSourceError);
  });
});
