/**
 * Signing Bitcoin messages: BIP-322 (simple, full, proof of funds) and legacy `signmessage`, with
 * @scure/btc-signer and @noble/curves. The sandbox signs test-mode challenges with it (the
 * sandbox wallet's keys are public), and tests use it to make signatures with generated keys. It
 * shares no code with the verifier (`verify-message.ts`), so tests of the verifier do not check
 * it against itself.
 */
import { Transaction, RawTx, RawWitness, p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64 } from '@scure/base';
import { NETWORK_PARAMS, type NetworkName } from '../network.js';

export type WalletType =
  'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr' | 'p2wsh-single' | 'p2wsh-multi' | 'p2wsh-sortedmulti' | 'p2sh-multi' | 'p2sh-p2wsh-multi';

export const WALLET_TYPES: readonly WalletType[] = [
  'p2pkh',
  'p2sh-p2wpkh',
  'p2wpkh',
  'p2tr',
  'p2wsh-single',
  'p2wsh-multi',
  'p2wsh-sortedmulti',
  'p2sh-multi',
  'p2sh-p2wsh-multi',
];

/** Which types can use the BIP-322 simple encoding (witness only). */
export const SIMPLE_TYPES: readonly WalletType[] = WALLET_TYPES.filter((t) => t !== 'p2pkh' && t !== 'p2sh-multi');

/** A wallet that can sign: its output script, the scripts it needs, and the private keys that sign (a quorum, for multisig). */
export interface SigningWallet {
  type: WalletType;
  network: NetworkName;
  address: string;
  script: Uint8Array;
  privateKeys: Uint8Array[];
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
}

/** The single-key wallet types. */
export type SingleKeyType = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr';

/** The wallet of one private key, as an address of `type` on `network`. */
export function singleKeyWallet(privateKey: Uint8Array, type: SingleKeyType, network: NetworkName): SigningWallet {
  const net = NETWORK_PARAMS[network];
  const pub = secp256k1.getPublicKey(privateKey, true);
  const pay =
    type === 'p2pkh'
      ? p2pkh(pub, net)
      : type === 'p2wpkh'
        ? p2wpkh(pub, net)
        : type === 'p2tr'
          ? p2tr(schnorr.getPublicKey(privateKey), undefined, net)
          : p2sh(p2wpkh(pub, net), net);
  const wallet: SigningWallet = { type, network, address: pay.address as string, script: pay.script, privateKeys: [privateKey] };
  if ('redeemScript' in pay && pay.redeemScript) wallet.redeemScript = pay.redeemScript;
  return wallet;
}

/**
 * Signs the way wallets commonly do for the address type: a legacy `signmessage` signature for
 * P2PKH (what Bitcoin Core and most wallets make there), BIP-322 full for multisig scripts (the
 * quorum's signatures need a whole transaction), BIP-322 simple otherwise.
 */
export function signMessage(wallet: SigningWallet, message: string): string {
  if (wallet.type === 'p2pkh') return signLegacy(wallet.privateKeys[0] as Uint8Array, message, 'compressed');
  return signBip322(wallet, message, wallet.type.includes('multi') ? 'full' : 'simple');
}

const utf8 = (m: string | Uint8Array): Uint8Array => (typeof m === 'string' ? new TextEncoder().encode(m) : m);

function taggedHash(tag: string, data: Uint8Array): Uint8Array {
  const t = sha256(new TextEncoder().encode(tag));
  return sha256(new Uint8Array([...t, ...t, ...data]));
}

/** BIP-322 to_spend txid (display order), computed here from the spec rather than by the verifier. */
export function toSpendTxid(script: Uint8Array, message: string | Uint8Array): Uint8Array {
  return sha256(sha256(rawToSpend(script, message))).reverse();
}

export interface SignOptions {
  version?: number;
  lockTime?: number;
  sequence?: number;
  /** Add the v2.0.0 prefix (`smp`/`ful`/`pof`). Default true. */
  prefix?: boolean;
  /** Proof of funds: extra outputs to prove, each owned by a wallet, with a value. */
  funds?: { wallet: SigningWallet; value: bigint }[] | undefined;
}

function addWalletInput(
  tx: Transaction,
  wallet: SigningWallet,
  txid: Uint8Array,
  index: number,
  value: bigint,
  sequence: number,
  parent?: Uint8Array,
): void {
  const legacy = wallet.type === 'p2pkh' || wallet.type === 'p2sh-multi';
  tx.addInput({
    txid,
    index,
    sequence,
    ...(legacy && parent ? { nonWitnessUtxo: parent } : { witnessUtxo: { script: wallet.script, amount: value } }),
    ...(wallet.redeemScript ? { redeemScript: wallet.redeemScript } : {}),
    ...(wallet.witnessScript ? { witnessScript: wallet.witnessScript } : {}),
    ...(wallet.type === 'p2tr' ? { tapInternalKey: schnorr.getPublicKey(wallet.privateKeys[0]!) } : {}),
  });
}

