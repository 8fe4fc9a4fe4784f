import type { Db } from '../db/database.js';
import type { NewOutboxMessageRow, OutboxMessageRow } from './outbox.table.js';

/**
 * How long the development outbox shows a message. Its sign-in links live 15 minutes to 72 hours;
 * a day is plenty for a developer to follow one, and keeps working secrets from piling up in a
 * development database.
 */
const OUTBOX_TTL_SECONDS = 24 * 3600;

/** Stored at or before this time (Unix seconds), a message has expired at `now`. */
function expiredAt(now: number): number {
  return now - OUTBOX_TTL_SECONDS;
}

export async function insertOutboxMessage(db: Db, row: NewOutboxMessageRow): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}

/** Deletes up to `limit` messages expired at `now` (bounded, so one purge stays a short write). */
export async function deleteExpiredOutboxMessages(db: Db, now: number, limit: number): Promise<void> {
  // Oldest first by the primary key: expired rows are the first ones, so no index on created_at is needed.
  const expired = db.selectFrom('mail_outbox').select('seq').where('created_at', '<=', expiredAt(now)).orderBy('seq').limit(limit);
  await db.deleteFrom('mail_outbox').where('seq', 'in', expired).execute();
}

/** Deletes every message; returns how many (a production server keeps none). */
export async function deleteAllOutboxMessages(db: Db): Promise<number> {
  const result = await db.deleteFrom('mail_outbox').executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The message, unless it has expired at `now` (whether or not a purge has deleted it yet). */
export async function findOutboxMessage(db: Db, id: string, now: number): Promise<OutboxMessageRow | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).where('created_at', '>', expiredAt(now)).executeTakeFirst();
}

/** The newest message not expired at `now`, to one recipient when `to` is given (index `mail_outbox_to`). */
export async function latestOutboxMessage(db: Db, now: number, to?: string): Promise<OutboxMessageRow | undefined> {
  let query = db.selectFrom('mail_outbox').selectAll().where('created_at', '>', expiredAt(now));
  if (to !== undefined) query = query.where('to_address', '=', to);
  return query.orderBy('seq', 'desc').limit(1).executeTakeFirst();
}

/**
 * Up to `limit` messages not expired at `now`, newest first, older than the message `before` when
 * given; one more tells whether more exist.
 */
export async function listOutboxMessages(
  db: Db,
  now: number,
  options: { limit: number; before?: string },
): Promise<{ rows: OutboxMessageRow[]; hasMore: boolean }> {
  let query = db.selectFrom('mail_outbox').selectAll().where('created_at', '>', expiredAt(now));
  if (options.before !== undefined) {
    const before = db.selectFrom('mail_outbox').select('seq').where('id', '=', options.before);
    query = query.where('seq', '<', before);
  }
  const rows = await query
    .orderBy('seq', 'desc')
    .limit(options.limit + 1)
    .execute();
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}
