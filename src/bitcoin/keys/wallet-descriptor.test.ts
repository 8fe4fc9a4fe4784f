import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { convertExtendedPublicKey, decodeExtendedKey } from './extended-key.js';
import { ABANDON_MNEMONIC, BIP49_VECTOR, BIP84_VECTOR, BIP86_VECTOR, SLIP132_VECTORS } from './fixtures/bip32-slip132-vectors.js';
import {
  deriveWalletAddress,
  deriveWalletAddresses,
  descriptorForExtendedKey,
  parseWalletDescriptor,
  type WalletDescriptor,
} from './wallet-descriptor.js';

function wallet(
  input: Parameters<typeof parseWalletDescriptor>[0],
  opts: Parameters<typeof parseWalletDescriptor>[1] = {},
): WalletDescriptor {
  const result = parseWalletDescriptor(input, opts);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.reason}`);
  return result.value;
}

function publicOf(privateKey: string): string {
  const decoded = decodeExtendedKey(privateKey, { allowPrivate: true });
  if (!decoded.ok) throw new Error(decoded.error.reason);
  return decoded.value.node.publicExtendedKey;
}

describe('plain extended keys map to the descriptor their SLIP-132 prefix implies', () => {
  it.each(SLIP132_VECTORS)('$path: first receive address is $receive0', ({ pub, receive0 }) => {
    const w = wallet(pub);
    expect(w.source).toBe('extended-key');
    expect(deriveWalletAddress(w, 'receive', 0).address).toBe(receive0);
  });

  it('writes the implied descriptor with the key as xpub', () => {
    const [x, y, z] = SLIP132_VECTORS;
    const result = [x, y, z].map((v) => descriptorForExtendedKey(v.pub));
    expect(result.map((r) => (r.ok ? r.value.replace(/\(xpub[^/]+/, '(KEY').split('#')[0] : r.error.code))).toEqual([
      'pkh(KEY/<0;1>/*)',
      'sh(wpkh(KEY/<0;1>/*))',
      'wpkh(KEY/<0;1>/*)',
    ]);
  });

  it('asks a checksum only of descriptors the user typed, not of the ones written for a key or an address', () => {
    const [, , z] = SLIP132_VECTORS;
    const fromKey = parseWalletDescriptor(z.pub, { requireChecksum: true });
    expect(fromKey.ok ? deriveWalletAddress(fromKey.value, 'receive', 0).address : fromKey.error.code).toBe(z.receive0);
    const fromAddress = parseWalletDescriptor(z.receive0, { requireChecksum: true });
    expect(fromAddress.ok ? fromAddress.value.source : fromAddress.error.code).toBe('address');
    const typed = descriptorForExtendedKey(z.pub);
    const withoutChecksum = typed.ok ? typed.value.split('#')[0] : '';
    const refused = parseWalletDescriptor(withoutChecksum, { requireChecksum: true });
    expect(refused.ok ? 'accepted' : refused.error.code).toBe('missing_checksum');
  });

  it('refuses a lone multisig cosigner key (Zpub) and asks for a descriptor', () => {
    const zpub = SLIP132_VECTORS[2].pub;
    const converted = convertExtendedPublicKey(zpub, 'Zpub');
    const result = parseWalletDescriptor(converted.ok ? converted.value : '');
    expect(result.ok ? undefined : result.error.code).toBe('multisig_key_needs_descriptor');
  });
});

describe('BIP-84 vector', () => {
  it('derives the account key from the mnemonic (BIP-39 seed, path m/84h/0h/0h)', () => {
    const seed = pbkdf2(sha512, ABANDON_MNEMONIC.normalize('NFKD'), 'mnemonic', { c: 2048, dkLen: 64 });
    const zprv = { private: 0x04b2430c, public: 0x04b24746 };
    const root = HDKey.fromMasterSeed(seed, zprv);
    expect(root.privateExtendedKey).toBe(BIP84_VECTOR.rootnode);
    expect(root.derive("m/84'/0'/0'").privateExtendedKey).toBe(BIP84_VECTOR.account0Xpriv);
  });

  it('gives the vector addresses from the account zpub', () => {
    const zpub = convertExtendedPublicKey(publicOf(BIP84_VECTOR.account0Xpriv), 'zpub');
    const w = wallet(zpub.ok ? zpub.value : '');
    expect(deriveWalletAddresses(w, 'receive', 0, 2).map((a) => a.address)).toEqual([
      BIP84_VECTOR.receive0.address,
      BIP84_VECTOR.receive1.address,
    ]);
    expect(deriveWalletAddress(w, 'change', 0).address).toBe(BIP84_VECTOR.change0.address);
    expect(deriveWalletAddress(w, 'receive', 0).scriptPubKey.length).toBe(44);
  });
});

describe('BIP-49 vector (testnet)', () => {
  it('gives the vector address from the account upub', () => {
    const w = wallet(BIP49_VECTOR.account0Xpub);
    expect(w.network).toBe('testnet');
    expect(w.addressType).toBe('p2sh');
    expect(deriveWalletAddress(w, 'receive', 0).address).toBe(BIP49_VECTOR.receive0Address);
  });
});

describe('BIP-86 vector (taproot)', () => {
  const descriptor = `tr(${BIP86_VECTOR.accountXpub}/<0;1>/*)`;

  it('checks the account key against the vector root key', () => {
    expect(publicOf(BIP86_VECTOR.rootpriv)).toBe(BIP86_VECTOR.rootpub);
    expect(publicOf(BIP86_VECTOR.accountXprv)).toBe(BIP86_VECTOR.accountXpub);
  });

  it('gives the vector addresses and scripts through a tr() descriptor', () => {
    const w = wallet(descriptor);
    const r0 = deriveWalletAddress(w, 'receive', 0);
    const r1 = deriveWalletAddress(w, 'receive', 1);
    const c0 = deriveWalletAddress(w, 'change', 0);
    expect([r0.address, r1.address, c0.address]).toEqual([
      BIP86_VECTOR.receive0.address,
      BIP86_VECTOR.receive1.address,
      BIP86_VECTOR.change0.address,
    ]);
    expect([r0.scriptPubKey, r1.scriptPubKey, c0.scriptPubKey]).toEqual([
      BIP86_VECTOR.receive0.scriptPubKey,
      BIP86_VECTOR.receive1.scriptPubKey,
      BIP86_VECTOR.change0.scriptPubKey,
    ]);
  });

  it('treats the same account key given alone as BIP-44 (P2PKH), as its xpub prefix says', () => {
    expect(wallet(BIP86_VECTOR.accountXpub).addressType).toBe('p2pkh');
  });
});

describe('wallet inputs', () => {
  const tpubDescriptor =
    'wpkh(tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp/<0;1>/*)';

  it('splits a <0;1> descriptor into receive and change chains', () => {
    const w = wallet(tpubDescriptor, { network: 'regtest' });
    expect(w.receive.body.includes('/0/*')).toBe(true);
    expect(w.change?.body.includes('/1/*')).toBe(true);
    expect(deriveWalletAddress(w, 'receive', 0).address).not.toBe(deriveWalletAddress(w, 'change', 0).address);
    expect(deriveWalletAddress(w, 'receive', 0).address.startsWith('bcrt1q')).toBe(true);
  });

  it('accepts receive and change descriptors given separately, like Bitcoin Core lists them', () => {
    const combined = wallet(tpubDescriptor, { network: 'regtest' });
    const separate = wallet({ receive: combined.receive.text, change: combined.change?.text as string }, { network: 'regtest' });
    expect(deriveWalletAddress(separate, 'change', 3)).toEqual(deriveWalletAddress(combined, 'change', 3));
  });

  it('gives a single-path descriptor only a receive chain', () => {
    const w = wallet(tpubDescriptor.replace('<0;1>', '0'));
    expect(w.change).toBeUndefined();
    expect(() => deriveWalletAddress(w, 'change', 0)).toThrow(RangeError);
  });

  it('rejects descriptors whose scripts have no address, or with more than two paths', () => {
    const code = (input: string): string | undefined => {
      const r = parseWalletDescriptor(input);
      return r.ok ? undefined : r.error.code;
    };
    expect(code('pk(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd)')).toBe('no_address');
    expect(code(tpubDescriptor.replace('<0;1>', '<0;1;2>'))).toBe('too_many_paths');
    expect(code('')).toBe('empty_input');
    expect(code(SLIP132_VECTORS[2].pub.slice(0, -1))).toBe('invalid_extended_key');
  });

  it('takes a lone address as a one-address wallet, on its own network only', () => {
    const w = wallet(BIP84_VECTOR.receive0.address);
    expect(w.source).toBe('address');
    expect(w.isRange).toBe(false);
    expect(deriveWalletAddress(w, 'receive', 0).address).toBe(BIP84_VECTOR.receive0.address);
    const wrong = parseWalletDescriptor(BIP84_VECTOR.receive0.address, { network: 'regtest' });
    expect(wrong.ok ? undefined : wrong.error.code).toBe('wrong_network');
  });

  it('reports a mistyped extended key as an extended-key problem', () => {
    const typo = `${SLIP132_VECTORS[2].pub.slice(0, 40)}0${SLIP132_VECTORS[2].pub.slice(41)}`;
    const result = parseWalletDescriptor(typo);
    expect(result.ok ? undefined : result.error.code).toBe('invalid_extended_key');
  });

  it('refuses a mainnet key in test mode and a test key in live mode', () => {
    const live = parseWalletDescriptor(SLIP132_VECTORS[2].pub, { mode: 'test' });
    const test = parseWalletDescriptor(BIP49_VECTOR.account0Xpub, { mode: 'live' });
    expect(live.ok ? undefined : live.error.code).toBe('wrong_network');
    expect(test.ok ? undefined : test.error.code).toBe('wrong_network');
  });

  it('derives the same address twice from a warm cache', () => {
    const w = wallet(tpubDescriptor);
    const first = deriveWalletAddress(w, 'receive', 11);
    expect(deriveWalletAddress(w, 'receive', 11)).toEqual(first);
    expect(hex.decode(first.scriptPubKey).length).toBe(22);
  });
});
