/** True when a database error is a UNIQUE constraint violation, on either engine. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') return constraint === undefined || e.constraint === constraint;
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE') return true;
  return false;
}
