/** Public API of the key and descriptor module. */
export type { KeyError, KeyErrorCode, ParseResult } from './parse-result.js';
export { descriptorChecksum, checkDescriptorChecksum, withDescriptorChecksum } from './descriptor-checksum.js';
export { SLIP132_VERSIONS, PUBLIC_PREFIXES, type KeyNetwork, type KeyScriptHint, type PublicKeyPrefix } from './slip132.js';
export { decodeExtendedKey, convertExtendedPublicKey, type ExtendedKeyInfo } from './extended-key.js';
export {
  parseDescriptor,
  expandMultipath,
  type AddressType,
  type Descriptor,
  type DescriptorParseOptions,
  type Mode,
} from './descriptor.js';
export { deriveOutput, type DerivedOutput } from './descriptor-derivation.js';
export {
  parseWalletDescriptor,
  deriveWalletAddress,
  deriveWalletAddresses,
  descriptorForExtendedKey,
  type DerivedAddress,
  type WalletChain,
  type WalletDescriptor,
  type WalletInput,
} from './wallet-descriptor.js';
export { scanWallet, DEFAULT_GAP_LIMIT, type ChainScan, type GapScanOptions, type UsedAddress, type WalletScan } from './gap-scan.js';
