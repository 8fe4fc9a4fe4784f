/**
 * Result type shared by the key and descriptor parsers. They never throw on user input: every
 * problem comes back as a code a program can branch on plus a sentence a person can act on.
 */

/** Machine-readable reasons a key, descriptor or wallet input was rejected. */
export type KeyErrorCode =
  | 'empty_input'
  | 'input_too_long'
  | 'invalid_character'
  | 'bad_checksum'
  | 'missing_checksum'
  | 'syntax_error'
  | 'unknown_function'
  | 'unsupported_function'
  | 'invalid_nesting'
  | 'invalid_key'
  | 'uncompressed_key_not_allowed'
  | 'invalid_key_origin'
  | 'invalid_derivation_path'
  | 'hardened_derivation_from_public_key'
  | 'private_key_not_accepted'
  | 'invalid_multipath'
  | 'invalid_extended_key'
  | 'unknown_key_version'
  | 'key_type_mismatch'
  | 'multisig_key_needs_descriptor'
  | 'wrong_network'
  | 'mixed_networks'
  | 'invalid_threshold'
  | 'too_many_keys'
  | 'script_too_large'
  | 'invalid_address'
  | 'no_address'
  | 'too_many_paths';

/** Why parsing failed; `position` is a 0-based offset into the input when one helps. */
export interface KeyError {
  code: KeyErrorCode;
  reason: string;
  position?: number;
}

/** Either the parsed value or the first problem found. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: KeyError };

/** Wraps a successful parse. */
export function ok<T>(value: T): ParseResult<T> {
  return { ok: true, value };
}

/** Wraps a failed parse. */
export function fail<T = never>(code: KeyErrorCode, reason: string, position?: number): ParseResult<T> {
  return { ok: false, error: position === undefined ? { code, reason } : { code, reason, position } };
}

/**
 * Thrown only inside the recursive-descent parser to unwind to its single entry point, which turns
 * it back into a `ParseResult`; it never escapes a public function.
 */
export class KeyParseFailure extends Error {
  constructor(readonly detail: KeyError) {
    super(detail.reason);
    this.name = 'KeyParseFailure';
  }
}

/** Throws a {@link KeyParseFailure}; for use inside parsers whose entry point catches it. */
export function raise(code: KeyErrorCode, reason: string, position?: number): never {
  throw new KeyParseFailure(position === undefined ? { code, reason } : { code, reason, position });
}
