import { anyOf, isBoolean, isInteger, isString, literal, nullable, object } from './shape.js';

/** How control of an address was shown. */
export const PROOF_FORMATS = ['bip322-simple', 'bip322-full', 'bip322-pof', 'legacy', 'deposit'] as const;
export type ProofFormat = (typeof PROOF_FORMATS)[number];

/** Far above any real receipt (a statement with a large proof-of-funds signature is ~200 KB). */
export const MAX_RECEIPT_LENGTH = 500_000;

/** What is proven: one address, or every address of a wallet (an output descriptor with checksum). */
export type ClaimSubject =
  { type: 'address'; address: string } | { type: 'wallet'; descriptor: string; addresses_derived_to: { receive: number; change: number } };

export interface ClaimProof {
  format: ProofFormat;
  /** The challenge, exactly as signed (or, for a deposit, as shown). */
  message: string;
  /** The address whose key signed (or that paid the deposit). */
  address: string;
  /** Base64 signature, as given (not for a deposit). */
  signature?: string;
  /** A deposit: the transaction that paid the challenge amount. */
  txid?: string;
  /** A wallet: the non-hardened path from the wallet key to `address`, e.g. `0/0`. */
  signed_path?: string;
}

/** What a claim receipt states: the claim as the issuer verified it (docs/verify.md, "Claims and receipts"). */
export interface ClaimStatement {
  id: string;
  account_holder_id: string;
  subject: ClaimSubject;
  address_type: string;
  /** `mainnet` in live mode; `testnet`, `signet` or `regtest` in test mode. */
  network: string;
  label: string | null;
  proof: ClaimProof;
  /** Unix seconds. */
  verified_at: number;
  /** The chain tip the issuer saw when it verified. */
  chain: { height: number; block_hash: string };
  livemode: boolean;
}

/** A receipt's signed payload: the statement and who issued it (the issuer's public base URL). */
export interface ReceiptPayload {
  iss: string;
  claim: ClaimStatement;
}

const isSubject = anyOf(
  object({ type: literal('address'), address: isString }),
  object({ type: literal('wallet'), descriptor: isString, addresses_derived_to: object({ receive: isInteger, change: isInteger }) }),
);
const isProof = object(
  { format: literal(...PROOF_FORMATS), message: isString, address: isString },
  { signature: isString, txid: isString, signed_path: isString },
);

/** Whether `value` has exactly the fields of a {@link ClaimStatement}. */
export const isClaimStatement = object({
  id: isString,
  account_holder_id: isString,
  subject: isSubject,
  address_type: isString,
  network: isString,
  label: nullable(isString),
  proof: isProof,
  verified_at: isInteger,
  chain: object({ height: isInteger, block_hash: isString }),
  livemode: isBoolean,
}) as (value: unknown) => value is ClaimStatement;
