import { bech32, bech32m } from '@scure/base';
import { decodeBase58Check, encodeBase58Check } from './base58check.js';
import { NETWORK_NAMES, NETWORK_PARAMS, type NetworkName } from './network.js';

/** The address (output script) types ownproof understands. P2SH covers P2SH-P2WPKH, which the address cannot reveal. */
export type AddressType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr';

/** A successfully parsed address. */
export interface ParsedAddress {
  /** Canonical spelling: base58 as given, bech32 lowercased. */
  address: string;
  type: AddressType;
  /**
   * Every network whose encoding matches (narrowed to `opts.networks` when given): a base58 test
   * address matches testnet, signet and regtest; a `tb1` address matches testnet and signet.
   */
  networks: NetworkName[];
  scriptPubKey: Uint8Array;
  /** Present for segwit addresses only. */
  witnessVersion?: number;
  /** The 20-byte hash (P2PKH, P2SH, P2WPKH) or the witness program (P2WSH, P2TR). */
  program: Uint8Array;
}

/** Why an address was refused. `reason` is a sentence fit to show to a person. */
export interface AddressError {
  code:
    'invalid_encoding' | 'bad_checksum' | 'unknown_prefix' | 'invalid_length' | 'invalid_program' | 'wrong_network' | 'unsupported_type';
  reason: string;
}

/** The outcome of {@link parseAddress}. */
export type ParseAddressResult = { ok: true; address: ParsedAddress } | { ok: false; error: AddressError };

// Longer than any address we accept (a 40-byte witness program is 74 characters with "bcrt1");
// the cap also keeps base58 decoding, which is quadratic, cheap on hostile input.
const MAX_ADDRESS_LENGTH = 100;

const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;
const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_REV: Int8Array = (() => {
  const rev = new Int8Array(128).fill(-1);
  for (let i = 0; i < BECH32_CHARSET.length; i++) rev[BECH32_CHARSET.charCodeAt(i)] = i;
  return rev;
})();

const OP_0 = 0x00;
const OP_1 = 0x51;
const OP_DUP = 0x76;
const OP_HASH160 = 0xa9;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_CHECKSIG = 0xac;

function fail(code: AddressError['code'], reason: string): ParseAddressResult {
  return { ok: false, error: { code, reason } };
}

function networksForHrp(hrp: string): NetworkName[] {
  return NETWORK_NAMES.filter((n) => NETWORK_PARAMS[n].bech32 === hrp);
}

function networksForBase58Version(version: number): { networks: NetworkName[]; type: 'p2pkh' | 'p2sh' } | undefined {
  const pkh = NETWORK_NAMES.filter((n) => NETWORK_PARAMS[n].pubKeyHash === version);
  if (pkh.length > 0) return { networks: pkh, type: 'p2pkh' };
  const sh = NETWORK_NAMES.filter((n) => NETWORK_PARAMS[n].scriptHash === version);
  if (sh.length > 0) return { networks: sh, type: 'p2sh' };
  return undefined;
}

function describeNetworks(networks: readonly NetworkName[]): string {
  return networks.length === 1 ? networks[0]! : `${networks.slice(0, -1).join(', ')} or ${networks.at(-1)!}`;
}

function bech32Polymod(values: ArrayLike<number>, seed: number): number {
  const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = seed;
  for (let i = 0; i < values.length; i++) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ values[i]!) >>> 0;
    for (let j = 0; j < 5; j++) if ((top >>> j) & 1) chk = (chk ^ GEN[j]!) >>> 0;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

/** Regroups 5-bit words into bytes, refusing non-zero or over-long padding as BIP-173 requires. */
function wordsToBytes(words: ArrayLike<number>): Uint8Array | undefined {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  for (let i = 0; i < words.length; i++) {
    acc = (acc << 5) | words[i]!;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((acc << (8 - bits)) & 0xff) !== 0) return undefined;
  return Uint8Array.from(out);
}

