import { sql, type RawBuilder } from 'kysely';
import type { Scope } from '../scope.js';

/** A query that takes a `where` (select, update, delete). */
interface Filterable<QB> {
  where(lhs: RawBuilder<unknown>, op: '=', rhs: string): QB;
}

/**
 * Keeps a query to one tenant's rows: `.$call(ofTenant(scope))` adds `client_id = scope.clientId`
 * and `mode = scope.mode` (docs/architecture.md, "Tenancy, auth and keys": every query of a
 * client's objects is filtered by its scope). For a select, update or delete of a table with both
 * columns; in a join, name the table or alias they are read from: `.$call(ofTenant(scope, 'g'))`.
 */
export function ofTenant(scope: Pick<Scope, 'clientId' | 'mode'>, table?: string) {
  const column = (name: 'client_id' | 'mode') => sql.ref(table === undefined ? name : `${table}.${name}`);
  return <QB extends Filterable<QB>>(qb: QB): QB =>
    qb.where(column('client_id'), '=', scope.clientId).where(column('mode'), '=', scope.mode);
}
