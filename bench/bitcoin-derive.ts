/**
 * Address derivation from an extended public key, per script type: how many receive addresses per
 * second `deriveWalletAddress` produces (child key derivation, script, address encoding), next to
 * the bare @scure/bip32 child derivation it is built on. Runnable alone:
 * `node --import tsx bench/bitcoin-derive.ts [--ms=1000]`.
 */
import { fileURLToPath } from 'node:url';
import { sha256 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { deriveWalletAddress, parseWalletDescriptor, type WalletDescriptor } from '../src/bitcoin/keys/wallet-descriptor.js';

/** One measured line. */
export interface Row {
  name: string;
  /** Public-key derivations per address (multisig derives one per cosigner). */
  keys_per_address: number;
  addresses: number;
  seconds: number;
  per_second: number;
}

function accountKey(label: string): HDKey {
  return HDKey.fromMasterSeed(sha256(new TextEncoder().encode(label))).derive("m/48'/0'/0'/2'");
}

function walletOf(descriptor: string): WalletDescriptor {
  const parsed = parseWalletDescriptor(descriptor);
  if (!parsed.ok) throw new Error(`${descriptor}: ${parsed.error.reason}`);
  return parsed.value;
}

/** Runs `step(i)` for i = 0, 1, ... for about `ms` milliseconds, after a short warm-up. */
function measure(step: (i: number) => void, ms: number): { count: number; seconds: number } {
  for (let i = 0; i < 50; i++) step(1_000_000 + i);
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < ms) {
    for (let k = 0; k < 25; k++) step(count++);
  }
  return { count, seconds: (performance.now() - started) / 1000 };
}

/** Measures every script type; `ms` is the time spent on each. */
export async function runDeriveBench(opts: { ms?: number } = {}): Promise<Row[]> {
  const ms = opts.ms ?? 1_000;
  const [a, b, c] = ['bench-a', 'bench-b', 'bench-c'].map((label) => accountKey(label).publicExtendedKey) as [string, string, string];
  const cases: Array<{ name: string; keys: number; descriptor: string }> = [
    { name: 'pkh (xpub, BIP-44)', keys: 1, descriptor: a },
    { name: 'sh(wpkh) (BIP-49)', keys: 1, descriptor: `sh(wpkh(${a}/<0;1>/*))` },
    { name: 'wpkh (BIP-84)', keys: 1, descriptor: `wpkh(${a}/<0;1>/*)` },
    { name: 'tr (BIP-86)', keys: 1, descriptor: `tr(${a}/<0;1>/*)` },
    { name: 'wsh(sortedmulti 2-of-3)', keys: 3, descriptor: `wsh(sortedmulti(2,${a}/<0;1>/*,${b}/<0;1>/*,${c}/<0;1>/*))` },
    { name: 'sh(wsh(sortedmulti 2-of-3))', keys: 3, descriptor: `sh(wsh(sortedmulti(2,${a}/<0;1>/*,${b}/<0;1>/*,${c}/<0;1>/*)))` },
  ];
  const rows: Row[] = [];
  const base = HDKey.fromExtendedKey(a).deriveChild(0);
  const raw = measure((i) => void base.deriveChild(i).publicKey, ms);
  rows.push({
    name: 'bare BIP-32 child derivation (@scure/bip32)',
    keys_per_address: 1,
    addresses: raw.count,
    seconds: raw.seconds,
    per_second: raw.count / raw.seconds,
  });
  for (const c of cases) {
    const wallet = walletOf(c.descriptor);
    const run = measure((i) => void deriveWalletAddress(wallet, 'receive', i).address, ms);
    rows.push({ name: c.name, keys_per_address: c.keys, addresses: run.count, seconds: run.seconds, per_second: run.count / run.seconds });
  }
  return rows;
}

/** The rows as a Markdown table. */
export function formatDeriveRows(rows: Row[]): string {
  const lines = ['| script type | keys/address | addresses | seconds | addresses/s |', '|---|---:|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.keys_per_address} | ${r.addresses} | ${r.seconds.toFixed(2)} | ${Math.round(r.per_second).toLocaleString('en-US')} |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const msArg = process.argv.find((arg) => arg.startsWith('--ms='));
  const rows = await runDeriveBench(msArg ? { ms: Number(msArg.slice(5)) } : {});
  console.log(formatDeriveRows(rows));
}
