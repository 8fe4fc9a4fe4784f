import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { OutScript, Transaction } from '@scure/btc-signer';
import { beforeAll, describe, expect, it } from 'vitest';
import { SimulatedChain } from './simulated-chain.js';

/** Bitcoin Core's regtest genesis hash (chainparams.cpp). */
const REGTEST_GENESIS_HASH = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

const sha256d = (b: Uint8Array): Uint8Array => sha256(sha256(b));
const reversedHex = (b: Uint8Array): string => hex.encode(Uint8Array.from(b).reverse());

/** An independent merkle root, straight from the definition. */
function merkle(txids: string[]): string {
  let level = txids.map((t) => hex.decode(t).reverse());
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1] as Uint8Array);
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(sha256d(new Uint8Array([...(level[i] as Uint8Array), ...(level[i + 1] as Uint8Array)])));
    level = next;
  }
  return reversedHex(level[0] as Uint8Array);
}

function script(sim: SimulatedChain, txid: string): { sim: SimulatedChain; tx: ReturnType<typeof Transaction.fromRaw> } {
  const raw = sim.transaction(txid)?.raw as Uint8Array;
  return { sim, tx: Transaction.fromRaw(raw, { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true }) };
}

function build(seed = 'determinism'): { sim: SimulatedChain; txids: string[] } {
  const sim = new SimulatedChain({ seed });
  const a = sim.newAddress();
  const b = sim.newAddress('p2tr');
  const txids = [
    sim.fund(a, 80_000n, { time: sim.startTime + 100 }),
    sim.spend(a, b, 20_000n),
    sim.spend(b, sim.newAddress('p2pkh'), 5_000n, { mempool: true }),
  ];
  return { sim, txids };
}

