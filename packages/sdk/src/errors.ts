import type { components } from './generated/openapi.js';

/** The `error` object of every failed API response. */
export type ApiErrorBody = components['schemas']['Error']['error'];
/** Every stable error code the API documents (docs/errors.md). */
export type ErrorCode = ApiErrorBody['code'];

/** Anything this SDK throws: an API error, or a request that never got an answer. */
export class OwnproofError extends Error {
  override name = 'OwnproofError';
}

/**
 * The API answered with an error. `code` is stable and documented: branch on it, not on `message`.
 * `param` names the offending parameter when there is one; quote `requestId` to support.
 */
export class OwnproofApiError extends OwnproofError {
  override name = 'OwnproofApiError';
  readonly status: number;
  readonly type: ApiErrorBody['type'];
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  /** Seconds the API asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;
  readonly body: ApiErrorBody;

  constructor(status: number, body: ApiErrorBody, retryAfter: number | undefined) {
    super(body.message);
    this.status = status;
    this.type = body.type;
    this.code = body.code;
    this.param = body.param ?? undefined;
    this.requestId = body.request_id;
    this.retryAfter = retryAfter;
    this.body = body;
  }
}

/** No answer: the network failed or every attempt timed out, retries included. `cause` holds the last failure. */
export class OwnproofConnectionError extends OwnproofError {
  override name = 'OwnproofConnectionError';
}

/** A webhook whose signature, timestamp or body does not check out: answer 400 and do not act on it. */
export class WebhookVerificationError extends OwnproofError {
  override name = 'WebhookVerificationError';
}
