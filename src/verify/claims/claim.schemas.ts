import { Type, type Static } from '@sinclair/typebox';
import { MAX_RECEIPT_LENGTH, PROOF_FORMATS, type ProofFormat } from '@ownproof/verify';
import { PageQueryFields } from '../../platform/http/page.schemas.js';
import { Timestamp } from '../../platform/http/schemas.js';

/** Each proof format in words, for people (the receipt check page, statement PDFs). */
export const PROOF_FORMAT_WORDS: Record<ProofFormat, string> = {
  'bip322-simple': 'a BIP-322 signature (simple)',
  'bip322-full': 'a BIP-322 signature (full)',
  'bip322-pof': 'a BIP-322 proof of funds',
  legacy: 'a signed message (legacy format)',
  deposit: 'a deposit paid from it',
};

const AddressSubject = Type.Object(
  { type: Type.Literal('address'), address: Type.String({ description: 'The address proven.' }) },
  { additionalProperties: false },
);
const WalletSubject = Type.Object(
  {
    type: Type.Literal('wallet'),
    descriptor: Type.String({
      description: 'The wallet as an output descriptor with checksum (an extended public key is shown as the descriptor it stands for).',
    }),
    addresses_derived_to: Type.Object(
      {
        receive: Type.Integer({
          minimum: 0,
          description: 'Receive addresses 0 … receive−1 were derived and looked up (gap limit 20 after the last used one).',
        }),
        change: Type.Integer({ minimum: 0, description: 'The same for change addresses (0 when the wallet has no change chain).' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const ClaimSubject = Type.Union([AddressSubject, WalletSubject], {
  description: 'What is proven: one address, or every address of a wallet.',
});
export type ClaimSubject = Static<typeof ClaimSubject>;

export const ClaimProof = Type.Object(
  {
    format: Type.Union(
      PROOF_FORMATS.map((f) => Type.Literal(f)),
      {
        description: 'How control was shown: a BIP-322 signature (simple, full or proof of funds), a legacy signed message, or a deposit.',
      },
    ),
    message: Type.String({ description: 'The challenge, exactly as signed (or, for a deposit, as shown).' }),
    address: Type.String({ description: 'The address whose key signed (or that paid the deposit).' }),
    signature: Type.Optional(Type.String({ description: 'Base64 signature, as given.' })),
    txid: Type.Optional(Type.String({ description: 'Deposit proofs: the transaction that paid the challenge amount.' })),
    signed_path: Type.Optional(
      Type.String({
        description: 'Wallet claims: the non-hardened path from the wallet key to `address`, e.g. `0/0` (receive chain, index 0).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ClaimProof = Static<typeof ClaimProof>;

/**
 * What a receipt states: the claim as verified, without its changing parts (status, sharing, balance).
 * @ownproof/verify checks the same shape (its `ClaimStatement`; claim.schemas.test.ts keeps the two equal).
 */
export const ClaimStatementFields = {
  id: Type.String({ description: 'Unique identifier, prefixed `clm_`.' }),
  account_holder_id: Type.String(),
  subject: ClaimSubject,
  address_type: Type.String({ description: '`p2pkh`, `p2sh`, `p2wpkh`, `p2wsh` or `p2tr`.' }),
  network: Type.String({ description: '`mainnet` in live mode; `testnet`, `signet` or `regtest` in test mode.' }),
  label: Type.Union([Type.String(), Type.Null()], { description: 'The account holder’s name for it.' }),
  proof: ClaimProof,
  verified_at: Timestamp('When the proof was checked (Unix seconds).'),
  chain: Type.Object(
    { height: Type.Integer(), block_hash: Type.String() },
    { additionalProperties: false, description: 'The chain tip the service saw when it verified.' },
  ),
  livemode: Type.Boolean(),
};
export const ClaimStatement = Type.Object(ClaimStatementFields, { additionalProperties: false });
export type ClaimStatement = Static<typeof ClaimStatement>;

export const ClaimBalance = Type.Object(
  {
    confirmed: Type.String({ description: 'Satoshis in confirmed outputs, decimal text.' }),
    unconfirmed: Type.String({ description: 'Satoshis added or spent by unconfirmed transactions (may be negative), decimal text.' }),
    as_of_height: Type.Integer({ description: 'The chain height the balance was read at.' }),
  },
  { description: 'Present when the claim is shared with you with the `balances` permission.' },
);

export const ClaimAccess = Type.Object(
  {
    permissions: Type.Array(Type.String(), {
      description: 'What the account holder lets you do with this claim: `balances`, `statements`.',
    }),
    granted_at: Timestamp('When they shared it with you, or last widened what you may do (Unix seconds).'),
    revoked_at: Type.Union([Timestamp('When they revoked your access (Unix seconds).'), Type.Null()]),
  },
  { additionalProperties: false, description: 'Your access to this claim, as the account holder granted it.' },
);
export type ClaimAccess = Static<typeof ClaimAccess>;

export const Claim = Type.Object(
  {
    ...ClaimStatementFields,
    object: Type.Literal('claim'),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')], {
      description: '`revoked` once the account holder withdrew it.',
    }),
    receipt: Type.String({
      description:
        'Compact JWS (EdDSA) over the claim’s statement; check it with `/.well-known/jwks.json`, `/verify` or `ownproof verify-claim`.',
    }),
    access: Type.Optional(ClaimAccess),
    balance: Type.Optional(ClaimBalance),
  },
  { $id: 'Claim', title: 'Claim', description: 'A verifiable receipt that an account holder controls a Bitcoin address or wallet.' },
);
export type Claim = Static<typeof Claim>;

export const ClaimListQuery = Type.Object(
  {
    ...PageQueryFields,
    account_holder_id: Type.Optional(Type.String({ maxLength: 255, description: 'Only claims of this account holder.' })),
  },
  { additionalProperties: false },
);
export type ClaimListQuery = Static<typeof ClaimListQuery>;

export const CheckReceiptBody = Type.Object(
  { receipt: Type.String({ minLength: 1, maxLength: MAX_RECEIPT_LENGTH, description: 'A claim receipt (compact JWS).' }) },
  { additionalProperties: false },
);

export const ReceiptCheck = Type.Object(
  {
    valid: Type.Boolean(),
    claim: Type.Optional(ClaimStatement),
    issuer: Type.Optional(Type.String()),
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('revoked')], {
        description:
          'The claim’s current status, when the receipt is valid. `revoked`: the account holder withdrew the claim since; rely on it only while `active`.',
      }),
    ),
    reason: Type.Optional(Type.String({ description: 'Why the receipt is not valid.' })),
    summary: Type.String({
      description:
        'The answer in one sentence, for people: starts `Valid:`, `Revoked:` (a genuine receipt whose claim no longer stands) or `Not valid:`.',
    }),
  },
  {
    $id: 'ReceiptCheck',
    title: 'Receipt check',
    description: '`valid` says the receipt is genuine (signature, Bitcoin proof, issued here); whether its claim still stands is `status`.',
  },
);
export type ReceiptCheck = Static<typeof ReceiptCheck>;
