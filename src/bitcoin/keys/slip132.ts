/**
 * SLIP-132 version bytes: the registry of extended-key prefixes (xpub, ypub, zpub, ...) that
 * wallets use to signal the script type of an account key. BIP-32 itself only defines xpub/tpub;
 * the other prefixes encode the same 78-byte key with different version bytes.
 */

/** Mainnet keys, or one of the test networks (which share all their version bytes). */
export type KeyNetwork = 'mainnet' | 'test';

/** The script type a SLIP-132 prefix announces. */
export type KeyScriptHint = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2sh-p2wsh-multisig' | 'p2wsh-multisig';

/** Public extended-key prefixes this service accepts. */
export const PUBLIC_PREFIXES = ['xpub', 'ypub', 'zpub', 'Ypub', 'Zpub', 'tpub', 'upub', 'vpub', 'Upub', 'Vpub'] as const;
export type PublicKeyPrefix = (typeof PUBLIC_PREFIXES)[number];

/** One registered prefix pair. */
export interface Slip132Version {
  publicPrefix: PublicKeyPrefix;
  privatePrefix: string;
  publicVersion: number;
  privateVersion: number;
  network: KeyNetwork;
  script: KeyScriptHint;
}

/** Bitcoin rows of the SLIP-0132 table (satoshilabs/slips, slip-0132.md). */
export const SLIP132_VERSIONS: readonly Slip132Version[] = [
  {
    publicPrefix: 'xpub',
    privatePrefix: 'xprv',
    publicVersion: 0x0488b21e,
    privateVersion: 0x0488ade4,
    network: 'mainnet',
    script: 'p2pkh',
  },
  {
    publicPrefix: 'ypub',
    privatePrefix: 'yprv',
    publicVersion: 0x049d7cb2,
    privateVersion: 0x049d7878,
    network: 'mainnet',
    script: 'p2sh-p2wpkh',
  },
  {
    publicPrefix: 'zpub',
    privatePrefix: 'zprv',
    publicVersion: 0x04b24746,
    privateVersion: 0x04b2430c,
    network: 'mainnet',
    script: 'p2wpkh',
  },
  {
    publicPrefix: 'Ypub',
    privatePrefix: 'Yprv',
    publicVersion: 0x0295b43f,
    privateVersion: 0x0295b005,
    network: 'mainnet',
    script: 'p2sh-p2wsh-multisig',
  },
  {
    publicPrefix: 'Zpub',
    privatePrefix: 'Zprv',
    publicVersion: 0x02aa7ed3,
    privateVersion: 0x02aa7a99,
    network: 'mainnet',
    script: 'p2wsh-multisig',
  },
  { publicPrefix: 'tpub', privatePrefix: 'tprv', publicVersion: 0x043587cf, privateVersion: 0x04358394, network: 'test', script: 'p2pkh' },
  {
    publicPrefix: 'upub',
    privatePrefix: 'uprv',
    publicVersion: 0x044a5262,
    privateVersion: 0x044a4e28,
    network: 'test',
    script: 'p2sh-p2wpkh',
  },
  { publicPrefix: 'vpub', privatePrefix: 'vprv', publicVersion: 0x045f1cf6, privateVersion: 0x045f18bc, network: 'test', script: 'p2wpkh' },
  {
    publicPrefix: 'Upub',
    privatePrefix: 'Uprv',
    publicVersion: 0x024289ef,
    privateVersion: 0x024285b5,
    network: 'test',
    script: 'p2sh-p2wsh-multisig',
  },
  {
    publicPrefix: 'Vpub',
    privatePrefix: 'Vprv',
    publicVersion: 0x02575483,
    privateVersion: 0x02575048,
    network: 'test',
    script: 'p2wsh-multisig',
  },
];

/** The registry row and key kind for 4 version bytes, if registered. */
export function lookupVersion(version: number): { entry: Slip132Version; isPrivate: boolean } | undefined {
  for (const entry of SLIP132_VERSIONS) {
    if (entry.publicVersion === version) return { entry, isPrivate: false };
    if (entry.privateVersion === version) return { entry, isPrivate: true };
  }
  return undefined;
}

/** The registry row of a public prefix. */
export function versionOfPrefix(prefix: PublicKeyPrefix): Slip132Version {
  const entry = SLIP132_VERSIONS.find((e) => e.publicPrefix === prefix);
  if (!entry) throw new Error(`unregistered prefix ${prefix}`);
  return entry;
}

/** The plain BIP-32 row (xpub/tpub) of a network; descriptors carry keys in this form. */
export function bip32Version(network: KeyNetwork): Slip132Version {
  return versionOfPrefix(network === 'mainnet' ? 'xpub' : 'tpub');
}
