/**
 * Message-signature verification throughput: ours versus bip322-js on the same inputs, and
 * versus the raw signature-check rate of the secp256k1 backend we use (libsecp256k1: the native
 * build for ECDSA, the WASM build for Schnorr; see src/bitcoin/message/secp256k1.ts), all measured
 * in the same run.
 *
 *   node --import tsx bench/bitcoin-verify.ts [--ms=600]
 *
 * Every input is distinct (fresh keys and messages, cycled) and every verdict is checked, so no
 * result can be reused from one call to the next.
 */
import { fileURLToPath } from 'node:url';
import { Verifier } from 'bip322-js';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { makeWallet, signBip322, signLegacy, type WalletType } from '../src/bitcoin/message/fixtures/signers.js';
import { ECDSA_BACKEND, rawBackend, SECP256K1_BACKEND } from '../src/bitcoin/message/secp256k1.js';
import { verifyMessage } from '../src/bitcoin/message/verify-message.js';
import { median } from './median.js';

export interface Row {
  /** What is verified: address type and signature format. */
  case: string;
  /** Our verifications per second. */
  ours_per_s: number;
  /** bip322-js on the same inputs, where it can verify them at all. */
  bip322js_per_s: number | null;
  ours_vs_bip322js: number | null;
  /** Signature checks one verification needs (2 for a 2-of-3 multisig; a recovery for legacy). */
  checks: number;
  /** Raw backend rate for that kind of check (ECDSA verify, Schnorr verify or ECDSA recover). */
  raw_basis: 'ecdsa-verify' | 'schnorr-verify' | 'ecdsa-recover';
  raw_per_s: number;
  /** ours / (raw / checks): 1.0 would be the backend's speed with zero overhead. */
  ours_vs_raw: number;
  /** For legacy rows: ours against raw ECDSA *verify* too, the rate the target names. */
  ours_vs_raw_verify: number;
  meets_targets: boolean;
}

export interface BenchOptions {
  /** Measuring time per rate, in milliseconds, split over interleaved rounds (default 600). */
  durationMs?: number;
  /** Distinct signed inputs per case (default 32). */
  inputs?: number;
}

interface Input {
  address: string;
  message: string;
  signature: string;
}

interface Case {
  name: string;
  checks: number;
  basis: Row['raw_basis'];
  inputs: Input[];
  /** Whether bip322-js can verify these inputs (simple single-key and legacy only). */
  peer: boolean;
}

/** Calls `fn` for about `ms` and returns calls per second. */
function rate(fn: (i: number) => void, ms: number): number {
  for (let i = 0; i < 5; i++) fn(i);
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let k = 0; k < 10; k++) fn(calls++);
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return (calls / elapsed) * 1000;
}

function bip322Case(
  name: string,
  type: WalletType,
  variant: 'simple' | 'full',
  checks: number,
  basis: Row['raw_basis'],
  count: number,
  peer: boolean,
): Case {
  const inputs = Array.from({ length: count }, (_, i) => {
    const wallet = makeWallet(type);
    const message = `bench ${name} #${i}`;
    // Unprefixed, as wallets emit it, so that bip322-js reads the very same string.
    return { address: wallet.address, message, signature: signBip322(wallet, message, variant, { prefix: false }) };
  });
  return { name, checks, basis, inputs, peer };
}

function legacyCase(name: string, type: 'p2pkh' | 'p2wpkh' | 'p2sh-p2wpkh', count: number): Case {
  const header = type === 'p2pkh' ? 'compressed' : type;
  const inputs = Array.from({ length: count }, (_, i) => {
    const wallet = makeWallet(type);
    const message = `bench ${name} #${i}`;
    return { address: wallet.address, message, signature: signLegacy(wallet.privateKeys[0]!, message, header) };
  });
  return { name, checks: 1, basis: 'ecdsa-recover', inputs, peer: true };
}

