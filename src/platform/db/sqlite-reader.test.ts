import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { createClient } from '../../clients/client.service.js';
import { findAccountHolder } from '../../connect/account-holder.repository.js';
import { createAccountHolder } from '../../connect/account-holder.service.js';
import { systemClock } from '../clock.js';
import type { Scope } from '../scope.js';

/** The next event-loop turn: the reader's snapshot of this turn has ended. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

// The read connection and its snapshots exist on SQLite only; PostgreSQL reads use the pool.
describe('SQLite prepared reads share a snapshot per event-loop turn', () => {
  let database: TestDatabase;
  let file: string;
  let scope: Scope;
  let holderId: string;

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    file = (database.config as { file: string }).file;
    const deps = { db: database.handle.db, clock: systemClock, capabilities: database.handle.capabilities };
    const client = await createClient(deps, { name: 'Reader' });
    scope = { clientId: client.clientId, mode: 'test' };
    holderId = (await createAccountHolder(deps, scope, { email: 'ada@example.com', name: 'Before' })).id;
    await nextTurn();
  });
  afterEach(() => database.destroy());

  it('sees a write of this process at once, within the same turn as an earlier read', async () => {
    const { db } = database.handle;
    expect((await findAccountHolder(db, scope, holderId))?.name).toBe('Before');
    await db.updateTable('account_holders').set({ name: 'After' }).where('id', '=', holderId).execute();
    expect((await findAccountHolder(db, scope, holderId))?.name).toBe('After');
    await db
      .transaction()
      .execute((trx) => trx.updateTable('account_holders').set({ name: 'In a transaction' }).where('id', '=', holderId).execute());
    expect((await findAccountHolder(db, scope, holderId))?.name).toBe('In a transaction');
  });

  it('sees a write of another process from the next turn on', async () => {
    const { db } = database.handle;
    expect((await findAccountHolder(db, scope, holderId))?.name).toBe('Before');
    const other = new SQLite(file);
    try {
      other.prepare('UPDATE account_holders SET name = ? WHERE id = ?').run('Elsewhere', holderId);
    } finally {
      other.close();
    }
    await nextTurn();
    expect((await findAccountHolder(db, scope, holderId))?.name).toBe('Elsewhere');
  });

  it('holds back a WAL checkpoint only until the end of its turn', async () => {
    // No busy wait: the checkpoint reports at once whether a reader held it back.
    const checkpointer = new SQLite(file, { timeout: 0 });
    const truncate = () => checkpointer.pragma('wal_checkpoint(TRUNCATE)', { simple: false }) as { busy: number }[];
    try {
      await findAccountHolder(database.handle.db, scope, holderId);
      // The snapshot is open: a checkpoint that must reset the WAL cannot finish yet.
      expect(truncate()[0]?.busy).toBe(1);
      await nextTurn();
      expect(truncate()[0]?.busy).toBe(0);
    } finally {
      checkpointer.close();
    }
  });
});
