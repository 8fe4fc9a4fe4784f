import { Type, type Static } from '@sinclair/typebox';
import { PageQueryFields } from '../platform/http/page.schemas.js';
import { Timestamp } from '../platform/http/schemas.js';
import { Permission } from './session.schemas.js';

export const RefreshState = Type.Union(
  [
    Type.Object({
      status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
      last_attempted_at: Type.Union([Timestamp('When the last refresh was requested (Unix seconds).'), Type.Null()]),
      next_refresh_available_at: Type.Union([
        Timestamp('Earliest time the provider lets us refresh again (Unix seconds); null when there is no limit.'),
        Type.Null(),
      ]),
      error: Type.Union([
        Type.Object({
          code: Type.String({
            description: '`provider_rate_limited`, `provider_unavailable`, `reauthentication_required` or `provider_error`.',
          }),
          message: Type.String(),
        }),
        Type.Null(),
      ]),
    }),
    Type.Null(),
  ],
  { description: 'State of the data refresh; null before the first refresh was requested.' },
);
export type RefreshState = Static<typeof RefreshState>;

export const Account = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `acct_`.' }),
    object: Type.Literal('account'),
    account_holder: Type.String(),
    session: Type.String({ description: 'The session in which it was connected.' }),
    provider: Type.Object({
      type: Type.Union([Type.Literal('exchange'), Type.Literal('wallet')]),
      id: Type.String({ description: 'Stable provider identifier, e.g. `sandbox` or `bitcoin`.' }),
      name: Type.String(),
    }),
    display_name: Type.String(),
    permissions: Type.Array(Permission),
    status: Type.Union([Type.Literal('active'), Type.Literal('disconnected'), Type.Literal('requires_reauth')]),
    ownership: Type.Object(
      {
        status: Type.Union([Type.Literal('verified'), Type.Literal('unverified')]),
        claim: Type.Union([Type.String(), Type.Null()], { description: 'The claim (`clm_…`) proving it; see GET /v1/verify/claims/{id}.' }),
      },
      {
        description:
          '`verified` with the claim while the account holder has proven in the connect flow that they control this wallet and the claim is shared with you (from Done until they revoke it); `unverified` with `claim: null` otherwise, and always for exchange accounts.',
      },
    ),
    balance_refresh: RefreshState,
    transaction_refresh: RefreshState,
    created_at: Timestamp('When it was connected (Unix seconds).'),
    livemode: Type.Boolean(),
  },
  { $id: 'Account', title: 'Account', description: 'An exchange account or wallet connected by an account holder.' },
);
export type Account = Static<typeof Account>;

export const AccountListQuery = Type.Object(
  {
    ...PageQueryFields,
    account_holder: Type.Optional(Type.String({ maxLength: 255, description: 'Only accounts of this account holder.' })),
    session: Type.Optional(Type.String({ maxLength: 255, description: 'Only accounts connected in this session.' })),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disconnected'), Type.Literal('requires_reauth')])),
  },
  { additionalProperties: false },
);
export type AccountListQuery = Static<typeof AccountListQuery>;

export const REFRESH_FEATURES = ['balances', 'transactions'] as const;
export type RefreshFeature = (typeof REFRESH_FEATURES)[number];

export const RefreshBody = Type.Object(
  {
    features: Type.Array(Type.Union(REFRESH_FEATURES.map((f) => Type.Literal(f))), {
      minItems: 1,
      uniqueItems: true,
      description: 'What to refresh: `balances`, `transactions` or both.',
    }),
  },
  { additionalProperties: false },
);

const Decimal = (description: string) =>
  Type.String({ pattern: '^-?\\d+(\\.\\d+)?$', description: `${description} Decimal string, never a float.`, examples: ['0.12345678'] });

export const Balance = Type.Object(
  {
    object: Type.Literal('balance'),
    asset: Type.String({ description: 'Asset code, e.g. `BTC`, `ETH`, `EUR`.' }),
    available: Decimal('What can be used or withdrawn now.'),
    total: Decimal('Everything held, including amounts on hold.'),
    as_of: Timestamp('When the provider reported it (Unix seconds).'),
  },
  { $id: 'Balance', title: 'Balance' },
);
export type Balance = Static<typeof Balance>;

export const Transaction = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `txn_`; stable across refreshes.' }),
    object: Type.Literal('transaction'),
    account: Type.String(),
    type: Type.Union(['deposit', 'withdrawal', 'trade', 'fee', 'transfer'].map((t) => Type.Literal(t))),
    asset: Type.String(),
    amount: Decimal('Signed: positive into the account, negative out of it.'),
    fee: Type.Union([Decimal('Fee charged, in `fee_asset`.'), Type.Null()]),
    fee_asset: Type.Union([Type.String(), Type.Null()]),
    occurred_at: Timestamp('When it happened (Unix seconds).'),
    status: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')]),
    tx_hash: Type.Union([Type.String(), Type.Null()], { description: 'On-chain transaction id, where known.' }),
    description: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Transaction', title: 'Transaction' },
);
export type Transaction = Static<typeof Transaction>;

export const AccountAddress = Type.Object(
  {
    object: Type.Literal('address'),
    address: Type.String(),
    asset: Type.String(),
    network: Type.String({ description: 'e.g. `bitcoin`, `bitcoin-testnet`, `ethereum`.' }),
    kind: Type.String({ description: '`deposit` (exchange), `receive` or `change` (wallet).' }),
    label: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'AccountAddress', title: 'Address' },
);
export type AccountAddress = Static<typeof AccountAddress>;
