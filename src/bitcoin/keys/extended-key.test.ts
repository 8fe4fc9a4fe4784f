import { hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { deriveOutput } from './descriptor-derivation.js';
import { parseDescriptor } from './descriptor.js';
import { convertExtendedPublicKey, decodeExtendedKey } from './extended-key.js';
import { BIP32_INVALID_KEYS, BIP32_VECTORS, BIP49_VECTOR, SLIP132_VECTORS } from './fixtures/bip32-slip132-vectors.js';
import type { KeyErrorCode } from './parse-result.js';

function decodedNode(key: string, allowPrivate = false) {
  const result = decodeExtendedKey(key, { allowPrivate });
  if (!result.ok) throw new Error(`${key}: ${result.error.reason}`);
  return result.value;
}

describe('BIP-32 vectors 1-3', () => {
  const chains = BIP32_VECTORS.flatMap((v) => v.chains);

  it.each(chains)('decodes the public key of $path and serializes it back unchanged', ({ pub }) => {
    expect(decodedNode(pub).node.publicExtendedKey).toBe(pub);
  });

  it.each(chains)('decodes the private key of $path (when allowed) to the same public key', ({ pub, prv }) => {
    expect(decodedNode(prv, true).node.publicExtendedKey).toBe(pub);
  });

  const steps = BIP32_VECTORS.flatMap((v) =>
    v.chains.slice(1).flatMap((child, i) => {
      const parent = v.chains[i] as { pub: string };
      const last = child.path.split('/').pop() as string;
      return last.endsWith("'") ? [] : [{ parent: parent.pub, index: Number(last), child: child.pub, path: child.path }];
    }),
  );

  it('has the six public derivation steps of vectors 1 and 2 to check', () => expect(steps.length).toBe(6));

  it.each(steps)('derives $path from its parent xpub through a descriptor', ({ parent, index, child }) => {
    const d = parseDescriptor(`pk(${parent}/${index})`);
    if (!d.ok) throw new Error(d.error.reason);
    const childKey = decodedNode(child).node.publicKey as Uint8Array;
    expect(hex.encode(deriveOutput(d.value, 0).scriptPubKey)).toBe(`21${hex.encode(childKey)}ac`);
  });
});

describe('BIP-32 vector 5 (invalid keys)', () => {
  const expected = (reason: string): KeyErrorCode => {
    if (reason === 'unknown extended key version') return 'unknown_key_version';
    if (reason.startsWith('invalid pubkey') || reason.startsWith('private key')) return 'invalid_key';
    return 'invalid_extended_key';
  };

  it.each(BIP32_INVALID_KEYS)('rejects: $reason', ({ key, reason }) => {
    const result = decodeExtendedKey(key, { allowPrivate: true });
    expect(result.ok ? undefined : result.error.code).toBe(expected(reason));
  });

  it('reports private keys as such when they are not allowed', () => {
    const result = decodeExtendedKey(BIP32_VECTORS[0]?.chains[0]?.prv as string);
    expect(result.ok ? undefined : result.error.code).toBe('private_key_not_accepted');
  });
});

describe('SLIP-132', () => {
  it.each(SLIP132_VECTORS)('reads the $path account key with its announced script type', ({ pub, prv }) => {
    const info = decodedNode(pub);
    expect(info.network).toBe('mainnet');
    expect(info.prefix).toBe(pub.slice(0, 4));
    const fromPrivate = decodedNode(prv, true);
    expect(fromPrivate.scriptHint).toBe(info.scriptHint);
    expect(fromPrivate.node.publicExtendedKey).toBe(info.node.publicExtendedKey);
  });

  it('maps each prefix to the script type of the SLIP-132 registry', () => {
    expect(SLIP132_VECTORS.map((v) => decodedNode(v.pub).scriptHint)).toEqual(['p2pkh', 'p2sh-p2wpkh', 'p2wpkh']);
    expect(decodedNode(BIP49_VECTOR.account0Xpub).scriptHint).toBe('p2sh-p2wpkh');
    expect(decodedNode(BIP49_VECTOR.account0Xpub).network).toBe('test');
  });

  it('converts between prefixes of one network without changing the key', () => {
    const zpub = SLIP132_VECTORS[2].pub;
    const xpub = convertExtendedPublicKey(zpub, 'xpub');
    if (!xpub.ok) throw new Error(xpub.error.reason);
    expect(xpub.value.startsWith('xpub')).toBe(true);
    expect(decodedNode(xpub.value).node.publicKey).toEqual(decodedNode(zpub).node.publicKey);
    expect(convertExtendedPublicKey(xpub.value, 'zpub')).toEqual({ ok: true, value: zpub });
    for (const prefix of ['ypub', 'Ypub', 'Zpub'] as const) {
      const converted = convertExtendedPublicKey(zpub, prefix);
      expect(converted.ok && converted.value.startsWith(prefix)).toBe(true);
    }
  });

  it('refuses to convert across networks', () => {
    const result = convertExtendedPublicKey(SLIP132_VECTORS[2].pub, 'vpub');
    expect(result.ok ? undefined : result.error.code).toBe('wrong_network');
  });

  it('matches the BIP-49 account keys (uprv and upub)', () => {
    expect(decodedNode(BIP49_VECTOR.account0Xpriv, true).node.publicExtendedKey).toBe(
      decodedNode(BIP49_VECTOR.account0Xpub).node.publicExtendedKey,
    );
  });
});
