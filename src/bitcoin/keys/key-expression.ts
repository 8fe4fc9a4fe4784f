/**
 * BIP-380 key expressions (`[fingerprint/path]KEY/path/*`) with the BIP-389 multipath step
 * (`/<0;1>`). Parsing only: derivation lives in descriptor-derivation.ts.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decodeBase58Check } from '../base58check.js';
import { hex } from '@scure/base';
import { decodeExtendedKey, type ExtendedKeyInfo } from './extended-key.js';
import { raise } from './parse-result.js';
import type { KeyNetwork } from './slip132.js';

/** BIP-32 child indices at or above this are hardened. */
export const HARDENED = 0x80000000;

/** How the enclosing script expression constrains its keys. */
export type KeyContext = 'legacy' | 'segwit' | 'taproot';

/** `[fingerprint/path]` information: where the key sits below a master key. */
export interface KeyOrigin {
  /** 8 lowercase hex characters. */
  fingerprint: string;
  /** Child indices, hardened ones with {@link HARDENED} added. */
  path: number[];
}

/** A literal public key (or, in tests, a WIF private key). */
export interface ConstantKey {
  kind: 'constant';
  /** 33-byte compressed, 65-byte uncompressed, or (taproot context) 32-byte x-only. */
  publicKey: Uint8Array;
  /** Present only for WIF input accepted with `allowPrivateKeys`. */
  privateKey?: Uint8Array;
}

/** An extended key with the derivation steps that follow it. */
export interface ExtendedKeyExpression {
  kind: 'extended';
  info: ExtendedKeyInfo;
  /** Derivation steps after the key; the multipath step (if any) holds several indices. */
  steps: number[][];
  /** Index in `steps` of the multipath step, or -1. */
  multipathStep: number;
  wildcard: 'none' | 'unhardened' | 'hardened';
}

/** A parsed key expression and where it sits in the descriptor text. */
export interface KeyExpression {
  /** The expression as written. */
  text: string;
  /** Offset of `text` in the descriptor. */
  start: number;
  origin?: KeyOrigin;
  key: ConstantKey | ExtendedKeyExpression;
  /** Network implied by the key's encoding (extended keys and WIF); hex keys imply none. */
  network?: KeyNetwork;
  isPrivate: boolean;
  /** Offsets of the `<...>` multipath element in the descriptor and the text of each alternative. */
  multipath?: { start: number; end: number; alternatives: string[] };
}

const MAX_INDEX = HARDENED - 1;

function parseIndex(element: string, where: string, position: number): number {
  let body = element;
  let hardened = false;
  const last = body.charAt(body.length - 1);
  if (last === "'" || last === 'h') {
    hardened = true;
    body = body.slice(0, -1);
  } else if (last === 'H') {
    raise('invalid_derivation_path', `"${element}" in ${where}: write hardened steps with h or ' (not H)`, position);
  }
  if (!/^[0-9]{1,10}$/.test(body)) {
    raise(
      'invalid_derivation_path',
      `"${element}" in ${where} is not a derivation index (a number, optionally followed by h or ')`,
      position,
    );
  }
  const n = Number(body);
  if (n > MAX_INDEX) {
    raise(
      'invalid_derivation_path',
      `derivation index ${body} in ${where} is out of range (at most ${MAX_INDEX}, with h for hardened)`,
      position,
    );
  }
  return hardened ? n + HARDENED : n;
}

function parseOrigin(inner: string, position: number): KeyOrigin {
  const parts = inner.split('/');
  const fingerprint = parts[0] ?? '';
  if (!/^[0-9a-fA-F]{8}$/.test(fingerprint)) {
    raise('invalid_key_origin', `key origin fingerprint must be exactly 8 hex characters, got "${fingerprint}"`, position);
  }
  const path: number[] = [];
  for (const element of parts.slice(1)) {
    if (element === '') raise('invalid_key_origin', 'empty step in key origin path (stray or trailing "/")', position);
    if (element.startsWith('<')) raise('invalid_key_origin', 'multipath steps (<a;b>) are not allowed in a key origin', position);
    if (element.startsWith('*')) raise('invalid_key_origin', 'a wildcard (*) is not allowed in a key origin', position);
    path.push(parseIndex(element, 'the key origin', position));
  }
  return { fingerprint: fingerprint.toLowerCase(), path };
}

