import { Type } from '@sinclair/typebox';
import type { Db } from '../db/database.js';
import { jsonColumn } from '../db/json-column.js';
import { fetchPage, type PageRequest } from '../http/pagination.js';
import type { Scope } from '../scope.js';
import type { EventRow, NewEventRow } from './event.table.js';
import { ofTenant } from '../db/of-tenant.js';

/** `events.data`: the object the event is about, as the API showed it when the event happened. */
const EVENT_DATA = jsonColumn('events', 'data', Type.Record(Type.String(), Type.Unknown()));

/** The object an event row is about. */
export function eventObject(row: Pick<EventRow, 'id' | 'data'>): Record<string, unknown> {
  return EVENT_DATA.decode(row.data, row.id);
}

export interface EventFilter {
  type?: string;
  typePrefix?: string;
  createdGte?: number;
  createdLte?: number;
}

export async function insertEvent(db: Db, row: NewEventRow): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

export async function findEvent(db: Db, scope: Scope, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().$call(ofTenant(scope)).where('id', '=', id).executeTakeFirst();
}

export async function listEventRows(db: Db, scope: Scope, filter: EventFilter, page: PageRequest) {
  let query = db.selectFrom('events').selectAll().$call(ofTenant(scope));
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.typePrefix !== undefined) query = query.where('type', 'like', `${filter.typePrefix}%`);
  if (filter.createdGte !== undefined) query = query.where('created_at', '>=', filter.createdGte);
  if (filter.createdLte !== undefined) query = query.where('created_at', '<=', filter.createdLte);
  return fetchPage(query, page);
}
