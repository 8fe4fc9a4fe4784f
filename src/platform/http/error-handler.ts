import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isStorageFull } from '../db/errors.js';
import { ApiError, errorBody } from './errors.js';
import { isIncompleteBody } from './incomplete-body.js';
import { validationError } from './validation.js';

const FASTIFY_CODES: Record<string, ConstructorParameters<typeof ApiError>[0]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'body_invalid',
};

const MIB = 1024 * 1024;

/** Maps anything thrown while handling a request to the API error the client sees. */
function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return validationError(fastifyError.validation, fastifyError.validationContext ?? 'body');
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  // Routes that take files have larger limits than the table's default message (1 MiB) names.
  if (mapped === 'body_too_large')
    return new ApiError(mapped, { message: `The request body is larger than ${request.routeOptions.bodyLimit / MIB} MiB.` });
  if (mapped) return new ApiError(mapped);
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) return new ApiError('invalid_json');
  if (isIncompleteBody(error, request)) return new ApiError('body_incomplete');
  // The transaction was rolled back: nothing was written, and the log keeps the database's own error.
  if (isStorageFull(error)) return new ApiError('storage_full');
  return new ApiError('api_error');
}

/**
 * The single error handler. Client errors are answered with their code and logged briefly; anything
 * else becomes a bare 500 whose details (stack included) go only to the log, under the request id.
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, request);
  if (apiError.status >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else {
    request.log.info({ code: apiError.code, param: apiError.param }, 'request rejected');
  }
  for (const [name, value] of Object.entries(apiError.headers)) reply.header(name, value);
  return reply.status(apiError.status).type('application/json; charset=utf-8').send(errorBody(apiError, request.id));
}
