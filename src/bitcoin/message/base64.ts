import type { Decoded } from './transaction.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP: Int8Array = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) t[ALPHABET.charCodeAt(i)] = i;
  return t;
})();

function sextet(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code < 128 ? LOOKUP[code]! : -1;
}

function bad(text: string, i: number): Decoded<Uint8Array> {
  return { ok: false, reason: `the signature is not valid base64: it has the character ${JSON.stringify(text[i])} at position ${i}` };
}

/**
 * Strict RFC 4648 base64 (standard alphabet, `=` padding required, zero pad bits), so that one
 * signature has exactly one text form and malformed input is named rather than guessed at.
 *
 * Node's native decoder is lenient (it skips unknown characters, takes the URL-safe alphabet,
 * missing padding and non-zero pad bits), but text is canonical exactly when re-encoding the
 * decoded bytes gives it back; that round trip, all native, costs a third of decoding in
 * JavaScript. Anything else goes through {@link decodeBase64Named}, which names the fault.
 */
export function decodeBase64Strict(text: string): Decoded<Uint8Array> {
  if (text.length > 0) {
    const b = Buffer.from(text, 'base64');
    // A plain Uint8Array view: Buffer's `slice` would share memory where callers expect a copy.
    if (b.toString('base64') === text) return { ok: true, value: new Uint8Array(b.buffer, b.byteOffset, b.length) };
  }
  return decodeBase64Named(text);
}

/** The JavaScript decoder, which names the first fault (and decodes canonical text identically). */
export function decodeBase64Named(text: string): Decoded<Uint8Array> {
  const n = text.length;
  if (n === 0) return { ok: false, reason: 'the signature is empty' };
  if (n % 4 !== 0) return { ok: false, reason: 'the signature is not valid base64: its length is not a multiple of 4' };
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((n / 4) * 3 - pad);
  let o = 0;
  const full = n - (pad > 0 ? 4 : 0);
  for (let i = 0; i < full; i += 4) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const c = sextet(text, i + 2);
    const d = sextet(text, i + 3);
    if ((a | b | c | d) < 0) return bad(text, i + [a, b, c, d].findIndex((x) => x < 0));
    const triple = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = triple >>> 16;
    out[o++] = (triple >>> 8) & 0xff;
    out[o++] = triple & 0xff;
  }
  if (pad > 0) {
    const a = sextet(text, full);
    const b = sextet(text, full + 1);
    const c = pad === 1 ? sextet(text, full + 2) : 0;
    if ((a | b | c) < 0) return bad(text, full + [a, b, c].findIndex((x) => x < 0));
    if ((pad === 1 && (c & 0x03) !== 0) || (pad === 2 && (b & 0x0f) !== 0)) {
      return { ok: false, reason: 'the signature is not canonical base64: its padding bits are not zero' };
    }
    out[o++] = (a << 2) | (b >> 4);
    if (pad === 1) out[o++] = ((b & 0x0f) << 4) | (c >> 2);
  }
  return { ok: true, value: out };
}
