import { expect } from 'vitest';
import { describeChanges, snapshotDatabase } from './db-snapshot.js';
import type { TestApp } from './test-app.js';

/** Tables a refused request may still change: the PostgreSQL rate-limit counters count every request. */
const VOLATILE_TABLES = ['rate_limits'];

/** A request a test sends (through `TestApp.call` or `app.inject`). */
export type SendRequest = () => Promise<{ statusCode: number; body: string; json(): unknown }>;

/** An API error body, as tests read it. */
export interface ErrorAnswer {
  code: string;
  message: string;
  param?: string;
}

/**
 * Sends a request that must be refused: checks its status, code (and `param`, when given), and
 * that every table is as it was before. Returns the error, for the test to read its message.
 */
export async function expectRefusedUnchanged(
  t: TestApp,
  send: SendRequest,
  status: number,
  code: string,
  param?: string,
): Promise<ErrorAnswer> {
  const before = await snapshotDatabase(t.ctx.db, VOLATILE_TABLES);
  const res = await send();
  const error = (res.json() as { error: ErrorAnswer }).error;
  expect([res.statusCode, error.code], res.body).toEqual([status, code]);
  if (param !== undefined) expect(error.param, res.body).toBe(param);
  expect(describeChanges(before, await snapshotDatabase(t.ctx.db, VOLATILE_TABLES)), `${res.body} changed the database`).toBe('');
  return error;
}
