/** True when a database error is a UNIQUE constraint violation, on either engine. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') return constraint === undefined || e.constraint === constraint;
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE') return true;
  return false;
}

/** True when the database could not write because its disk is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100). */
export function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'SQLITE_FULL' || code === '53100';
}
