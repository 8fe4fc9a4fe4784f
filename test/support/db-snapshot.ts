import type { Kysely } from 'kysely';
import type { Database } from '../../src/platform/db/schema.js';

/** Every row of every table, as text per table: what "nothing changed" compares. */
export type DatabaseSnapshot = Map<string, string>;

/**
 * Reads every table of the database (found by introspection, so a table added later is included)
 * except `exclude`. Rows are serialised and sorted, so the snapshot does not depend on the order a
 * query happens to return them in.
 */
export async function snapshotDatabase(db: Kysely<Database>, exclude: readonly string[]): Promise<DatabaseSnapshot> {
  const tables = (await db.introspection.getTables()).map((t) => t.name).filter((name) => !exclude.includes(name));
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const contents = await Promise.all(
    tables.map(async (table) => {
      const rows = await untyped.selectFrom(table).selectAll().execute();
      return [
        table,
        rows
          .map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)))
          .sort()
          .join('\n'),
      ] as const;
    }),
  );
  return new Map(contents.sort(([a], [b]) => a.localeCompare(b)));
}

/** The tables whose rows differ between two snapshots, with the rows that appeared or went; '' when none. */
export function describeChanges(before: DatabaseSnapshot, after: DatabaseSnapshot): string {
  const changes: string[] = [];
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(table) ?? '';
    const is = after.get(table) ?? '';
    if (was === is) continue;
    const wasRows = new Set(was.split('\n'));
    const isRows = new Set(is.split('\n'));
    const gone = [...wasRows].filter((row) => row !== '' && !isRows.has(row));
    const added = [...isRows].filter((row) => row !== '' && !wasRows.has(row));
    changes.push(`${table}: ${[...gone.map((r) => `- ${r}`), ...added.map((r) => `+ ${r}`)].join('\n  ')}`);
  }
  return changes.join('\n');
}