function buildCases(count: number): Case[] {
  // The 2-of-3 multisig inputs are signed by the first two keys. OP_CHECKMULTISIG, as in Bitcoin
  // Core, tries the last signature against the last key first, so each such verification makes
  // three ECDSA checks; the row is still compared with raw ÷ 2 (two signatures), which caps it at
  // about 67% of raw.
  return [
    bip322Case('P2WPKH simple', 'p2wpkh', 'simple', 1, 'ecdsa-verify', count, true),
    bip322Case('P2SH-P2WPKH simple', 'p2sh-p2wpkh', 'simple', 1, 'ecdsa-verify', count, true),
    bip322Case('P2TR simple', 'p2tr', 'simple', 1, 'schnorr-verify', count, true),
    bip322Case('P2WSH 2-of-3 simple', 'p2wsh-multi', 'simple', 2, 'ecdsa-verify', count, false),
    bip322Case('P2PKH full', 'p2pkh', 'full', 1, 'ecdsa-verify', count, false),
    bip322Case('P2WPKH full', 'p2wpkh', 'full', 1, 'ecdsa-verify', count, false),
    bip322Case('P2SH-P2WPKH full', 'p2sh-p2wpkh', 'full', 1, 'ecdsa-verify', count, false),
    bip322Case('P2TR full', 'p2tr', 'full', 1, 'schnorr-verify', count, false),
    bip322Case('P2WSH 2-of-3 full', 'p2wsh-multi', 'full', 2, 'ecdsa-verify', count, false),
    legacyCase('P2PKH legacy', 'p2pkh', count),
    legacyCase('P2WPKH legacy (BIP-137)', 'p2wpkh', count),
    legacyCase('P2SH-P2WPKH legacy (BIP-137)', 'p2sh-p2wpkh', count),
  ];
}

interface RawInputs {
  digest: Uint8Array;
  pub: Uint8Array;
  xonly: Uint8Array;
  ecdsa: Uint8Array;
  recovery: 0 | 1;
  schnorr: Uint8Array;
}

function rawInputs(count: number): RawInputs[] {
  return Array.from({ length: count }, (_, i) => {
    const sk = secp256k1.utils.randomSecretKey();
    const digest = sha256(new TextEncoder().encode(`raw ${i}`));
    const rec = secp256k1.sign(digest, sk, { prehash: false, format: 'recovered' });
    return {
      digest,
      pub: secp256k1.getPublicKey(sk, true),
      xonly: schnorr.getPublicKey(sk),
      ecdsa: rec.slice(1),
      recovery: rec[0]! as 0 | 1,
      schnorr: schnorr.sign(digest, sk),
    };
  });
}

function must(ok: boolean): void {
  if (!ok) throw new Error('raw check failed');
}

/** One raw backend check of the given kind, on the i-th distinct input. */
function rawCheck(basis: Row['raw_basis'] | 'noble-ecdsa' | 'noble-schnorr', inputs: RawInputs[]): (i: number) => void {
  const at = (i: number): RawInputs => inputs[i % inputs.length]!;
  switch (basis) {
    case 'ecdsa-verify':
      return (i) => must(rawBackend.ecdsaVerify(at(i).digest, at(i).pub, at(i).ecdsa));
    case 'schnorr-verify':
      return (i) => must(rawBackend.schnorrVerify(at(i).digest, at(i).xonly, at(i).schnorr));
    case 'ecdsa-recover':
      return (i) => must(rawBackend.ecdsaRecover(at(i).digest, at(i).ecdsa, at(i).recovery, true) !== null);
    case 'noble-ecdsa':
      return (i) => must(secp256k1.verify(at(i).ecdsa, at(i).digest, at(i).pub, { prehash: false }));
    case 'noble-schnorr':
      return (i) => must(schnorr.verify(at(i).schnorr, at(i).digest, at(i).xonly));
  }
}

/**
 * Rates of several functions measured in interleaved slices (A B C A B C ...), so that load from
 * other processes affects all of them alike; returns the median rate of each and the median of
 * the per-round ratios of the first to the others.
 */
function interleaved(fns: ((i: number) => void)[], totalMs: number, rounds = 7): { rates: number[]; ratios: number[] } {
  const slice = totalMs / rounds;
  const perRound: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) fns.forEach((fn, k) => perRound[k]!.push(rate(fn, slice)));
  const rates = perRound.map(median);
  const ratios = fns.map((_, k) => median(perRound[0]!.map((ours, r) => ours / perRound[k]![r]!)));
  return { rates, ratios };
}

/**
 * Measures verification throughput per address type and format, ours and bip322-js's on the
 * same inputs, against the backend's raw rates, interleaved within the same run.
 */
