import type { Generated, Insertable, Selectable } from 'kysely';
import type { Mode } from '../scope.js';

export interface EventTable {
  seq: Generated<number>;
  id: string;
  client_id: string;
  mode: Mode;
  type: string;
  /** JSON of the API object the event is about, as it was when the event happened. */
  data: string;
  created_at: number;
}

export type EventRow = Selectable<EventTable>;
export type NewEventRow = Insertable<EventTable>;

export interface EventsTables {
  events: EventTable;
}
