/**
 * Types of each API operation, read from the generated document types by operationId: its JSON
 * body, query and 200 answer. Resources name operations; nothing here is written by hand twice.
 */
import type { operations } from './generated/openapi.js';

export type OperationId = keyof operations;
type Op<K extends OperationId> = operations[K];

/** The JSON request body of an operation. */
export type BodyOf<K extends OperationId> =
  Op<K> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Op<K> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B
      : never;

/** The query parameters of an operation. */
export type QueryOf<K extends OperationId> = Op<K> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The parsed 200 answer of an operation. */
export type ResultOf<K extends OperationId> =
  Op<K> extends { responses: { 200: { content: { 'application/json': infer R } } } } ? R : never;

/** The object type of a list operation's pages. */
export type ItemOf<K extends OperationId> = ResultOf<K> extends { data: (infer T)[] } ? T : never;

/** A list's query without its cursor, which the SDK moves for you. */
export type ListParams<K extends OperationId> = Omit<QueryOf<K>, 'starting_after'>;
