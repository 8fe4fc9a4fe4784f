import type { Kysely, Migration } from 'kysely';

/** Rows read per round: session events of a busy install may be many. */
const BATCH = 500;

/**
 * Connect: a session's client secret opens its hosted pages, so the API now shows it only in the
 * create response (docs/connect.md, "The client secret is shown once"). Session events recorded
 * before held the session with its secret, in `events.data`, returned by `/v1/events` and sent
 * again on every resend: this sets `client_secret` and `hosted_url` to null in them, as the events
 * recorded from now on have them. Read and written in JavaScript (the same on both engines; the
 * other fields and their order are kept).
 */
export function sessionEventsWithoutSecretMigration(): Migration {
  return {
    async up(untyped: Kysely<unknown>) {
      const db = untyped.withTables<{ events: { seq: number; type: string; data: string } }>();
      for (let after = 0; ;) {
        const rows = await db
          .selectFrom('events')
          .select(['seq', 'data'])
          .where('type', 'in', ['session.completed', 'session.abandoned'])
          .where('seq', '>', after)
          .orderBy('seq')
          .limit(BATCH)
          .execute();
        for (const row of rows) {
          const session = JSON.parse(row.data) as Record<string, unknown>;
          if (session.client_secret === null && session.hosted_url === null) continue;
          const data = JSON.stringify({ ...session, client_secret: null, hosted_url: null });
          await db.updateTable('events').set({ data }).where('seq', '=', row.seq).execute();
        }
        if (rows.length < BATCH) return;
        after = Number(rows.at(-1)?.seq);
      }
    },
  };
}
