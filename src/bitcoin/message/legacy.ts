import type { ParsedAddress } from '../address.js';
import { bytesEqual, hash160, sha256d } from '../hashes.js';
import { recodePublicKey, recoverPublicKey } from './secp256k1.js';
import type { Outcome } from './spend.js';
import { Scratch } from './transaction.js';

const MAGIC = new TextEncoder().encode('Bitcoin Signed Message:\n');
const digestScratch = new Scratch();

/** The `signmessage` digest: SHA256d(varstr("Bitcoin Signed Message:\n") ‖ varstr(message)). */
export function signMessageHash(message: Uint8Array): Uint8Array {
  const w = digestScratch.writer(MAGIC.length + message.length + 10);
  w.varBytes(MAGIC).varBytes(message);
  return sha256d(w.finish());
}

/**
 * The address kinds a header byte allows. 27–30: uncompressed key, P2PKH. 31–34: compressed
 * key, any single-key address built from it (Bitcoin Core for P2PKH; Electrum, Trezor and most
 * wallets also for P2WPKH and P2SH-P2WPKH). 35–38: BIP-137 P2SH-P2WPKH. 39–42: BIP-137 P2WPKH.
 */
const HEADER_KINDS = [
  { compressed: false, allows: ['p2pkh'], name: 'an uncompressed-key P2PKH' },
  { compressed: true, allows: ['p2pkh', 'p2wpkh', 'p2sh'], name: 'a compressed-key' },
  { compressed: true, allows: ['p2sh'], name: 'a BIP-137 P2SH-P2WPKH' },
  { compressed: true, allows: ['p2wpkh'], name: 'a BIP-137 P2WPKH' },
] as const;

const invalid = (reason: string): Outcome => ({ result: 'invalid', reason });

/** OP_0 PUSH20 <keyHash>: the P2SH-P2WPKH redeem script. */
function p2wpkhProgramScript(keyHash: Uint8Array): Uint8Array {
  const script = new Uint8Array(22);
  script[1] = 0x14;
  script.set(keyHash, 2);
  return script;
}

/**
 * Verifies a legacy 65-byte compact signature (`signmessage`, BIP-137) by public-key recovery.
 * High-S values are accepted here, unlike in BIP-322: recovery is indifferent to them and
 * some wallets emit them.
 */
export function verifyLegacy(address: ParsedAddress, message: Uint8Array, sig: Uint8Array): Outcome {
  if (sig.length !== 65) return invalid(`a legacy signature is 65 bytes, this one is ${sig.length}`);
  const header = sig[0]!;
  if (header < 27 || header > 42) return invalid(`header byte ${header} is not a signmessage header (27 to 42)`);
  if (address.type === 'p2tr') {
    return invalid('legacy signatures cannot prove a P2TR address (no standard defines them); sign with BIP-322 instead');
  }
  if (address.type === 'p2wsh') return invalid('legacy signatures cannot prove a P2WSH address; sign with BIP-322 instead');
  const kind = HEADER_KINDS[(header - 27) >> 2]!;
  if (!(kind.allows as readonly string[]).includes(address.type)) {
    const shown = address.type === 'p2sh' ? 'P2SH' : address.type.toUpperCase();
    return invalid(`header byte ${header} marks ${kind.name} signature, which cannot prove a ${shown} address`);
  }
  const recoveryId = (header - 27) & 3;
  const publicKey = recoverPublicKey(signMessageHash(message), sig.subarray(1), recoveryId, kind.compressed);
  if (publicKey === undefined) return invalid('no public key can be recovered from this signature (r or s out of range)');
  const keyHash = hash160(publicKey);
  const matches =
    address.type === 'p2sh' ? bytesEqual(hash160(p2wpkhProgramScript(keyHash)), address.program) : bytesEqual(keyHash, address.program);
  if (!matches) {
    // Name the common mix-up: the right key, with the header flag for the other key encoding.
    const other = address.type === 'p2pkh' ? recodePublicKey(publicKey, !kind.compressed) : undefined;
    if (other !== undefined && bytesEqual(hash160(other), address.program)) {
      return invalid(
        `header byte ${header} says the key is ${kind.compressed ? 'compressed' : 'uncompressed'}, but the address is for the ${kind.compressed ? 'uncompressed' : 'compressed'} key`,
      );
    }
    return invalid('the signature was made by another key or over another message');
  }
  return { result: 'valid' };
}
