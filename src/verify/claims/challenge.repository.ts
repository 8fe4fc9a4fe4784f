import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { ChallengeRow, ChallengeTable } from '../verify.table.js';
import { jsonColumn } from '../../platform/db/json-column.js';
import { ChallengeOrigin, ChallengeSubject } from './challenge.schemas.js';

const CHALLENGE_SUBJECT = jsonColumn('verify_challenges', 'subject', ChallengeSubject);
const CHALLENGE_ORIGIN = jsonColumn('verify_challenges', 'origin', ChallengeOrigin);

/** The `subject` and `origin` texts of a challenge. */
export function encodeChallenge(challenge: {
  subject: ChallengeSubject;
  origin: ChallengeOrigin;
}): Pick<ChallengeRow, 'subject' | 'origin'> {
  return { subject: CHALLENGE_SUBJECT.encode(challenge.subject), origin: CHALLENGE_ORIGIN.encode(challenge.origin) };
}

/** What a challenge is about. */
export function challengeSubject(row: Pick<ChallengeRow, 'id' | 'subject'>): ChallengeSubject {
  return CHALLENGE_SUBJECT.decode(row.subject, row.id);
}

/** Where a challenge was started. */
export function challengeOrigin(row: Pick<ChallengeRow, 'id' | 'origin'>): ChallengeOrigin {
  return CHALLENGE_ORIGIN.decode(row.origin, row.id);
}

export async function insertChallenge(db: Db, row: Insertable<ChallengeTable>): Promise<void> {
  await db.insertInto('verify_challenges').values(row).execute();
}

export async function findChallenge(db: Db, id: string): Promise<ChallengeRow | undefined> {
  return db.selectFrom('verify_challenges').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Changes a challenge that is still open; false when it was not (used, expired or failed
 * meanwhile), so a challenge ends at most once however requests race.
 */
export async function updateOpenChallenge(db: Db, id: string, changes: Updateable<ChallengeTable>): Promise<boolean> {
  const result = await db
    .updateTable('verify_challenges')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Counts a failed attempt; returns the new count (undefined when the challenge is no longer open). */
export async function countFailedAttempt(db: Db, id: string): Promise<number | undefined> {
  const row = await db
    .updateTable('verify_challenges')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'open')
    .returning('failed_attempts')
    .executeTakeFirst();
  return row?.failed_attempts;
}

/** The highest deposit address index used in a mode (-1 when none). */
export async function lastDepositIndex(db: Db, mode: ChallengeRow['mode']): Promise<number> {
  const row = await db
    .selectFrom('verify_challenges')
    .select((eb) => eb.fn.max<number | null>('deposit_index').as('last'))
    .where('mode', '=', mode)
    .executeTakeFirst();
  return row?.last ?? -1;
}