function parseSegwit(input: string): ParseAddressResult {
  const lower = input.toLowerCase();
  if (input !== lower && input !== input.toUpperCase()) {
    return fail('invalid_encoding', 'The address mixes upper- and lower-case letters, which bech32 forbids.');
  }
  const sep = lower.lastIndexOf('1');
  const hrp = lower.slice(0, sep);
  const data = lower.slice(sep + 1);
  if (data.length < 6 + 1) return fail('invalid_encoding', 'The bech32 address is too short to hold a witness version and checksum.');
  const words = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const code = data.charCodeAt(i);
    const v = code < 128 ? BECH32_REV[code]! : -1;
    if (v < 0) return fail('invalid_encoding', `The address contains "${data[i]}", which is not a bech32 character.`);
    words[i] = v;
  }
  const networks = networksForHrp(hrp);
  if (networks.length === 0) {
    return fail('unknown_prefix', `The prefix "${hrp}" is not a Bitcoin network (expected bc, tb or bcrt).`);
  }
  const check = bech32Polymod(words, bech32Polymod(hrpExpand(hrp), 1));
  const variant = check === BECH32_CONST ? 'bech32' : check === BECH32M_CONST ? 'bech32m' : undefined;
  if (variant === undefined) return fail('bad_checksum', 'The address checksum does not match: it was mistyped or altered.');
  const version = words[0]!;
  if (version > 16) return fail('invalid_encoding', `The witness version ${version} does not exist (0 to 16 only).`);
  const expected = version === 0 ? 'bech32' : 'bech32m';
  if (variant !== expected) {
    return fail('bad_checksum', `The address uses a ${variant} checksum, but witness version ${version} addresses must use ${expected}.`);
  }
  const program = wordsToBytes(words.subarray(1, words.length - 6));
  if (program === undefined) return fail('invalid_encoding', 'The address has invalid padding bits in its witness program.');
  if (program.length < 2 || program.length > 40) {
    return fail('invalid_program', `A witness program must be 2 to 40 bytes, this one is ${program.length}.`);
  }
  let type: AddressType;
  if (version === 0) {
    if (program.length === 20) type = 'p2wpkh';
    else if (program.length === 32) type = 'p2wsh';
    else return fail('invalid_program', `A version 0 witness program must be 20 or 32 bytes, this one is ${program.length}.`);
  } else if (version === 1 && program.length === 32) {
    type = 'p2tr';
  } else {
    return fail(
      'unsupported_type',
      `Witness version ${version} with a ${program.length}-byte program is a valid address but not a type ownproof supports (P2WPKH, P2WSH, P2TR).`,
    );
  }
  const scriptPubKey = new Uint8Array(2 + program.length);
  scriptPubKey[0] = version === 0 ? OP_0 : OP_1 + version - 1;
  scriptPubKey[1] = program.length;
  scriptPubKey.set(program, 2);
  return { ok: true, address: { address: lower, type, networks, scriptPubKey, witnessVersion: version, program } };
}

function parseBase58(input: string): ParseAddressResult {
  const decoded = decodeBase58Check(input);
  if (!decoded.ok) {
    if (decoded.problem === 'encoding') return fail('invalid_encoding', 'The address is neither valid base58 nor bech32.');
    if (decoded.problem === 'short') return fail('invalid_encoding', 'The address is too short to be a base58 address.');
    return fail('bad_checksum', 'The address checksum does not match: it was mistyped or altered.');
  }
  const payload = decoded.payload;
  const kind = networksForBase58Version(payload[0]!);
  if (kind === undefined) {
    return fail('unknown_prefix', `The version byte 0x${payload[0]!.toString(16).padStart(2, '0')} is not a Bitcoin address prefix.`);
  }
  if (payload.length !== 21) {
    return fail('invalid_length', `A base58 address carries a 20-byte hash, this one carries ${payload.length - 1} bytes.`);
  }
  const program = payload.slice(1);
  const scriptPubKey =
    kind.type === 'p2pkh'
      ? Uint8Array.from([OP_DUP, OP_HASH160, 20, ...program, OP_EQUALVERIFY, OP_CHECKSIG])
      : Uint8Array.from([OP_HASH160, 20, ...program, OP_EQUAL]);
  return { ok: true, address: { address: input, type: kind.type, networks: kind.networks, scriptPubKey, program } };
}

