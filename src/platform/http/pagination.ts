import type { FastifyRequest } from 'fastify';
import { sql, type SelectQueryBuilder } from 'kysely';
import { ApiError, unknownId } from './errors.js';
import { DEFAULT_PAGE_SIZE, type PageQueryInput } from './page.schemas.js';

// The schemas of list requests and responses, apart so that schema files need no SQL (page.schemas.ts).
export { DEFAULT_PAGE_SIZE, ListOf, PageQuery, PageQueryFields, type PageQueryInput } from './page.schemas.js';

/**
 * A page of a list as the API returns it. `url` is the route's own path with the request's path
 * parameters filled in (`/v1/connect/accounts/acct_…/transactions`): never a template, never the
 * `/api` alias, never a query string.
 */
export function listResponse<T>(request: Pick<FastifyRequest, 'routeOptions' | 'params'>, page: { data: T[]; has_more: boolean }) {
  const params = request.params as Record<string, string>;
  const url = (request.routeOptions.url ?? '').replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  return { object: 'list' as const, url, data: page.data, has_more: page.has_more };
}

/** A page request with cursors already resolved to the internal sequence numbers. */
export interface PageRequest {
  limit: number;
  afterSeq?: number;
  beforeSeq?: number;
}

/**
 * Resolves the cursor ids of a list query with `find` (whatever a list keys on: a sequence number,
 * a row). A cursor must name an object the caller can see: an id from another client reads as
 * unknown, exactly like one that never existed (`unknownId`, naming `objectName`).
 */
export async function resolveCursors<C>(
  query: PageQueryInput,
  find: (id: string) => Promise<C | undefined>,
  objectName = 'object',
): Promise<{ limit: number; after?: C; before?: C }> {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new ApiError('parameter_invalid', {
      param: 'ending_before',
      message: 'Send starting_after or ending_before, not both.',
    });
  }
  // A service called without validation (the CLI, a test) gets the default the schema gives requests.
  const page: { limit: number; after?: C; before?: C } = { limit: query.limit ?? DEFAULT_PAGE_SIZE };
  for (const param of ['starting_after', 'ending_before'] as const) {
    const id = query[param];
    if (id === undefined) continue;
    const found = await find(id);
    if (found === undefined) throw unknownId(param, objectName, id);
    if (param === 'starting_after') page.after = found;
    else page.before = found;
  }
  return page;
}

/** Cursors resolved to the internal sequence numbers `fetchPage` pages on. */
export async function resolvePage(query: PageQueryInput, findSeq: (id: string) => Promise<number | undefined>): Promise<PageRequest> {
  const { limit, after, before } = await resolveCursors(query, findSeq);
  return { limit, ...(after === undefined ? {} : { afterSeq: after }), ...(before === undefined ? {} : { beforeSeq: before }) };
}

/**
 * Runs a list query newest first, keyed on the ever-growing `seq` column. Keyset pagination keeps
 * pages stable when rows are inserted meanwhile: new rows only ever appear before the first page.
 */
export async function fetchPage<DB, TB extends keyof DB, O extends { seq: number }>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  /** The sequence column, qualified when the query joins tables. */
  column = 'seq',
): Promise<{ rows: O[]; hasMore: boolean }> {
  const seq = sql.ref<number>(column);
  if (page.beforeSeq !== undefined) {
    // Walk towards newer rows, then flip so the page still reads newest first.
    const rows = await query
      .where(seq, '>', page.beforeSeq)
      .orderBy(seq, 'asc')
      .limit(page.limit + 1)
      .execute();
    const hasMore = rows.length > page.limit;
    return { rows: rows.slice(0, page.limit).reverse(), hasMore };
  }
  const scoped = page.afterSeq === undefined ? query : query.where(seq, '<', page.afterSeq);
  const rows = await scoped
    .orderBy(seq, 'desc')
    .limit(page.limit + 1)
    .execute();
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
