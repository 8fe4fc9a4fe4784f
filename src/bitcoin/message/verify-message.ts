import { parseAddress, type AddressType, type ParsedAddress } from '../address.js';
import type { NetworkName } from '../network.js';
import { decodeBase64Strict } from './base64.js';
import { verifyFull, verifyProofOfFunds, verifySimple, type Bip322Outcome, type ProvenOutput } from './bip322.js';
import { verifyLegacy } from './legacy.js';
import { decodeTransaction, decodeWitnessStack, isWholeTransaction } from './transaction.js';

export type { ProvenOutput };

/** The signature encodings we recognise. */
export type MessageSignatureFormat = 'bip322-simple' | 'bip322-full' | 'bip322-pof' | 'legacy';

/** What {@link verifyMessage} is asked to check. */
export interface VerifyMessageInput {
  address: string;
  /** A string is signed as its UTF-8 bytes, exactly (no trimming, no normalisation). */
  message: string | Uint8Array;
  /** Base64, optionally with a BIP-322 `smp`/`ful`/`pof` prefix. Surrounding whitespace is ignored. */
  signature: string;
}

export interface VerifyMessageOptions {
  /** Refuse addresses of other networks (e.g. `['mainnet']` in live mode) as `wrong_network`. */
  networks?: readonly NetworkName[];
}

/**
 * The verdict on one signed message. `inconclusive` (a script we cannot judge, BIP-322's third
 * outcome) is never valid.
 */
export interface VerificationResult {
  valid: boolean;
  result: 'valid' | 'invalid' | 'inconclusive';
  format: MessageSignatureFormat | null;
  address_type: AddressType | null;
  /** The address's network; for encodings shared by several (tb1, m/n/2) the first of testnet, signet, regtest. */
  network: NetworkName | null;
  /** Why the signature is not valid; null when it is. */
  reason: string | null;
  /** BIP-322 full/pof with time locks: valid "at time T and age S" (nLockTime, first input nSequence). */
  time_lock?: { lock_time: number; sequence: number };
  /** Proof of funds: the outputs proven. Check on chain that they exist and are unspent. */
  proven_outputs?: ProvenOutput[];
}

const PREFIXES: Record<string, MessageSignatureFormat> = { smp: 'bip322-simple', ful: 'bip322-full', pof: 'bip322-pof' };
/**
 * Above any real signature (a 500-input P2WPKH proof of funds is about 125,000 characters) and
 * small enough to bound the work a crafted one can demand: a few thousand signature checks,
 * about a second at worst.
 */
export const MAX_SIGNATURE_LENGTH = 400_000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface Context {
  format: MessageSignatureFormat | null;
  address: ParsedAddress | null;
}

function build(ctx: Context, outcome: Bip322Outcome): VerificationResult {
  const result: VerificationResult = {
    valid: outcome.result === 'valid',
    result: outcome.result,
    format: ctx.format,
    address_type: ctx.address?.type ?? null,
    network: ctx.address?.networks[0] ?? null,
    reason: outcome.result === 'valid' ? null : outcome.reason,
  };
  if (outcome.time_lock) result.time_lock = outcome.time_lock;
  if (outcome.proven_outputs) result.proven_outputs = outcome.proven_outputs;
  return result;
}

/**
 * Verifies a signed message against an address: BIP-322 (v2.0.0 prefixed simple/full/proof of
 * funds, and unprefixed simple or full as wallets still emit them) and legacy `signmessage`
 * compact signatures. The network is taken from the address.
 *
 * Never throws and never returns valid for anything it cannot fully check; see
 * src/bitcoin/message/README.md for the accepted formats and policy.
 */
export function verifyMessage(input: VerifyMessageInput, opts?: VerifyMessageOptions): VerificationResult {
  const ctx: Context = { format: null, address: null };
  try {
    return verifyUnchecked(input, opts, ctx);
  } catch (e) {
    // Defence in depth: every path above returns a verdict; this only catches our own bugs.
    return build(ctx, { result: 'invalid', reason: `internal error while verifying: ${e instanceof Error ? e.message : String(e)}` });
  }
}

