import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';

/**
 * SQLite ends a transaction by itself on some errors (SQLITE_FULL when the disk or max_page_count
 * is reached, SQLITE_IOERR, SQLITE_NOMEM). The transaction's ROLLBACK then finds none, and without
 * care that second error ("cannot rollback - no transaction is active") is what the caller gets
 * and the log shows, in place of the cause.
 */
describe('a SQLite transaction that SQLite rolled back itself', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterEach(() => database.destroy());

  it('fails with its cause, SQLITE_FULL, and the connection works on', async () => {
    const { db } = database.handle;
    await sql`create table filler (text text not null)`.execute(db);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]!.page_count;
    await sql.raw(`pragma max_page_count = ${pages + 2}`).execute(db);
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        for (let i = 0; i < 100; i++) await sql`insert into filler (text) values (${'x'.repeat(4000)})`.execute(trx);
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'SQLITE_FULL' });
    expect((await sql<{ n: number }>`select count(*) as n from filler`.execute(db)).rows[0]!.n).toBe(0);
  });
});
