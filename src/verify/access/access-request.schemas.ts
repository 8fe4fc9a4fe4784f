import { Type, type Static } from '@sinclair/typebox';
import { PageQueryFields } from '../../platform/http/page.schemas.js';
import { MAX_ID_LENGTH, Timestamp } from '../../platform/http/schemas.js';
import { MESSAGE_KEYWORD } from '../../platform/http/validation.js';
import { ACCESS_REQUEST_STATUSES, NOTIFICATION_STATUSES } from '../verify.table.js';

/** What a client may ask of a claim (the spec's access-request permissions). */
export const ACCESS_PERMISSIONS = ['balances', 'statements'] as const;
export type AccessPermission = (typeof ACCESS_PERMISSIONS)[number];

/** What each permission lets the client do, in the spec's words; shown to the person before they share. */
export const PERMISSION_MEANINGS: Record<AccessPermission, string> = {
  balances: 'view the real-time balance of a claim',
  statements: 'request a statement for a claim, with transaction-level history and balance details at a point in time',
};

/** Longest message a client may show the person. */
export const MAX_REQUEST_MESSAGE_LENGTH = 500;
/** How long a request waits for the person by default, and at most. */
export const DEFAULT_REQUEST_TTL_SECONDS = 30 * 24 * 3600;
export const MAX_REQUEST_TTL_SECONDS = 90 * 24 * 3600;
/** The shortest wait a client may set: the person needs time to read the e-mail. */
export const MIN_REQUEST_TTL_SECONDS = 3600;

export const AccessPermissionSchema = Type.Union(
  ACCESS_PERMISSIONS.map((p) => Type.Literal(p)),
  { description: '`balances` (view the real-time balance of a claim) or `statements` (request statements for a claim).' },
);

const Notification = Type.Object(
  {
    status: Type.Union(
      NOTIFICATION_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          '`pending` until the e-mail is sent (also while retrying after a temporary failure; see `last_error`), then `sent` or `failed` (refused by the mail server, or retries exhausted).',
      },
    ),
    last_error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the last attempt to send failed, as the mail server said it.',
    }),
    sent_at: Type.Union([Timestamp('When the e-mail was handed to the mail server (Unix seconds).'), Type.Null()]),
  },
  { additionalProperties: false, description: 'The e-mail that tells the account holder about the request.' },
);

export const AccessRequest = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier, prefixed `ar_`.' }),
    object: Type.Literal('access_request'),
    type: Type.Literal('sharing', { description: 'Ongoing access to the claims the person picks, until they revoke it.' }),
    status: Type.Union(
      ACCESS_REQUEST_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          '`pending`, then `granted` (the person shared claims), `declined`, `expired` (no answer by `expires_at`) or `canceled` (by you).',
      },
    ),
    account_holder_id: Type.String(),
    permissions: Type.Array(AccessPermissionSchema),
    claim_ids: Type.Array(Type.String(), { description: 'The claims the person shared, once granted; empty before.' }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'Your message, shown to the person.' }),
    notification: Notification,
    created_at: Timestamp('When it was created (Unix seconds).'),
    expires_at: Timestamp('When a pending request turns `expired` (Unix seconds).'),
    responded_at: Type.Union([
      Timestamp('When the person granted or declined, or when it expired or was canceled (Unix seconds).'),
      Type.Null(),
    ]),
    livemode: Type.Boolean(),
  },
  {
    $id: 'AccessRequest',
    title: 'Access request',
    description: 'A request that an account holder share claims with you. They are told by e-mail and answer in the portal.',
  },
);
export type AccessRequest = Static<typeof AccessRequest>;

export const CreateAccessRequestBody = Type.Object(
  {
    type: Type.Union([Type.Literal('sharing'), Type.Literal('statement')], {
      description: '`sharing`. (`statement`, one-time access, is not supported through the API: 400 `access_request_type_unsupported`.)',
    }),
    account_holder_id: Type.String({
      minLength: 1,
      maxLength: MAX_ID_LENGTH,
      description: 'An account holder of yours in this mode; they receive the e-mail.',
    }),
    permissions: Type.Array(AccessPermissionSchema, {
      minItems: 1,
      uniqueItems: true,
      description: 'What you ask to do with the shared claims.',
    }),
    message: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_REQUEST_MESSAGE_LENGTH,
        // Plain text: line breaks are kept, other control characters are refused.
        pattern: '^[^\\u0000-\\u0009\\u000B-\\u001F\\u007F]*$',
        description: `Shown to the person with the request: plain text, at most ${MAX_REQUEST_MESSAGE_LENGTH} characters, line breaks allowed.`,
        [MESSAGE_KEYWORD]: `must be plain text of 1 to ${MAX_REQUEST_MESSAGE_LENGTH} characters (line breaks allowed, no other control characters)`,
      }),
    ),
    expires_at: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'When the request expires unanswered (Unix seconds): at least an hour and at most 90 days from now. Default: 30 days.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateAccessRequestInput = Static<typeof CreateAccessRequestBody>;

export const AccessRequestListQuery = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(
      Type.Union(
        ACCESS_REQUEST_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Only requests in this status.' },
      ),
    ),
    account_holder_id: Type.Optional(Type.String({ maxLength: MAX_ID_LENGTH, description: 'Only requests to this account holder.' })),
  },
  { additionalProperties: false },
);
export type AccessRequestListQuery = Static<typeof AccessRequestListQuery>;
