import { Type, type Static } from '@sinclair/typebox';

/** Most logins, and most wallets, one completion connects: a person rarely connects more at once. */
const MAX_CONNECTIONS = 10;

const ExchangeLogin = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: 200,
      examples: ['user_good'],
      description:
        'A Sandbox Exchange login (docs/sandbox.md): `user_good`, `user_multi` (two accounts), `user_throttled`, `user_reauth`. ' +
        '`user_outage` and any other username are refused as the form refuses them.',
    }),
    password: Type.Optional(Type.String({ maxLength: 200, description: 'Default `pass_good`, the password of every working login.' })),
  },
  { additionalProperties: false },
);

const WalletConnection = Type.Object(
  {
    wallet: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4000,
        description:
          'What the person pastes into the wallet form: a test-network address, a tpub/upub/vpub or a descriptor. Default: the sandbox ' +
          'wallet’s descriptor (docs/sandbox.md), which has a history on the simulated chain.',
      }),
    ),
    prove_ownership: Type.Optional(
      Type.Boolean({
        description:
          'Also prove control of it, as "Prove you control it" then "Sign with the sandbox wallet" do: at Done its claim is shared with you ' +
          'and the account shows `ownership: verified`. Only the sandbox wallet’s keys can sign (its own descriptor, or one of its first 100 ' +
          'receive or change addresses); any other wallet is 400 `parameter_invalid` naming this field. Default false.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CompleteSessionBody = Type.Object(
  {
    exchange_logins: Type.Optional(
      Type.Array(ExchangeLogin, {
        minItems: 1,
        maxItems: MAX_CONNECTIONS,
        description: 'Sandbox Exchange logins, connected in this order.',
      }),
    ),
    wallets: Type.Optional(
      Type.Array(WalletConnection, {
        minItems: 1,
        maxItems: MAX_CONNECTIONS,
        description: 'Bitcoin wallets connected watch-only, after the logins.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'What the person connects before Done: at least one login or wallet.',
    examples: [{ exchange_logins: [{ username: 'user_good' }], wallets: [{ prove_ownership: true }] }],
  },
);
export type CompleteSessionInput = Static<typeof CompleteSessionBody>;