function hasKnownHrp(input: string): boolean {
  const lower = input.toLowerCase();
  const sep = lower.lastIndexOf('1');
  return sep > 0 && networksForHrp(lower.slice(0, sep)).length > 0;
}

// Another coin's bech32 address (ltc1…) should be named as such, not as bad base58.
function looksLikeOtherBech32(input: string): boolean {
  if (input !== input.toLowerCase() && input !== input.toUpperCase()) return false;
  return /^[a-z]{1,10}1[ac-hj-np-z02-9]{6,}$/.test(input.toLowerCase());
}

/**
 * Parses and validates a Bitcoin address for mainnet, testnet, signet or regtest.
 *
 * Never throws: any string (or non-string) yields either the parsed address or an error naming the
 * problem. With `opts.networks`, an address of another network is refused as `wrong_network`.
 * Surrounding whitespace is not trimmed; it makes the address invalid.
 */
export function parseAddress(input: string, opts?: { networks?: readonly NetworkName[] }): ParseAddressResult {
  if (typeof input !== 'string' || input.length === 0) return fail('invalid_encoding', 'The address is empty.');
  if (input.length > MAX_ADDRESS_LENGTH) {
    return fail('invalid_encoding', `The address is ${input.length} characters long, longer than any Bitcoin address.`);
  }
  if (/\s/.test(input)) return fail('invalid_encoding', 'The address contains whitespace.');
  let result: ParseAddressResult;
  if (hasKnownHrp(input)) result = parseSegwit(input);
  else {
    result = parseBase58(input);
    if (!result.ok && looksLikeOtherBech32(input)) result = parseSegwit(input);
  }
  if (!result.ok || opts?.networks === undefined) return result;
  const allowed = opts.networks;
  const networks = result.address.networks.filter((n) => allowed.includes(n));
  if (networks.length === 0) {
    return fail(
      'wrong_network',
      `This is a ${describeNetworks(result.address.networks)} address, but only ${allowed.length === 0 ? 'no network' : describeNetworks(allowed)} addresses are accepted here.`,
    );
  }
  return { ok: true, address: { ...result.address, networks } };
}

/**
 * Encodes a standard output script (P2PKH, P2SH, P2WPKH, P2WSH, P2TR) as an address of `network`.
 * Returns undefined for any other script, including unknown witness versions.
 */
export function addressFromScript(scriptPubKey: Uint8Array, network: NetworkName): string | undefined {
  const params = NETWORK_PARAMS[network];
  if (params === undefined || !(scriptPubKey instanceof Uint8Array)) return undefined;
  const s = scriptPubKey;
  if (s.length === 25 && s[0] === OP_DUP && s[1] === OP_HASH160 && s[2] === 20 && s[23] === OP_EQUALVERIFY && s[24] === OP_CHECKSIG) {
    return base58check(params.pubKeyHash, s.subarray(3, 23));
  }
  if (s.length === 23 && s[0] === OP_HASH160 && s[1] === 20 && s[22] === OP_EQUAL) {
    return base58check(params.scriptHash, s.subarray(2, 22));
  }
  if (s.length === 22 && s[0] === OP_0 && s[1] === 20) return segwitAddress(params.bech32, 0, s.subarray(2));
  if (s.length === 34 && s[0] === OP_0 && s[1] === 32) return segwitAddress(params.bech32, 0, s.subarray(2));
  if (s.length === 34 && s[0] === OP_1 && s[1] === 32) return segwitAddress(params.bech32, 1, s.subarray(2));
  return undefined;
}

function base58check(version: number, hash: Uint8Array): string {
  const payload = new Uint8Array(21);
  payload[0] = version;
  payload.set(hash, 1);
  return encodeBase58Check(payload);
}

function segwitAddress(hrp: string, version: number, program: Uint8Array): string {
  const coder = version === 0 ? bech32 : bech32m;
  return coder.encode(hrp, [version, ...coder.toWords(program)]);
}