// Module level, not a closure inside verifyUnchecked: it runs on every verification.
function fail(ctx: Context, reason: string): VerificationResult {
  return build(ctx, { result: 'invalid', reason });
}

function verifyUnchecked(input: VerifyMessageInput, opts: VerifyMessageOptions | undefined, ctx: Context): VerificationResult {
  if (typeof input !== 'object' || input === null) return fail(ctx, 'expected an object with address, message and signature');
  const { address, message, signature } = input;
  if (typeof address !== 'string') return fail(ctx, 'the address must be a string');
  if (typeof signature !== 'string') return fail(ctx, 'the signature must be a string');
  if (typeof message !== 'string' && !(message instanceof Uint8Array)) return fail(ctx, 'the message must be a string (or bytes)');

  const parsed = parseAddress(address, opts?.networks ? { networks: opts.networks } : undefined);
  if (!parsed.ok) return fail(ctx, `invalid address: ${parsed.error.reason}`);
  ctx.address = parsed.address;

  let messageBytes: Uint8Array;
  if (typeof message === 'string') {
    if (LONE_SURROGATE.test(message)) return fail(ctx, 'the message is not valid Unicode (it contains an unpaired surrogate)');
    // Buffer.from encodes UTF-8 exactly as TextEncoder does (both would turn a lone surrogate,
    // refused above, into U+FFFD) at a quarter of the cost for short strings. Viewed as a plain
    // Uint8Array so that the message bytes have one type whatever the input.
    const b = Buffer.from(message, 'utf8');
    messageBytes = new Uint8Array(b.buffer, b.byteOffset, b.length);
  } else {
    messageBytes = message;
  }

  if (signature.length > MAX_SIGNATURE_LENGTH) return fail(ctx, `the signature is longer than ${MAX_SIGNATURE_LENGTH} characters`);
  let text = signature.trim();
  const prefixed = PREFIXES[text.slice(0, 3)];
  if (prefixed !== undefined) {
    ctx.format = prefixed;
    text = text.slice(3);
  }
  const decoded = decodeBase64Strict(text);
  if (!decoded.ok) return fail(ctx, decoded.reason);
  const bytes = decoded.value;
  const addr = parsed.address;

  switch (ctx.format) {
    case 'bip322-simple':
      return build(ctx, verifySimple(addr, messageBytes, bytes));
    case 'bip322-full': {
      const tx = decodeTransaction(bytes);
      if (!tx.ok) return fail(ctx, `not a BIP-322 full signature: ${tx.reason}`);
      return build(ctx, verifyFull(addr, messageBytes, tx.value));
    }
    case 'bip322-pof':
      return build(ctx, verifyProofOfFunds(addr, messageBytes, bytes, addr.networks[0]!));
  }

  // Unprefixed: 65 bytes with a signmessage header is legacy (as a witness stack it would be
  // 27+ items in 64 bytes, and no transaction is that short); a whole transaction is a pre-2.0
  // full signature; anything else is simple, which v2.0.0 says a verifier may assume.
  if (bytes.length === 65 && ((bytes[0]! >= 27 && bytes[0]! <= 42) || !decodeWitnessStack(bytes).ok)) {
    ctx.format = 'legacy';
    return build(ctx, verifyLegacy(addr, messageBytes, bytes));
  }
  const tx = isWholeTransaction(bytes) ? decodeTransaction(bytes) : undefined;
  if (tx?.ok && tx.value.inputs.length > 0 && tx.value.outputs.length > 0) {
    ctx.format = 'bip322-full';
    return build(ctx, verifyFull(addr, messageBytes, tx.value));
  }
  ctx.format = 'bip322-simple';
  return build(ctx, verifySimple(addr, messageBytes, bytes));
}
