import type { Db } from '../db/database.js';
import type { NewOutboxMessageRow, OutboxMessageRow } from './outbox.table.js';

export async function insertOutboxMessage(db: Db, row: NewOutboxMessageRow): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}

export async function findOutboxMessage(db: Db, id: string): Promise<OutboxMessageRow | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The newest message, to one recipient when `to` is given (index `mail_outbox_to`). */
export async function latestOutboxMessage(db: Db, to?: string): Promise<OutboxMessageRow | undefined> {
  let query = db.selectFrom('mail_outbox').selectAll();
  if (to !== undefined) query = query.where('to_address', '=', to);
  return query.orderBy('seq', 'desc').limit(1).executeTakeFirst();
}

/** Up to `limit` messages, newest first, older than the message `before` when given; one more tells whether more exist. */
export async function listOutboxMessages(db: Db, options: { limit: number; before?: string }): Promise<{ rows: OutboxMessageRow[]; hasMore: boolean }> {
  let query = db.selectFrom('mail_outbox').selectAll();
  if (options.before !== undefined) {
    const before = db.selectFrom('mail_outbox').select('seq').where('id', '=', options.before);
    query = query.where('seq', '<', before);
  }
  const rows = await query.orderBy('seq', 'desc').limit(options.limit + 1).execute();
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}
