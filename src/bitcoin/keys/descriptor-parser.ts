/**
 * Recursive-descent parser for the BIP-380 script expressions this service supports:
 * pk, pkh, wpkh, sh, wsh, multi, sortedmulti, tr (key path only), addr and raw.
 * It builds a tree and enforces the nesting and key rules of BIP-381/382/383/385/386; derivation
 * and network resolution happen in descriptor.ts.
 */
import { hex } from '@scure/base';
import { parseAddress } from '../address.js';
import type { NetworkName } from '../network.js';
import { parseKeyExpression, type KeyContext, type KeyExpression } from './key-expression.js';
import { raise } from './parse-result.js';

/** A parsed script expression. */
export type ScriptNode =
  | { fn: 'pk' | 'pkh' | 'wpkh' | 'tr'; key: KeyExpression }
  | { fn: 'sh' | 'wsh'; inner: ScriptNode }
  | { fn: 'multi' | 'sortedmulti'; threshold: number; keys: KeyExpression[] }
  | { fn: 'addr'; address: string; scriptPubKey: Uint8Array; networks: NetworkName[] }
  | { fn: 'raw'; scriptPubKey: Uint8Array };

type Level = 'top' | 'sh' | 'wsh';

const MAX_MULTI_KEYS: Record<Level, number> = { top: 3, sh: 15, wsh: 20 };
const MAX_P2SH_SCRIPT = 520;

const UNSUPPORTED: Record<string, string> = {
  combo: 'combo() describes several scripts per key; give one descriptor per script type (e.g. wpkh(...))',
  rawtr: 'rawtr() (a taproot output key without its internal key) is not supported',
  multi_a: 'taproot multisig (multi_a) is not supported',
  sortedmulti_a: 'taproot multisig (sortedmulti_a) is not supported',
  musig: 'MuSig2 keys (musig) are not supported',
};

const MINISCRIPT = new Set([
  'and_v',
  'and_b',
  'and_n',
  'andor',
  'or_b',
  'or_c',
  'or_d',
  'or_i',
  'thresh',
  'older',
  'after',
  'sha256',
  'hash256',
  'ripemd160',
  'hash160',
  'pk_k',
  'pk_h',
  'multi_a',
]);

