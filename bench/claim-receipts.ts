/**
 * Claim receipt checking throughput: `ownproof verify-claim --batch` (a JWS check, then the
 * Bitcoin proof re-verified from the receipt) against the two things it is made of, measured in
 * the same run: the raw Ed25519 signature check (node:crypto) over the same JWS signing inputs,
 * and the message-signature verifier alone on the same Bitcoin proofs.
 *
 *   node --import tsx bench/claim-receipts.ts [--ms=3000]
 *
 * The receipts are made here with a generated key (no database): P2WPKH address claims with
 * BIP-322 simple signatures over real challenge messages, each receipt distinct.
 */
import { spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, verify as ed25519Verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JWK } from 'jose';
import { makeWallet } from '../src/bitcoin/message/fixtures/signers.js';
import { signMessage } from '../src/bitcoin/message/sign-message.js';
import { verifyMessage } from '../src/bitcoin/message/verify-message.js';
import type { ClaimStatement } from '../src/verify/claims/claim.schemas.js';
import { challengeMessage, receiptVerifier, verificationKeys } from '@ownproof/verify';
import { signReceipt } from '../src/verify/claims/receipt.js';
import { median } from './median.js';

const BIN = fileURLToPath(new URL('../bin/ownproof.js', import.meta.url));
const ISSUER = 'https://ownproof.example';

export interface ReceiptBenchResult {
  receipts: number;
  /** verify-claim --batch, end to end in its own process, its start-up subtracted. */
  cli_per_s: number;
  /** receiptVerifier in this process (what the CLI runs per line). */
  in_process_per_s: number;
  /** node:crypto Ed25519 verify of the same signing inputs. */
  raw_ed25519_per_s: number;
  /** verifyMessage on the same Bitcoin proofs. */
  bitcoin_verify_per_s: number;
  /** in-process receipt rate over the rate of doing both checks back to back (1 / (1/raw + 1/bitcoin)). */
  in_process_vs_both: number;
  cli_vs_in_process: number;
}

/** `count` distinct receipts signed with a key generated here, the proofs inside them and the key set that checks them. */
export async function makeReceipts(count: number) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const kid = 'rk_bench';
  const privateJwk = privateKey.export({ format: 'jwk' }) as JWK;
  const publicJwk = { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'EdDSA', use: 'sig' };
  const receipts: string[] = [];
  const proofs: { address: string; message: string; signature: string }[] = [];
  for (let i = 0; i < count; i++) {
    const wallet = makeWallet('p2wpkh', 'mainnet');
    const message = challengeMessage({
      service: ISSUER,
      requester: 'Bench Lending',
      accountHolderId: `ah_bench${i}`,
      subject: { type: 'address', address: wallet.address },
      signingAddress: wallet.address,
      signingPath: null,
      nonce: `nonce${i}`,
      issuedAt: 1_790_000_000,
      expiresAt: 1_790_000_900,
    });
    const signature = signMessage(wallet, message);
    const claim: ClaimStatement = {
      id: `clm_bench${i}`,
      account_holder_id: `ah_bench${i}`,
      subject: { type: 'address', address: wallet.address },
      address_type: 'p2wpkh',
      network: 'mainnet',
      label: null,
      proof: { format: 'bip322-simple', message, address: wallet.address, signature },
      verified_at: 1_790_000_100,
      chain: { height: 900_000, block_hash: '00'.repeat(32) },
      livemode: true,
    };
    receipts.push(await signReceipt({ kid, privateJwk }, { iss: ISSUER, claim }));
    proofs.push({ address: wallet.address, message, signature });
  }
  return { receipts, proofs, jwks: { keys: [publicJwk] }, publicKey: createPublicKey({ key: publicJwk as never, format: 'jwk' }) };
}

/** Calls `fn` for about `ms`, round-robin over the inputs, and returns calls per second. */
async function rate(fn: (i: number) => unknown, ms: number): Promise<number> {
  for (let i = 0; i < 5; i++) await fn(i);
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let k = 0; k < 10; k++) await fn(calls++);
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return (calls / elapsed) * 1000;
}