/** A fake parent transaction paying `value` to `wallet`, for inputs that need a non-witness UTXO. */
function fakeParent(wallet: SigningWallet, value: bigint): Uint8Array {
  return RawTx.encode({
    version: 2,
    segwitFlag: false,
    inputs: [{ txid: secp256k1.utils.randomSecretKey(), index: 0, finalScriptSig: new Uint8Array(0), sequence: 0xffffffff }],
    outputs: [{ amount: value, script: wallet.script }],
    witnesses: [],
    lockTime: 0,
  });
}

/** Signs `message` for `wallet` in the given BIP-322 variant; returns the encoded signature. */
export function signBip322(
  wallet: SigningWallet,
  message: string | Uint8Array,
  variant: 'simple' | 'full' | 'pof',
  opts: SignOptions = {},
): string {
  const sequence = opts.sequence ?? 0;
  const tx = new Transaction({
    version: opts.version ?? 0,
    lockTime: opts.lockTime ?? 0,
    allowUnknownOutputs: true,
    allowLegacyWitnessUtxo: true,
    allowUnknownInputs: true,
    disableScriptCheck: false,
  });
  const toSpend = toSpendTxid(wallet.script, message);
  const toSpendRaw = wallet.type === 'p2pkh' || wallet.type === 'p2sh-multi' ? rawToSpend(wallet.script, message) : undefined;
  addWalletInput(tx, wallet, toSpend, 0, 0n, sequence, toSpendRaw);
  for (const fund of opts.funds ?? []) {
    const parent = fakeParent(fund.wallet, fund.value);
    const parentId = sha256(sha256(parent)).reverse();
    addWalletInput(tx, fund.wallet, parentId, 0, fund.value, 0, parent);
  }
  tx.addOutput({ script: Uint8Array.of(0x6a), amount: 0n });
  const signers = [wallet, ...(opts.funds ?? []).map((f) => f.wallet)];
  signers.forEach((w, i) => {
    for (const key of w.privateKeys) tx.signIdx(key, i);
  });
  tx.finalize();
  const prefix = opts.prefix === false ? '' : variant === 'simple' ? 'smp' : variant === 'full' ? 'ful' : 'pof';
  if (variant === 'simple') return prefix + base64.encode(RawWitness.encode(tx.getInput(0).finalScriptWitness ?? []));
  if (variant === 'full') return prefix + base64.encode(tx.extract());
  return prefix + base64.encode(tx.toPSBT(0));
}

function rawToSpend(script: Uint8Array, message: string | Uint8Array): Uint8Array {
  const messageHash = taggedHash('BIP0322-signed-message', utf8(message));
  return RawTx.encode({
    version: 0,
    segwitFlag: false,
    inputs: [{ txid: new Uint8Array(32), index: 0xffffffff, finalScriptSig: new Uint8Array([0x00, 0x20, ...messageHash]), sequence: 0 }],
    outputs: [{ amount: 0n, script }],
    witnesses: [],
    lockTime: 0,
  });
}

/** Header byte families of legacy signatures (BIP-137 and the Electrum/Trezor convention). */
export type LegacyHeader = 'uncompressed' | 'compressed' | 'p2sh-p2wpkh' | 'p2wpkh';
const HEADER_BASE: Record<LegacyHeader, number> = { uncompressed: 27, compressed: 31, 'p2sh-p2wpkh': 35, p2wpkh: 39 };

/** A legacy `signmessage` signature, computed with @noble/curves' recoverable signing. */
export function signLegacy(
  privateKey: Uint8Array,
  message: string | Uint8Array,
  header: LegacyHeader,
  opts: { highS?: boolean } = {},
): string {
  const m = utf8(message);
  const magic = new TextEncoder().encode('Bitcoin Signed Message:\n');
  const payload = new Uint8Array([magic.length, ...magic, ...compactSize(m.length), ...m]);
  const digest = sha256(sha256(payload));
  const rec = secp256k1.sign(digest, privateKey, { prehash: false, format: 'recovered' });
  let recovery = rec[0]!;
  const rs = rec.slice(1);
  if (opts.highS) {
    const n = secp256k1.Point.CURVE().n;
    const s = BigInt('0x' + Buffer.from(rs.subarray(32)).toString('hex'));
    rs.set(Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex'), 32);
    recovery ^= 1;
  }
  return base64.encode(new Uint8Array([HEADER_BASE[header] + recovery, ...rs]));
}

function compactSize(n: number): number[] {
  if (n < 0xfd) return [n];
  if (n <= 0xffff) return [0xfd, n & 0xff, n >> 8];
  return [0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
}
