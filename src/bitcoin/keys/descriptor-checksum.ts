/**
 * BIP-380 descriptor checksums: an 8-character BCH code over the descriptor text, so that typos in
 * hex keys and derivation paths (which have no checksum of their own) are caught.
 */

const INPUT_CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn] as const;

function polymod(chk: bigint, value: number): bigint {
  const top = chk >> 35n;
  let next = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
  for (let i = 0; i < 5; i++) {
    if ((top >> BigInt(i)) & 1n) next ^= GENERATOR[i] as bigint;
  }
  return next;
}

/** Index of the first character outside the BIP-380 character set, or -1 when every one is allowed. */
export function findInvalidDescriptorCharacter(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (!INPUT_CHARSET.includes(text.charAt(i))) return i;
  }
  return -1;
}

/**
 * The BIP-380 checksum of a descriptor body (the text before `#`), or `undefined` when the body
 * contains a character outside the descriptor character set.
 */
export function descriptorChecksum(body: string): string | undefined {
  let chk = 1n;
  let cls = 0;
  let clsCount = 0;
  for (const ch of body) {
    const pos = INPUT_CHARSET.indexOf(ch);
    if (pos < 0) return undefined;
    chk = polymod(chk, pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++clsCount === 3) {
      chk = polymod(chk, cls);
      cls = 0;
      clsCount = 0;
    }
  }
  if (clsCount > 0) chk = polymod(chk, cls);
  for (let i = 0; i < 8; i++) chk = polymod(chk, 0);
  chk ^= 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET.charAt(Number((chk >> BigInt(5 * (7 - i))) & 31n));
  return out;
}

/** `body#checksum`, or `undefined` when the body has characters a descriptor cannot contain. */
export function withDescriptorChecksum(body: string): string | undefined {
  const sum = descriptorChecksum(body);
  return sum === undefined ? undefined : `${body}#${sum}`;
}

/** The outcome of checking the optional `#checksum` suffix of a descriptor string. */
export type ChecksumCheck =
  | { ok: true; body: string; checksum: string; hadChecksum: boolean }
  | { ok: false; code: 'invalid_character' | 'bad_checksum'; reason: string; position: number };

/**
 * Splits `SCRIPT#CHECKSUM` and verifies the checksum when one is present. A missing checksum is
 * not an error here (BIP-380 makes it optional); callers that require one check `hadChecksum`.
 */
export function checkDescriptorChecksum(input: string): ChecksumCheck {
  const hash = input.indexOf('#');
  const body = hash < 0 ? input : input.slice(0, hash);
  const bad = findInvalidDescriptorCharacter(body);
  if (bad >= 0) {
    return {
      ok: false,
      code: 'invalid_character',
      reason: `character ${JSON.stringify(body.charAt(bad))} at position ${bad} is not allowed in a descriptor`,
      position: bad,
    };
  }
  const expected = descriptorChecksum(body) as string;
  if (hash < 0) return { ok: true, body, checksum: expected, hadChecksum: false };
  const given = input.slice(hash + 1);
  if (given.length !== 8) {
    return {
      ok: false,
      code: 'bad_checksum',
      reason: `a descriptor checksum has 8 characters, got ${given.length}`,
      position: hash,
    };
  }
  if (given !== expected) {
    return {
      ok: false,
      code: 'bad_checksum',
      reason: `descriptor checksum #${given} does not match its content: the descriptor was altered or mistyped`,
      position: hash,
    };
  }
  return { ok: true, body, checksum: expected, hadChecksum: true };
}
