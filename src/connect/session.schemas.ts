import { Type, type Static } from '@sinclair/typebox';
import { PageQueryFields } from '../platform/http/page.schemas.js';
import { Timestamp } from '../platform/http/schemas.js';
import { MAX_RETURN_URL_LENGTH } from './return-url.js';

export const SESSION_PERMISSIONS = ['balances', 'transactions', 'addresses'] as const;
export type SessionPermission = (typeof SESSION_PERMISSIONS)[number];

export const Permission = Type.Union(
  SESSION_PERMISSIONS.map((p) => Type.Literal(p)),
  { description: '`balances`, `transactions` or `addresses`.' },
);

export const Session = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `sess_`.' }),
    object: Type.Literal('session'),
    account_holder: Type.String({ description: 'The account holder this session is for (`ah_...`).' }),
    client_secret: Type.Union([Type.String(), Type.Null()], {
      description:
        'Per-session secret; also the last path segment of `hosted_url`. Only in the response to the create request (and its ' +
        'idempotent replay); null on every later read, in events and in webhooks: it opens the hosted pages, so it is shown ' +
        'once, as a Plaid link token or a Stripe client secret. Do not log it.',
    }),
    hosted_url: Type.Union([Type.String(), Type.Null()], {
      description:
        'Where to send the account holder, in the system browser. It contains `client_secret`, so it is shown only when `client_secret` is.',
    }),
    status: Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('abandoned')]),
    permissions: Type.Array(Permission),
    accounts: Type.Array(Type.String(), { description: 'Account ids collected in the session; filled when it completes.' }),
    account_ids: Type.Array(Type.String(), { description: 'The same ids as `accounts`.' }),
    return_url: Type.Union([Type.String(), Type.Null()]),
    expires_at: Timestamp('When an open session turns `abandoned` (Unix seconds).'),
    created_at: Timestamp('When it was created (Unix seconds).'),
    livemode: Type.Boolean(),
  },
  { $id: 'Session', title: 'Session', description: 'A hosted connection flow for one account holder.' },
);
export type Session = Static<typeof Session>;

export const CreateSessionBody = Type.Object(
  {
    permissions: Type.Array(Permission, {
      minItems: 1,
      uniqueItems: true,
      description: 'The data the client asks for; shown to the account holder before they connect anything.',
    }),
    account_holder: Type.String({ minLength: 1, maxLength: 255, description: 'Id of an account holder of this client and mode.' }),
    return_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_RETURN_URL_LENGTH,
        description:
          'Where to send the browser when the flow ends, with `session_id` and `status` added to the query. ' +
          '`https` (or `http` in test mode) or a custom app scheme such as `myapp://done`. ' +
          'No white space, control characters or backslashes (refused, never rewritten).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateSessionInput = Static<typeof CreateSessionBody>;

export const SessionListQuery = Type.Object(
  {
    ...PageQueryFields,
    account_holder: Type.Optional(Type.String({ maxLength: 255, description: 'Only sessions of this account holder.' })),
  },
  { additionalProperties: false },
);
export type SessionListQuery = Static<typeof SessionListQuery>;
