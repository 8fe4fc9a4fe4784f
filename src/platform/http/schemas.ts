import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_TABLE } from './errors.js';

/** The error body every non-2xx API response carries. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      type: Type.Union(
        ['invalid_request_error', 'authentication_error', 'permission_error', 'rate_limit_error', 'api_error'].map((t) =>
          Type.Literal(t),
        ),
      ),
      code: Type.Union(Object.keys(ERROR_TABLE).map((code) => Type.Literal(code)), {
        description: 'Stable, machine-readable error code; see docs/errors.md.',
      }),
      message: Type.String({ description: 'Human-readable explanation; may change between versions.' }),
      param: Type.Optional(Type.String({ description: 'The request parameter at fault, when there is one.' })),
      request_id: Type.String({ description: 'Identifier of the request, also in the Request-Id header.' }),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (unknown, missing or invalid parameter, malformed JSON).',
  401: 'Missing, malformed, unknown or revoked API key.',
  403: 'The API key may not do this.',
  404: 'No such object for this client and mode, or no such URL.',
  409: 'Conflicts with the current state (e.g. a reused unique value).',
  413: 'Request body over 1 MiB.',
  415: 'Request body not sent as application/json in UTF-8.',
  429: 'Too many requests; retry after the Retry-After header.',
  500: 'Unexpected server error; details are in the server log under the request id.',
};

/** Response schemas for the error statuses a route can return, for OpenAPI and serialisation. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const all = [...new Set([400, 401, 500, ...statuses])].sort();
  return Object.fromEntries(all.map((status) => [status, Type.Ref(ErrorResponse, { description: ERROR_DESCRIPTIONS[status] })]));
}

/**
 * The longest object id the API reads, wherever it is sent (path, cursor, filter, body field).
 * Ours are far shorter; a longer one is `parameter_invalid`, a shorter unknown one a 404.
 */
export const MAX_ID_LENGTH = 255;

/** Common shape of object ids in path parameters. */
export function IdParams(description: string) {
  return Type.Object({ id: Type.String({ description, maxLength: MAX_ID_LENGTH }) }, { additionalProperties: false });
}

/** Unix timestamp in seconds. */
export function Timestamp(description: string) {
  return Type.Integer({ description, examples: [1_763_700_000] });
}