/** Seconds `ownproof verify-claim --batch` takes for these receipts, process start included. */
function runCli(receipts: string[], jwksFile: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'verify-claim', '--batch', '--jwks', jwksFile], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = out.trim().split('\n');
      if (code !== 0 || lines.length !== receipts.length || lines.some((line) => !line.includes('"valid":true'))) {
        reject(new Error(`verify-claim --batch failed (exit ${code}, ${lines.length} verdicts)`));
        return;
      }
      resolve((performance.now() - started) / 1000);
    });
    child.stdin.end(`${receipts.join('\n')}\n`);
  });
}

export async function runReceiptBench(options: { durationMs?: number; receipts?: number } = {}): Promise<ReceiptBenchResult> {
  const count = options.receipts ?? 2000;
  const { receipts, proofs, jwks, publicKey } = await makeReceipts(count);
  // The JWS signing input (header.payload) and signature of each receipt, for the raw check.
  const raw = receipts.map((receipt) => {
    const [header, payload, signature] = receipt.split('.') as [string, string, string];
    return { data: Buffer.from(`${header}.${payload}`), signature: Buffer.from(signature, 'base64url') };
  });
  const verify = receiptVerifier(verificationKeys(jwks));
  for (const receipt of receipts.slice(0, 3)) if (!(await verify(receipt)).valid) throw new Error('bench receipt does not verify');

  const fns = [
    (i: number) => verify(receipts[i % count] as string),
    (i: number) => {
      const r = raw[i % count]!;
      if (!ed25519Verify(null, r.data, publicKey, r.signature)) throw new Error('raw check failed');
    },
    (i: number) => {
      if (!verifyMessage(proofs[i % count]!).valid) throw new Error('bitcoin check failed');
    },
  ];
  const rounds = 5;
  const perRound: number[][] = fns.map(() => []);
  const slice = (options.durationMs ?? 3000) / rounds / fns.length;
  for (let r = 0; r < rounds; r++) for (const [k, fn] of fns.entries()) perRound[k]!.push(await rate(fn, slice));
  const [inProcess, rawEd25519, bitcoin] = perRound.map(median) as [number, number, number];

  // The CLI: all receipts, and a single one (process start-up, key set, tsx), three times each.
  const dir = mkdtempSync(path.join(tmpdir(), 'ownproof-bench-receipts-'));
  const jwksFile = path.join(dir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(jwks));
  const full: number[] = [];
  const one: number[] = [];
  for (let r = 0; r < 3; r++) {
    one.push(await runCli(receipts.slice(0, 1), jwksFile));
    full.push(await runCli(receipts, jwksFile));
  }
  const cli = (count - 1) / Math.max(1e-6, median(full) - median(one));
  const both = 1 / (1 / rawEd25519 + 1 / bitcoin);
  const round = (n: number) => Math.round(n);
  return {
    receipts: count,
    cli_per_s: round(cli),
    in_process_per_s: round(inProcess),
    raw_ed25519_per_s: round(rawEd25519),
    bitcoin_verify_per_s: round(bitcoin),
    in_process_vs_both: Math.round((inProcess / both) * 100) / 100,
    cli_vs_in_process: Math.round((cli / inProcess) * 100) / 100,
  };
}

export function formatReceiptBench(result: ReceiptBenchResult): string {
  return [
    `receipts checked per second (P2WPKH, BIP-322 simple; ${result.receipts} distinct receipts)`,
    `  verify-claim --batch (own process, start-up subtracted): ${result.cli_per_s}/s`,
    `  receiptVerifier in this process:                       ${result.in_process_per_s}/s`,
    `  raw Ed25519 verify (node:crypto), same JWS inputs:       ${result.raw_ed25519_per_s}/s`,
    `  message-signature verifier, same Bitcoin proofs:         ${result.bitcoin_verify_per_s}/s`,
    `  in-process ÷ (raw Ed25519 and verifier back to back):    ${result.in_process_vs_both}`,
    `  CLI ÷ in-process:                                        ${result.cli_vs_in_process}`,
  ].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const msArg = process.argv.find((a) => a.startsWith('--ms='));
  console.log(formatReceiptBench(await runReceiptBench(msArg ? { durationMs: Number(msArg.slice(5)) } : {})));
}
