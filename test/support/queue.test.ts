import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto/random.js';
import { insertJob } from '../../src/platform/jobs/job.repository.js';
import { createTestDatabase, engines, type TestDatabase } from './database.js';
import { queueIdle } from './queue.js';

describe.each(engines())('queueIdle on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await database.destroy();
  });

  it('counts a job enqueued while it asks as due: the clock is read after the jobs', async () => {
    const enqueuedAt = 1_000_000;
    await insertJob(database.handle.db, {
      id: newId('job'),
      type: 'test.follow_up',
      payload: '{}',
      status: 'pending',
      run_at: enqueuedAt,
      attempts: 0,
      max_attempts: 1,
      locked_by: null,
      locked_until: null,
      last_error: null,
      dedupe_key: null,
      created_at: enqueuedAt,
      updated_at: enqueuedAt,
      finished_at: null,
    });
    // The follow-up's time comes while the jobs are read (their query waiting for a connection):
    // before the rows are back the clock is short of it, after it is past.
    let read = false;
    const db = database.handle.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        read = true;
        return args.result;
      },
    });
    const clock = { now: () => (read ? enqueuedAt + 1 : enqueuedAt - 1) };
    expect(await queueIdle({ db, clock })).toBe(false);
    // Not yet due when read after the jobs: idle.
    expect(await queueIdle({ db: database.handle.db, clock: { now: () => enqueuedAt - 1 } })).toBe(true);
  });
});