export async function runVerifyBench(opts: BenchOptions = {}): Promise<Row[]> {
  const ms = opts.durationMs ?? 600;
  const count = opts.inputs ?? 32;
  const cases = buildCases(count);
  const raws = rawInputs(count);
  const rows: Row[] = [];
  for (const c of cases) {
    const at = (i: number): Input => c.inputs[i % c.inputs.length]!;
    const ours = (i: number): void => {
      if (!verifyMessage(at(i)).valid) throw new Error(`bench input for ${c.name} did not verify`);
    };
    const peer = (i: number): void => {
      const { address, message, signature } = at(i);
      if (!Verifier.verifySignature(address, message, signature)) throw new Error(`bip322-js refused a ${c.name} input`);
    };
    const fns = [ours, rawCheck(c.basis, raws), rawCheck('ecdsa-verify', raws)];
    if (c.peer) fns.push(peer);
    const { rates, ratios } = interleaved(fns, ms * fns.length);
    const vsRaw = ratios[1]! * c.checks;
    const vsPeer = c.peer ? ratios[3]! : null;
    rows.push({
      case: c.name,
      ours_per_s: Math.round(rates[0]!),
      bip322js_per_s: c.peer ? Math.round(rates[3]!) : null,
      ours_vs_bip322js: vsPeer === null ? null : round2(vsPeer),
      checks: c.checks,
      raw_basis: c.basis,
      raw_per_s: Math.round(rates[1]!),
      ours_vs_raw: round2(vsRaw),
      ours_vs_raw_verify: round2(ratios[2]! * c.checks),
      meets_targets: vsRaw >= 0.5 && (vsPeer === null || vsPeer >= 10),
    });
  }
  const backend = interleaved(
    (['ecdsa-verify', 'schnorr-verify', 'ecdsa-recover', 'noble-ecdsa', 'noble-schnorr'] as const).map((b) => rawCheck(b, raws)),
    ms * 3,
  ).rates;
  rows.push(rawRow(`raw ECDSA verify (${ECDSA_BACKEND})`, backend[0]!, 'ecdsa-verify'));
  rows.push(rawRow('raw Schnorr verify (tiny-secp256k1 WASM)', backend[1]!, 'schnorr-verify'));
  rows.push(rawRow(`raw ECDSA recover (${ECDSA_BACKEND})`, backend[2]!, 'ecdsa-recover'));
  rows.push(rawRow('raw ECDSA verify (@noble/curves, not used)', backend[3]!, 'ecdsa-verify'));
  rows.push(rawRow('raw Schnorr verify (@noble/curves, not used)', backend[4]!, 'schnorr-verify'));
  return rows;
}

function rawRow(name: string, perS: number, basis: Row['raw_basis']): Row {
  return {
    case: name,
    ours_per_s: Math.round(perS),
    bip322js_per_s: null,
    ours_vs_bip322js: null,
    checks: 1,
    raw_basis: basis,
    raw_per_s: Math.round(perS),
    ours_vs_raw: 1,
    ours_vs_raw_verify: 1,
    meets_targets: true,
  };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Renders rows as a plain-text table. */
export function formatRows(rows: Row[]): string {
  const header = ['case', 'ours/s', 'bip322-js/s', '× bip322-js', 'checks', 'raw basis', 'raw/s', 'of raw', 'of raw verify', 'targets'];
  const body = rows.map((r) => [
    r.case,
    String(r.ours_per_s),
    r.bip322js_per_s === null ? 'n/a' : String(r.bip322js_per_s),
    r.ours_vs_bip322js === null ? 'n/a' : `${r.ours_vs_bip322js}×`,
    String(r.checks),
    r.raw_basis,
    String(r.raw_per_s),
    `${Math.round(r.ours_vs_raw * 100)}%`,
    `${Math.round(r.ours_vs_raw_verify * 100)}%`,
    r.case.startsWith('raw ') ? '' : r.meets_targets ? 'met' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const msArg = process.argv.find((a) => a.startsWith('--ms='));
  const rows = await runVerifyBench(msArg ? { durationMs: Number(msArg.slice(5)) } : {});
  console.log(`Message-signature verification, backend ${SECP256K1_BACKEND}, Node ${process.version}`);
  console.log(formatRows(rows));
  console.log(
    '\n"of raw" = ours ÷ (raw rate of the check it needs ÷ checks per verification); targets: ≥ 50% of raw and ≥ 10× bip322-js where bip322-js can verify the input.' +
      '\nLegacy rows use public-key recovery; "of raw verify" compares them with plain ECDSA verification as well.',
  );
}
