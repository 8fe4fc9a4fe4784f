/** Single-key address types the simulated chain can sign for. */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';
import { NETWORK_PARAMS, type NetworkName } from '../../network.js';

export const SIM_ADDRESS_TYPES = ['p2wpkh', 'p2sh-p2wpkh', 'p2pkh', 'p2tr'] as const;
export type SimAddressType = (typeof SIM_ADDRESS_TYPES)[number];

/** A key the simulated chain holds, as one address type. */
export interface SimKey {
  type: SimAddressType;
  privateKey: Uint8Array;
  /** 33-byte compressed public key. */
  publicKey: Uint8Array;
  address: string;
  scriptPubKey: Uint8Array;
  /** P2SH-P2WPKH only: the P2WPKH program it wraps. */
  redeemScript?: Uint8Array;
}

/** The four single-key addresses of a private key on a network. */
export function keyAddresses(privateKey: Uint8Array, network: NetworkName): Record<SimAddressType, SimKey> {
  if (!secp256k1.utils.isValidSecretKey(privateKey)) throw new RangeError('not a valid secp256k1 private key');
  const params = NETWORK_PARAMS[network];
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const wpkh = p2wpkh(publicKey, params);
  const shWpkh = p2sh(wpkh, params);
  const pkh = p2pkh(publicKey, params);
  const tr = p2tr(publicKey.subarray(1), undefined, params);
  const base = { privateKey: Uint8Array.from(privateKey), publicKey };
  return {
    p2wpkh: { ...base, type: 'p2wpkh', address: wpkh.address as string, scriptPubKey: wpkh.script },
    'p2sh-p2wpkh': {
      ...base,
      type: 'p2sh-p2wpkh',
      address: shWpkh.address as string,
      scriptPubKey: shWpkh.script,
      redeemScript: wpkh.script,
    },
    p2pkh: { ...base, type: 'p2pkh', address: pkh.address as string, scriptPubKey: pkh.script },
    p2tr: { ...base, type: 'p2tr', address: tr.address as string, scriptPubKey: tr.script },
  };
}