class DescriptorParser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly allowPrivateKeys: boolean,
  ) {}

  parse(): ScriptNode {
    const node = this.script('top');
    if (this.pos !== this.text.length) {
      raise('syntax_error', `unexpected "${this.text.slice(this.pos, this.pos + 10)}" after the end of the descriptor`, this.pos);
    }
    return node;
  }

  private peek(): string {
    return this.text.charAt(this.pos);
  }

  private expect(ch: string, what: string): void {
    if (this.peek() !== ch) {
      const found = this.pos >= this.text.length ? 'the end of the text' : `"${this.peek()}"`;
      raise('syntax_error', `expected "${ch}" ${what}, found ${found}`, this.pos);
    }
    this.pos++;
  }

  /** Reads one argument up to the next top-level "," or ")". */
  private argument(): { text: string; start: number } {
    const start = this.pos;
    let depth = 0;
    while (this.pos < this.text.length) {
      const ch = this.peek();
      if (ch === '(' || ch === '{') depth++;
      else if (ch === ')' || ch === '}') {
        if (depth === 0) break;
        depth--;
      } else if (ch === ',' && depth === 0) break;
      this.pos++;
    }
    return { text: this.text.slice(start, this.pos), start };
  }

  private key(level: Level, context: KeyContext, fn: string): KeyExpression {
    const arg = this.argument();
    if (arg.text.includes('(')) raise('syntax_error', `${fn}() takes a key, not a script expression`, arg.start);
    return parseKeyExpression(arg.text, arg.start, level === 'wsh' ? 'segwit' : context, {
      allowPrivateKeys: this.allowPrivateKeys,
    });
  }

  private script(level: Level): ScriptNode {
    const start = this.pos;
    const match = /^[a-z_][a-z0-9_]*/.exec(this.text.slice(this.pos, this.pos + 40));
    if (!match) {
      if (level === 'top') raise('syntax_error', 'a descriptor starts with a script function such as wpkh(...) or tr(...)', start);
      raise('syntax_error', `${level}() takes a script expression such as wpkh(KEY) or multi(...), not a key`, start);
    }
    const name = match[0];
    this.pos += name.length;
    if (this.peek() === ':') raise('unsupported_function', 'miniscript wrappers (x:...) are not supported', start);
    if (this.peek() !== '(') raise('syntax_error', `expected "(" after ${name}`, this.pos);
    this.pos++;
    const node = this.body(name, level, start);
    this.expect(')', `to close ${name}(`);
    return node;
  }

  private body(name: string, level: Level, start: number): ScriptNode {
    switch (name) {
      case 'pk':
      case 'pkh':
        return { fn: name, key: this.key(level, 'legacy', name) };
      case 'wpkh':
        if (level === 'wsh') raise('invalid_nesting', 'wpkh() cannot be nested in wsh()', start);
        return { fn: 'wpkh', key: this.key(level, 'segwit', name) };
      case 'sh':
        if (level !== 'top') raise('invalid_nesting', 'sh() can only be used at the top level', start);
        return { fn: 'sh', inner: this.script('sh') };
      case 'wsh':
        if (level === 'wsh') raise('invalid_nesting', 'wsh() cannot be nested in wsh()', start);
        return { fn: 'wsh', inner: this.script('wsh') };
      case 'multi':
      case 'sortedmulti':
        return this.multi(name, level, start);
      case 'tr': {
        if (level !== 'top') raise('invalid_nesting', 'tr() can only be used at the top level', start);
        const key = this.key(level, 'taproot', name);
        if (this.peek() === ',')
          raise('unsupported_function', 'tr() with a script tree is not supported; only single-key tr(KEY) is', this.pos);
        return { fn: 'tr', key };
      }
      case 'addr': {
        if (level !== 'top') raise('invalid_nesting', 'addr() can only be used at the top level', start);
        const arg = this.argument();
        const parsed = parseAddress(arg.text);
        if (!parsed.ok) raise('invalid_address', `addr(): ${parsed.error.reason}`, arg.start);
        const { address, scriptPubKey, networks } = parsed.address;
        return { fn: 'addr', address, scriptPubKey, networks };
      }
      case 'raw': {
        if (level !== 'top') raise('invalid_nesting', 'raw() can only be used at the top level', start);
        const arg = this.argument();
        if (!/^([0-9a-fA-F]{2})*$/.test(arg.text)) raise('syntax_error', 'raw() takes a script in hex', arg.start);
        return { fn: 'raw', scriptPubKey: hex.decode(arg.text.toLowerCase()) };
      }
      default: {
        const why = UNSUPPORTED[name];
        if (why) raise('unsupported_function', why, start);
        if (MINISCRIPT.has(name)) raise('unsupported_function', `miniscript (${name}) is not supported`, start);
        raise('unknown_function', `unknown descriptor function "${name}"`, start);
      }
    }
  }

  private multi(name: 'multi' | 'sortedmulti', level: Level, start: number): ScriptNode {
    const thresholdArg = this.argument();
    if (!/^[0-9]{1,3}$/.test(thresholdArg.text)) {
      raise(
        'invalid_threshold',
        `${name}() starts with the number of required signatures, got "${thresholdArg.text.slice(0, 20)}"`,
        thresholdArg.start,
      );
    }
    const threshold = Number(thresholdArg.text);
    const keys: KeyExpression[] = [];
    while (this.peek() === ',') {
      this.pos++;
      keys.push(this.key(level, 'legacy', name));
    }
    if (keys.length === 0) raise('syntax_error', `${name}() needs at least one key`, this.pos);
    if (threshold < 1 || threshold > keys.length) {
      raise(
        'invalid_threshold',
        `${name}() threshold must be between 1 and the number of keys (${keys.length}), got ${threshold}`,
        thresholdArg.start,
      );
    }
    const max = MAX_MULTI_KEYS[level];
    if (keys.length > max) {
      const where = level === 'top' ? 'at the top level' : `inside ${level}()`;
      raise('too_many_keys', `${name}() allows at most ${max} keys ${where}, got ${keys.length}`, start);
    }
    if (level === 'sh') {
      // OP_k <keys> OP_n OP_CHECKMULTISIG: pushes are 1 + key length; k and n fit one opcode up to 16.
      const size = keys.reduce((sum, k) => sum + 1 + (k.key.kind === 'constant' ? k.key.publicKey.length : 33), 3);
      if (size > MAX_P2SH_SCRIPT)
        raise('script_too_large', `this ${name}() script is ${size} bytes, over the ${MAX_P2SH_SCRIPT}-byte P2SH limit`, start);
    }
    return { fn: name, threshold, keys };
  }
}

/** Parses a descriptor body (no checksum). Throws `KeyParseFailure`, which callers convert. */
export function parseScriptExpression(body: string, opts: { allowPrivateKeys: boolean }): ScriptNode {
  return new DescriptorParser(body, opts.allowPrivateKeys).parse();
}

/** Every key expression of a tree, in textual order. */
export function collectKeys(node: ScriptNode): KeyExpression[] {
  switch (node.fn) {
    case 'sh':
    case 'wsh':
      return collectKeys(node.inner);
    case 'multi':
    case 'sortedmulti':
      return [...node.keys];
    case 'addr':
    case 'raw':
      return [];
    default:
      return [node.key];
  }
}

/** The function skeleton of a tree, e.g. `sh(wsh(sortedmulti))`. */
export function shapeOf(node: ScriptNode): string {
  return node.fn === 'sh' || node.fn === 'wsh' ? `${node.fn}(${shapeOf(node.inner)})` : node.fn;
}
