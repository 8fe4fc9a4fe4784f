export { Ownproof, type OwnproofOptions } from './client.js';
export {
  OwnproofApiError,
  OwnproofConnectionError,
  OwnproofError,
  WebhookVerificationError,
  type ApiErrorBody,
  type ErrorCode,
} from './errors.js';
export { ListPromise, type Page } from './list.js';
export type { BodyOf, ItemOf, ListParams, OperationId, QueryOf, ResultOf } from './operations.js';
export type { PollOptions } from './poll.js';
export type { RequestOptions, TransportOptions } from './transport.js';
export { unwrap, type OwnproofEvent, type WebhookHeaders } from './webhooks.js';
export type { components, operations, paths } from './generated/openapi.js';