function decodeWif(text: string): { privateKey: Uint8Array; compressed: boolean; network: KeyNetwork } | undefined {
  const decoded = decodeBase58Check(text);
  if (!decoded.ok) return undefined;
  const payload = decoded.payload;
  if (payload.length !== 33 && payload.length !== 34) return undefined;
  const version = payload[0];
  if (version !== 0x80 && version !== 0xef) return undefined;
  if (payload.length === 34 && payload[33] !== 0x01) return undefined;
  const privateKey = payload.slice(1, 33);
  if (!secp256k1.utils.isValidSecretKey(privateKey)) return undefined;
  return { privateKey, compressed: payload.length === 34, network: version === 0x80 ? 'mainnet' : 'test' };
}

function checkPoint(bytes: Uint8Array, position: number): void {
  try {
    secp256k1.Point.fromBytes(bytes);
  } catch {
    raise('invalid_key', 'public key is not a valid point on secp256k1', position);
  }
}

function parseConstant(
  token: string,
  context: KeyContext,
  allowPrivate: boolean,
  position: number,
): {
  key: ConstantKey;
  network?: KeyNetwork;
} {
  if (/^[0-9a-fA-F]+$/.test(token) && [64, 66, 130].includes(token.length)) {
    const bytes = hex.decode(token.toLowerCase());
    if (bytes.length === 32) {
      if (context !== 'taproot') raise('invalid_key', 'x-only (32-byte) public keys are only allowed inside tr()', position);
      checkPoint(Uint8Array.of(2, ...bytes), position);
      return { key: { kind: 'constant', publicKey: bytes } };
    }
    const prefix = bytes[0];
    if (bytes.length === 33 && prefix !== 2 && prefix !== 3) raise('invalid_key', 'a compressed public key starts with 02 or 03', position);
    if (bytes.length === 65 && prefix !== 4) raise('invalid_key', 'an uncompressed public key starts with 04', position);
    checkPoint(bytes, position);
    if (bytes.length === 65 && context !== 'legacy') {
      raise(
        'uncompressed_key_not_allowed',
        `uncompressed public keys are not allowed in ${context === 'taproot' ? 'tr()' : 'segwit scripts (wpkh, wsh)'}`,
        position,
      );
    }
    return { key: { kind: 'constant', publicKey: context === 'taproot' ? bytes.slice(1) : bytes } };
  }
  const wif = decodeWif(token);
  if (wif) {
    if (!allowPrivate)
      raise('private_key_not_accepted', 'this is a private key (WIF): give the public key instead, never a private one', position);
    if (!wif.compressed && context !== 'legacy') {
      raise(
        'uncompressed_key_not_allowed',
        `uncompressed keys are not allowed in ${context === 'taproot' ? 'tr()' : 'segwit scripts (wpkh, wsh)'}`,
        position,
      );
    }
    const pub = secp256k1.getPublicKey(wif.privateKey, wif.compressed);
    return {
      key: { kind: 'constant', publicKey: context === 'taproot' ? pub.slice(1) : pub, privateKey: wif.privateKey },
      network: wif.network,
    };
  }
  if (/^[0-9a-fA-F]+$/.test(token)) {
    raise(
      'invalid_key',
      `a hex public key has 66 (compressed) or 130 (uncompressed) characters${context === 'taproot' ? ' or 64 (x-only)' : ''}, got ${token.length}`,
      position,
    );
  }
  raise(
    'invalid_key',
    `"${token.length > 20 ? `${token.slice(0, 20)}…` : token}" is not a public key, an extended public key or a descriptor`,
    position,
  );
}

interface DerivationSuffix {
  steps: number[][];
  multipathStep: number;
  wildcard: ExtendedKeyExpression['wildcard'];
  multipath?: KeyExpression['multipath'];
}

