/**
 * Every error the API can return, one row each: HTTP status, type and message. Services throw
 * ApiError with a code from this table; the one error handler serialises it. docs/errors.md lists
 * the same codes, and a test keeps the two in step.
 */
export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'rate_limit_error' | 'api_error';

interface ErrorDefinition {
  status: number;
  type: ErrorType;
  /** Default message; `{param}` is replaced by the offending parameter's name. */
  message: string;
}

export const ERROR_TABLE = {
  api_key_missing: {
    status: 401,
    type: 'authentication_error',
    message: 'No API key provided. Send it as "Authorization: Bearer sk_test_...".',
  },
  api_key_malformed: {
    status: 401,
    type: 'authentication_error',
    message: 'The Authorization header must be "Bearer " followed by an sk_test_ or sk_live_ key.',
  },
  api_key_invalid: { status: 401, type: 'authentication_error', message: 'The API key is not recognised.' },
  api_key_revoked: { status: 401, type: 'authentication_error', message: 'The API key has been revoked or has expired.' },
  request_malformed: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request is not valid HTTP/1.1: its request line, a header or its length could not be read.',
  },
  headers_too_large: {
    status: 431,
    type: 'invalid_request_error',
    message: 'The request line and headers are larger than 16 KiB.',
  },
  request_timeout: {
    status: 408,
    type: 'invalid_request_error',
    message: 'The request did not arrive in time. Send it again.',
  },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON in UTF-8.' },
  body_invalid: { status: 400, type: 'invalid_request_error', message: 'The request body must be a JSON object.' },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'Request bodies must be sent with Content-Type: application/json, in UTF-8.',
  },
  body_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is larger than 1 MiB.' },
  body_incomplete: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The connection closed before the whole request body arrived. Send the request again.',
  },
  upload_malformed: {
    status: 400,
    type: 'invalid_request_error',
    message:
      'The upload is not a complete multipart/form-data body: its boundary is missing, a part is cut off, or it does not end with the closing boundary.',
  },
  parameter_unknown: { status: 400, type: 'invalid_request_error', message: 'Received unknown parameter: {param}.' },
  parameter_missing: { status: 400, type: 'invalid_request_error', message: 'Missing required parameter: {param}.' },
  parameter_invalid: { status: 400, type: 'invalid_request_error', message: 'Invalid value for {param}.' },
  resource_missing: { status: 404, type: 'invalid_request_error', message: 'No such object: {param}.' },
  route_not_found: { status: 404, type: 'invalid_request_error', message: 'Unrecognised request URL.' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'This URL does not accept that method.' },
  external_ref_taken: {
    status: 409,
    type: 'invalid_request_error',
    message: 'Another account holder of this client already has this external_ref.',
  },
  idempotency_key_reused: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This Idempotency-Key was already used with a different request body or endpoint.',
  },
  idempotency_request_in_progress: {
    status: 409,
    type: 'invalid_request_error',
    message: 'A request with this Idempotency-Key is still being processed. Retry after it finishes.',
  },
  rate_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many requests. Retry after the number of seconds in the Retry-After header.',
  },
  permission_missing: {
    status: 403,
    type: 'permission_error',
    message: 'The account holder did not grant this permission for this account.',
  },
  account_disconnected: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The account is disconnected; its data can no longer be refreshed.',
  },
  account_requires_reauth: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The provider login expired; the account holder must connect the account again in a new session.',
  },
  refresh_throttled: {
    status: 429,
    type: 'rate_limit_error',
    message: 'The provider does not allow another refresh yet; see next_refresh_available_at and Retry-After.',
  },
  access_request_type_unsupported: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The statement access request type is not supported through the API; use type "sharing".',
  },
  access_request_not_pending: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The access request is no longer pending.',
  },
  statement_permission_missing: {
    status: 403,
    type: 'permission_error',
    message: 'The account holder shared this claim with you without the statements permission.',
  },
  statement_not_ready: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The statement is still being computed; its PDF can be downloaded once it is completed.',
  },
  statement_failed: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The statement failed and has no document; generate a new statement.',
  },
  test_mode_only: {
    status: 403,
    type: 'permission_error',
    message: 'Test helpers act as the account holder would on the pages, and only in test mode: call them with an sk_test_ key.',
  },
  session_not_open: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The session is no longer open; only an open session can be completed or abandoned.',
  },
  session_opened_in_browser: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The account holder accepted this session in a browser, which alone can finish or cancel it now.',
  },
  no_shareable_claims: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The account holder has no claim they could share with this request; prove a wallet as this account holder first.',
  },
  webhook_endpoint_disabled: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The webhook endpoint is disabled and receives nothing; enable it first.',
  },
  mail_unavailable: {
    status: 503,
    type: 'api_error',
    message:
      'This server cannot e-mail the account holder: its operator has not configured SMTP_URL (needed for live mode, and for every mode in production).',
  },
  api_error: {
    status: 500,
    type: 'api_error',
    message: 'Something went wrong on our side. Try again; if it persists, contact support and quote the request id.',
  },
  storage_full: {
    status: 503,
    type: 'api_error',
    message: "The server's storage is full, so nothing was saved. Try again later; its operator has to free space.",
  },
  service_unavailable: {
    status: 503,
    type: 'api_error',
    message: 'The service is not ready to take requests. Try again shortly.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** An error meant for the API caller: a code from ERROR_TABLE, the parameter at fault, a message. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly status: number;
  readonly type: ErrorType;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: { param?: string | undefined; message?: string; headers?: Record<string, string> } = {}) {
    const definition: ErrorDefinition = ERROR_TABLE[code];
    super(options.message ?? definition.message.replace('{param}', options.param ?? 'the request'));
    this.name = 'ApiError';
    this.code = code;
    this.param = options.param;
    this.status = definition.status;
    this.type = definition.type;
    this.headers = options.headers ?? {};
  }
}

/**
 * The 404 for an id in the URL path that names nothing this client and mode can see (a missing
 * object and another tenant's look the same). Ids sent in the body or query string get `unknownId`.
 */
export function notFound(objectName: string, id: string): ApiError {
  return new ApiError('resource_missing', { param: 'id', message: `No such ${objectName}: '${id}'.` });
}

/**
 * The 400 for an id sent in the body or query string (a reference, a filter, a cursor) that names
 * nothing this client and mode can see: the URL is fine, a parameter is not, and `param` says which.
 */
export function unknownId(param: string, objectName: string, id: string): ApiError {
  return new ApiError('parameter_invalid', { param, message: `Invalid value for ${param}: no such ${objectName} '${id}'.` });
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; param?: string; request_id: string };
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      request_id: requestId,
    },
  };
}
