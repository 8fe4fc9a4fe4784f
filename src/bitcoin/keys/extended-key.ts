/**
 * Decoding of BIP-32 extended keys in any SLIP-132 encoding, with a precise reason for every
 * rejection (the cases of BIP-32 test vector 5 among them), and SLIP-132 prefix conversion.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decodeBase58Check, encodeBase58Check } from '../base58check.js';
import { HDKey } from '@scure/bip32';
import { fail, ok, type ParseResult } from './parse-result.js';
import {
  bip32Version,
  lookupVersion,
  versionOfPrefix,
  type KeyNetwork,
  type KeyScriptHint,
  type PublicKeyPrefix,
  type Slip132Version,
} from './slip132.js';

/** A decoded extended key and what its version bytes say about it. */
export interface ExtendedKeyInfo {
  /** The key as the user wrote it. */
  text: string;
  /** The SLIP-132 row its version bytes belong to. */
  slip132: Slip132Version;
  /** The prefix actually used (`xprv`, `zpub`, ...). */
  prefix: string;
  isPrivate: boolean;
  network: KeyNetwork;
  /** The script type the prefix announces (xpub/tpub: P2PKH by convention, BIP-44). */
  scriptHint: KeyScriptHint;
  /** The key, re-labelled with plain BIP-32 versions so it serializes as xpub/tpub (or xprv/tprv). */
  node: HDKey;
}

const MAX_EXTENDED_KEY_LENGTH = 120;

const BASE58_PROBLEMS = {
  encoding: 'not valid base58: it contains a character such as 0, O, I or l that base58 never uses',
  short: 'too short to be an extended key',
  checksum: 'base58 checksum mismatch: the key was mistyped or truncated',
} as const;

function decodeExtendedKeyBytes(text: string): ParseResult<Uint8Array> {
  const decoded = decodeBase58Check(text);
  return decoded.ok ? ok(decoded.payload) : fail('invalid_extended_key', BASE58_PROBLEMS[decoded.problem]);
}

/**
 * Decodes an extended key (xpub, ypub, zpub, Ypub, Zpub, tpub, upub, vpub, Upub, Vpub; and, only
 * with `allowPrivate`, xprv/tprv and their SLIP-132 private forms).
 *
 * Private keys are refused by default: ownership proofs never need them, and a service that
 * accepts them invites users to paste their spending keys.
 */
export function decodeExtendedKey(text: string, opts: { allowPrivate?: boolean } = {}): ParseResult<ExtendedKeyInfo> {
  if (typeof text !== 'string' || text.length === 0) return fail('empty_input', 'no extended key given');
  if (text.length > MAX_EXTENDED_KEY_LENGTH) return fail('invalid_extended_key', 'too long to be an extended key');
  const decoded = decodeExtendedKeyBytes(text);
  if (!decoded.ok) return decoded;
  const bytes = decoded.value;
  if (bytes.length !== 78) {
    return fail('invalid_extended_key', `an extended key holds 78 bytes, this one ${bytes.length}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(0, false);
  const found = lookupVersion(version);
  if (!found) {
    return fail(
      'unknown_key_version',
      `unknown extended key version 0x${version.toString(16).padStart(8, '0')} (prefix ${text.slice(0, 4)})`,
    );
  }
  const { entry, isPrivate } = found;
  const prefix = isPrivate ? entry.privatePrefix : entry.publicPrefix;
  if (isPrivate && !opts.allowPrivate) {
    return fail(
      'private_key_not_accepted',
      `${prefix} is a private key: give the matching public key (${entry.publicPrefix}) instead, never a private one`,
    );
  }
  const depth = bytes[4] as number;
  const parentFingerprint = view.getUint32(5, false);
  const index = view.getUint32(9, false);
  const chainCode = bytes.slice(13, 45);
  const keyData = bytes.slice(45);
  if (depth === 0 && parentFingerprint !== 0) {
    return fail('invalid_extended_key', 'a depth-0 (master) key cannot have a parent fingerprint');
  }
  if (depth === 0 && index !== 0) return fail('invalid_extended_key', 'a depth-0 (master) key cannot have a child index');
  const first = keyData[0] as number;
  if (isPrivate) {
    if (first !== 0) return fail('invalid_extended_key', `${prefix} version with public key data (prvkey version / pubkey mismatch)`);
    const secret = keyData.slice(1);
    if (!secp256k1.utils.isValidSecretKey(secret)) return fail('invalid_key', 'private key is not in 1..n-1');
  } else {
    if (first === 0) return fail('invalid_extended_key', `${prefix} version with private key data (pubkey version / prvkey mismatch)`);
    if (first !== 2 && first !== 3) {
      return fail(
        'invalid_key',
        `invalid public key prefix 0x${first.toString(16).padStart(2, '0')}: extended keys hold compressed keys (02/03)`,
      );
    }
    try {
      secp256k1.Point.fromBytes(keyData);
    } catch {
      return fail('invalid_key', 'the public key is not a point on secp256k1');
    }
  }
  const plain = bip32Version(entry.network);
  const versions = { public: plain.publicVersion, private: plain.privateVersion };
  let node: HDKey;
  try {
    node = new HDKey({
      versions,
      depth,
      parentFingerprint,
      index,
      chainCode,
      ...(isPrivate ? { privateKey: keyData.slice(1) } : { publicKey: keyData }),
    });
  } catch (err) {
    return fail('invalid_extended_key', `not a usable extended key: ${(err as Error).message}`);
  }
  return ok({ text, slip132: entry, prefix, isPrivate, network: entry.network, scriptHint: entry.script, node });
}

/**
 * Re-encodes an extended public key under another SLIP-132 prefix of the same network
 * (e.g. zpub → xpub for tools that only read xpub). The key material is unchanged.
 */
export function convertExtendedPublicKey(text: string, to: PublicKeyPrefix): ParseResult<string> {
  const decoded = decodeExtendedKey(text);
  if (!decoded.ok) return decoded;
  const target = versionOfPrefix(to);
  if (target.network !== decoded.value.network) {
    return fail(
      'wrong_network',
      `${decoded.value.prefix} is a ${decoded.value.network} key; ${to} is for ${target.network === 'mainnet' ? 'mainnet' : 'test networks'}`,
    );
  }
  const raw = decodeExtendedKeyBytes(text);
  if (!raw.ok) return raw;
  const payload = Uint8Array.from(raw.value);
  new DataView(payload.buffer).setUint32(0, target.publicVersion, false);
  return ok(encodeBase58Check(payload));
}