function parseDerivationSuffix(elements: string[], suffixStart: number): DerivationSuffix {
  const steps: number[][] = [];
  let multipathStep = -1;
  let wildcard: ExtendedKeyExpression['wildcard'] = 'none';
  let multipath: KeyExpression['multipath'];
  let offset = suffixStart;
  elements.forEach((element, i) => {
    const position = offset + 1;
    offset += element.length + 1;
    if (wildcard !== 'none') raise('invalid_derivation_path', 'the wildcard (*) must be the last derivation step', position);
    if (element === '') raise('invalid_derivation_path', 'empty derivation step (stray or trailing "/")', position);
    if (element === '*' || element === "*'" || element === '*h') {
      wildcard = element === '*' ? 'unhardened' : 'hardened';
      return;
    }
    if (element.startsWith('*')) raise('invalid_derivation_path', `"${element}" is not a valid wildcard (use * or *h)`, position);
    if (element.startsWith('<') || element.endsWith('>')) {
      if (!element.startsWith('<') || !element.endsWith('>')) {
        raise('invalid_multipath', `"${element}" is not a complete multipath step: write it as <a;b>`, position);
      }
      if (multipathStep >= 0) raise('invalid_multipath', 'only one multipath step (<a;b>) is allowed per key', position);
      const alternatives = element.slice(1, -1).split(';');
      if (alternatives.length < 2 || alternatives.some((a) => a === '')) {
        raise('invalid_multipath', `multipath step "${element}" needs at least two indices separated by ";"`, position);
      }
      const values = alternatives.map((a) => parseIndex(a, 'the multipath step', position));
      if (new Set(values).size !== values.length) raise('invalid_multipath', `multipath step "${element}" repeats an index`, position);
      multipathStep = i;
      multipath = { start: position, end: position + element.length, alternatives };
      steps.push(values);
      return;
    }
    if (element.includes('<') || element.includes('>') || element.includes(';')) {
      raise('invalid_multipath', `"${element}" is not a valid multipath step: write it as <a;b>`, position);
    }
    steps.push([parseIndex(element, 'the derivation path', position)]);
  });
  return multipath ? { steps, multipathStep, wildcard, multipath } : { steps, multipathStep, wildcard };
}

/**
 * Parses one key expression. `start` is its offset in the descriptor (for error positions and
 * for locating the multipath step when expanding). Throws `KeyParseFailure`; the descriptor
 * parser's entry point converts that into a result.
 */
export function parseKeyExpression(text: string, start: number, context: KeyContext, opts: { allowPrivateKeys: boolean }): KeyExpression {
  if (text.length === 0) raise('syntax_error', 'expected a key', start);
  let rest = text;
  let restStart = start;
  let origin: KeyOrigin | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) raise('invalid_key_origin', 'key origin is missing its closing "]"', start);
    origin = parseOrigin(rest.slice(1, close), start);
    rest = rest.slice(close + 1);
    restStart += close + 1;
    if (rest.startsWith('[')) raise('invalid_key_origin', 'a key can have only one origin [...]', restStart);
    if (rest.length === 0) raise('invalid_key', 'key origin is not followed by a key', restStart);
  } else if (rest.includes(']')) {
    raise('invalid_key_origin', 'found "]" without a matching "[" for the key origin', start);
  }
  const slash = rest.indexOf('/');
  const token = slash < 0 ? rest : rest.slice(0, slash);
  const suffix = slash < 0 ? [] : rest.slice(slash + 1).split('/');
  const looksExtended = /^[a-zA-Z]{4}/.test(token) && token.length >= 100 && token.length <= 120;
  const base = origin ? { text, start, origin } : { text, start };
  if (!looksExtended) {
    if (suffix.length > 0) {
      const isKey = /^[0-9a-fA-F]+$/.test(token) || decodeWif(token) !== undefined;
      if (isKey)
        raise(
          'invalid_derivation_path',
          'derivation steps can only follow an extended key (xpub...), not a single key',
          restStart + token.length,
        );
    }
    const constant = parseConstant(token, context, opts.allowPrivateKeys, restStart);
    return {
      ...base,
      key: constant.key,
      ...(constant.network ? { network: constant.network } : {}),
      isPrivate: constant.key.privateKey !== undefined,
    };
  }
  const decoded = decodeExtendedKey(token, { allowPrivate: opts.allowPrivateKeys });
  if (!decoded.ok) raise(decoded.error.code, decoded.error.reason, restStart);
  const info = decoded.value;
  const derivation = parseDerivationSuffix(suffix, restStart + token.length);
  if (!info.isPrivate) {
    const hardenedAt = derivation.steps.findIndex((s) => s.some((v) => v >= HARDENED));
    if (hardenedAt >= 0 || derivation.wildcard === 'hardened') {
      raise(
        'hardened_derivation_from_public_key',
        `hardened derivation (h or ') after an extended public key is impossible: give the ${info.prefix} at the last hardened step instead`,
        restStart + token.length,
      );
    }
  }
  const key: ExtendedKeyExpression = {
    kind: 'extended',
    info,
    steps: derivation.steps,
    multipathStep: derivation.multipathStep,
    wildcard: derivation.wildcard,
  };
  return {
    ...base,
    key,
    network: info.network,
    isPrivate: info.isPrivate,
    ...(derivation.multipath ? { multipath: derivation.multipath } : {}),
  };
}