describe('the simulated chain', () => {
  let sim: SimulatedChain;
  let txids: string[];
  beforeAll(() => {
    ({ sim, txids } = build());
  });

  it('starts from the real regtest genesis block', () => {
    expect(sim.block(0)?.hash).toBe(REGTEST_GENESIS_HASH);
    expect(reversedHex(sha256d(sim.block(0)?.header as Uint8Array))).toBe(REGTEST_GENESIS_HASH);
  });

  it('is deterministic: the same seed and calls give the same txids and block hashes', () => {
    const again = build();
    expect(again.txids).toEqual(txids);
    expect(again.sim.block(again.sim.height)?.hash).toBe(sim.block(sim.height)?.hash);
    expect(build('another seed').txids[0]).not.toBe(txids[0]);
  });

  it('computes txids from the serialization, as an independent decoder does', () => {
    for (const txid of [...txids, ...(sim.block(sim.height)?.txids ?? [])]) {
      expect(script(sim, txid).tx.id).toBe(txid);
    }
  });

  it('links every block to its predecessor with a valid proof of work and merkle root', () => {
    const target = 0x7fffffn << 232n;
    for (let h = 1; h <= sim.height; h++) {
      const block = sim.block(h);
      const header = block?.header as Uint8Array;
      expect(reversedHex(sha256d(header))).toBe(block?.hash);
      expect(BigInt(`0x${reversedHex(sha256d(header))}`) <= target).toBe(true);
      expect(reversedHex(header.subarray(4, 36))).toBe(sim.block(h - 1)?.hash);
      expect(reversedHex(header.subarray(36, 68))).toBe(merkle(block?.txids as string[]));
      expect(new DataView(header.buffer, header.byteOffset).getUint32(68, true)).toBe(block?.time);
    }
  });

  it('puts the BIP-34 height and the BIP-141 witness commitment in every coinbase', () => {
    const block = sim.block(sim.height);
    const coinbase = sim.transaction(block?.txids[0] as string);
    const scriptSig = coinbase?.scriptSigs[0] as string;
    expect(scriptSig.startsWith(`02${hex.encode(Uint8Array.of(sim.height & 0xff, sim.height >> 8))}`)).toBe(true);
    const wtxids = (block?.txids.slice(1) ?? []).map((t) => hex.decode(sim.transaction(t)?.wtxid as string).reverse());
    const root = hex.decode(merkle([hex.encode(new Uint8Array(32)), ...wtxids.map((w) => reversedHex(w))])).reverse();
    const commitment = hex.encode(sha256d(new Uint8Array([...root, ...new Uint8Array(32)])));
    expect(coinbase?.outputs.some((o) => o.scriptPubKey === `6a24aa21a9ed${commitment}`)).toBe(true);
  });

  it('signs P2WPKH inputs with valid ECDSA signatures over the BIP-143 sighash', () => {
    const { tx } = script(sim, txids[1] as string);
    const input = sim.transaction(txids[1] as string)?.inputs[0];
    const [signature, pubkey] = tx.getInput(0).finalScriptWitness as Uint8Array[];
    const scriptCode = OutScript.encode({ type: 'pkh', hash: ripemd160(sha256(pubkey as Uint8Array)) });
    const sighash = tx.preimageWitnessV0(0, scriptCode, 1, input?.prevout?.value as bigint);
    const der = (signature as Uint8Array).subarray(0, -1);
    expect(secp256k1.verify(der, sighash, pubkey as Uint8Array, { prehash: false, format: 'der' })).toBe(true);
    expect(hex.encode(ripemd160(sha256(pubkey as Uint8Array)))).toBe(input?.prevout?.scriptPubKey.slice(4));
  });

  it('signs P2TR key-path inputs with valid Schnorr signatures over the BIP-341 sighash', () => {
    const { tx } = script(sim, txids[2] as string);
    const input = sim.transaction(txids[2] as string)?.inputs[0];
    const prevScript = hex.decode(input?.prevout?.scriptPubKey as string);
    const sighash = tx.preimageWitnessV1(0, [prevScript], 0, [input?.prevout?.value as bigint]);
    const [signature] = tx.getInput(0).finalScriptWitness as Uint8Array[];
    expect(schnorr.verify(signature as Uint8Array, sighash, prevScript.subarray(2))).toBe(true);
  });

  it('keeps mempool transactions unconfirmed until a block is mined', async () => {
    const pending = txids[2] as string;
    expect((await sim.getTransaction(pending))?.status.confirmed).toBe(false);
    expect(sim.mempoolTxids).toContain(pending);
    const local = build('mempool').sim;
    const [mempoolTxid] = local.mempoolTxids;
    const block = local.mine({ time: local.startTime + 5_000 });
    expect(block.txids).toContain(mempoolTxid);
    expect((await local.getTransaction(mempoolTxid as string))?.status).toEqual({
      confirmed: true,
      blockHeight: block.height,
      blockHash: block.hash,
      blockTime: local.startTime + 5_000,
    });
  });

  it('accounts fees as inputs minus outputs and credits them to the coinbase', async () => {
    const spend = await sim.getTransaction(txids[1] as string);
    const inValue = spend?.inputs.reduce((s, i) => s + (i.prevout?.value ?? 0n), 0n) ?? 0n;
    const outValue = spend?.outputs.reduce((s, o) => s + o.value, 0n) ?? 0n;
    expect(spend?.fee).toBe(inValue - outValue);
    expect(spend?.fee).toBeGreaterThan(0n);
    const block = sim.block((spend?.status.confirmed && spend.status.blockHeight) as number);
    const coinbase = await sim.getTransaction(block?.txids[0] as string);
    expect(coinbase?.outputs[0]?.value).toBe((50n * 100_000_000n) / 2n + (spend?.fee ?? 0n));
  });

  it('refuses a block time not above the median of the previous 11 blocks', () => {
    const local = new SimulatedChain({ seed: 'mtp' });
    const median = local.block(local.height)?.medianTime as number;
    expect(() => local.mine({ time: median })).toThrow(RangeError);
    expect(local.mine({ time: median + 1 }).time).toBe(median + 1);
  });

  it('dates a block mined now at now, never before the tip, always above the median time past', () => {
    const sim = new SimulatedChain({ seed: 'block-time' });
    const tip = sim.block(sim.height);
    if (!tip) throw new Error('no tip');
    expect(sim.blockTimeAt(tip.time + 86_400)).toBe(tip.time + 86_400);
    // A clock behind the chain (a history built ahead of it) gets the tip's time, which consensus allows.
    expect(sim.blockTimeAt(tip.time - 86_400)).toBe(tip.time);
    expect(sim.mine({ time: sim.blockTimeAt(tip.time - 86_400) }).time).toBe(tip.time);
  });

  it('refuses to spend from an address whose key it does not hold, or more than it has', () => {
    const local = new SimulatedChain({ seed: 'refusals' });
    const stranger = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
    expect(() => local.spend(stranger, local.newAddress(), 1_000n)).toThrow(/holds no key/);
    const poor = local.newAddress();
    local.fund(poor, 1_000n);
    expect(() => local.spend(poor, local.newAddress(), 5_000n)).toThrow(/insufficient funds/);
    expect(() => local.fund('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 1_000n)).toThrow(/not a regtest address/);
  });

  it('gives an address thousands of transactions quickly', async () => {
    const local = new SimulatedChain({ seed: 'bulk' });
    const address = local.newAddress();
    const started = performance.now();
    const many = local.fundMany(address, 2_000, 1_000n, { perBlock: 400 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(new Set(many).size).toBe(2_000);
    expect((await local.getAddressStats([address])).get(address)?.chain).toMatchObject({ txCount: 2_000, fundedSum: 2_000_000n });
    expect(local.block(local.height)?.txCount).toBeLessThanOrEqual(401);
  });

  it('encodes addresses for testnet and signet on request', () => {
    expect(new SimulatedChain({ network: 'testnet', seed: 'tn' }).newAddress()).toMatch(/^tb1q/);
    expect(new SimulatedChain({ network: 'signet', seed: 'tn' }).newAddress('p2pkh')).toMatch(/^[mn]/);
  });
});
