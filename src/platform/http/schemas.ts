import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_TABLE } from './errors.js';

/** The error body every non-2xx API response carries. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      type: Type.Union(
        ['invalid_request_error', 'authentication_error', 'permission_error', 'rate_limit_error', 'api_error'].map((t) => Type.Literal(t)),
      ),
      code: Type.Union(
        Object.keys(ERROR_TABLE).map((code) => Type.Literal(code)),
        {
          description: 'Stable, machine-readable error code; see docs/errors.md.',
        },
      ),
      message: Type.String({ description: 'Human-readable explanation; may change between versions.' }),
      param: Type.Optional(Type.String({ description: 'The request parameter at fault, when there is one.' })),
      request_id: Type.String({ description: 'Identifier of the request, also in the Request-Id header.' }),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

/** What each error status means, as the OpenAPI document describes it. */
export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (unknown, missing or invalid parameter, malformed JSON).',
  401: 'Missing, malformed, unknown or revoked API key.',
  403: 'The API key may not do this.',
  404: 'No such object for this client and mode, or no such URL.',
  409: 'Conflicts with the current state (e.g. a reused unique value).',
  413: 'Request body over 1 MiB.',
  415: 'Request body not sent as application/json in UTF-8.',
  429: 'Too many requests; retry after the Retry-After header.',
  500: 'Unexpected server error; details are in the server log under the request id.',
  503: "The server cannot take the request now: its database's disk is full (`storage_full`: nothing was saved). Retry later.",
};

/**
 * Response schemas for the error statuses a route can return, for OpenAPI and serialisation. Name
 * the ones only this route's handler gives (403, a 409 of its own): those every operation shares
 * (401, 429, 500, idempotency 409, 413/415, 404 on a path id) are declared centrally (openapi.ts).
 */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return errorResponsesOf([400, 401, 500, ...statuses]);
}

/** The error statuses of a route anyone may call (no API key, so no 401): exactly those given. */
export function publicErrorResponses(...statuses: number[]): Record<number, TSchema> {
  return errorResponsesOf([500, ...statuses]);
}

/** An error status's description, where the table has one. */
function description(status: number): { description?: string } {
  const text = ERROR_DESCRIPTIONS[status];
  return text === undefined ? {} : { description: text };
}

function errorResponsesOf(statuses: number[]): Record<number, TSchema> {
  const all = [...new Set(statuses)].sort();
  return Object.fromEntries(all.map((status) => [status, Type.Ref(ErrorResponse, description(status))]));
}

/**
 * The longest object id the API reads, wherever it is sent (path, cursor, filter, body field).
 * Ours are far shorter; a longer one is `parameter_invalid`, a shorter unknown one a 404.
 */
export const MAX_ID_LENGTH = 255;

/**
 * Schema keyword naming the prefix of the ids a path parameter takes (`acct_`): a machine-readable
 * statement of which kind of object the operation addresses, kept in the OpenAPI document (an `x-`
 * extension; validation ignores it). The route-security suite reads it to call every id-taking
 * operation with real objects of that kind belonging to another client or mode.
 */
export const ID_PREFIX_KEYWORD = 'x-id-prefix';

/**
 * The `{id}` path parameter of an operation on one kind of object: `IdParams('acct_', 'account')`
 * is described as "The account id (`acct_...`)." An id of the wrong shape is not refused here: it is
 * an unknown id (404), like another client's.
 */
export function IdParams(prefix: `${string}_`, noun: string) {
  return Type.Object(
    { id: Type.String({ description: `The ${noun} id (\`${prefix}...\`).`, maxLength: MAX_ID_LENGTH, [ID_PREFIX_KEYWORD]: prefix }) },
    { additionalProperties: false },
  );
}

/**
 * The content of a body or response that is a file's bytes: `type: string, format: binary`, which
 * client generators turn into their file or Blob type.
 */
export function binaryContent(mediaType: string, description?: string) {
  return { [mediaType]: { schema: { type: 'string', format: 'binary', ...(description === undefined ? {} : { description }) } } };
}

/** Unix timestamp in seconds. */
export function Timestamp(description: string) {
  return Type.Integer({ description, examples: [1_763_700_000] });
}
