import type { Db } from '../../platform/db/database.js';
import type { OAuthAttemptRow, OAuthAttemptTable } from '../connect.table.js';
import type { Insertable } from 'kysely';

export async function insertOAuthAttempt(db: Db, row: Insertable<OAuthAttemptTable>): Promise<void> {
  await db.insertInto('connect_oauth_attempts').values(row).execute();
}

/**
 * Takes the attempt whose state hashes to `stateHash`, if it has not expired: deletes it in the
 * same statement, so a state replayed (a reload, a second tab, an attacker) finds none.
 */
export async function takeOAuthAttempt(db: Db, stateHash: string, now: number): Promise<OAuthAttemptRow | undefined> {
  return db
    .deleteFrom('connect_oauth_attempts')
    .where('state_hash', '=', stateHash)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Drops attempts nobody came back from in time (each holds a sealed PKCE verifier). */
export async function deleteExpiredOAuthAttempts(db: Db, now: number): Promise<void> {
  await db.deleteFrom('connect_oauth_attempts').where('expires_at', '<=', now).execute();
}
