import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, engines } from '../../../test/support/database.js';
import { databaseEnv, runOwnproof } from '../../../test/support/cli-process.js';
import { migrateToLatest } from './migrate.js';
import { allMigrations } from './migrations/index.js';

describe.each(engines())('migrations on %s', (engine) => {
  it('applies every migration once; running them again is a no-op', async () => {
    const database = await createTestDatabase(engine, { migrated: false });
    try {
      const names = Object.keys(allMigrations(database.handle.capabilities));
      expect((await migrateToLatest(database.handle)).applied).toEqual(names);
      expect((await migrateToLatest(database.handle)).applied).toEqual([]);
      const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.handle.db);
      expect(recorded.rows.map((r) => r.name)).toEqual(names);
    } finally {
      await database.destroy();
    }
  });

  it('lets several processes start together: exactly one applies the migrations, none fails', async () => {
    const database = await createTestDatabase(engine, { migrated: false });
    try {
      const runs = await Promise.all([1, 2, 3].map(() => runOwnproof(['migrate'], databaseEnv(database.config))));
      for (const run of runs) expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
      const appliedAll = runs.filter((run) => run.stdout.startsWith('Applied'));
      expect(appliedAll).toHaveLength(1);
      expect(runs.filter((run) => run.stdout.includes('up to date'))).toHaveLength(2);
      expect((await migrateToLatest(database.handle)).applied).toEqual([]);
    } finally {
      await database.destroy();
    }
  });

  it('orders migration names so they run in the order they were written', () => {
    const names = Object.keys(
      allMigrations({
        supportsSkipLocked: false,
        supportsRowLocks: false,
        supportsAdvisoryLocks: false,
        singleWriter: true,
        identityColumn: 'autoincrement',
      }),
    );
    expect(names).toEqual([...names].sort());
    for (const name of names) expect(name).toMatch(/^\d{4}_[a-z_]+$/);
  });
});
