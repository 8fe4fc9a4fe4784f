import { Option, type Command } from 'commander';
import { wholeNumber, type CliDeps } from '../cli.js';
import type { JobStatus } from './job.table.js';

/**
 * `ownproof jobs list` and `ownproof jobs retry`: dead jobs are kept for people to look at, and
 * this is where they look (and put one back in the queue once its cause is fixed).
 */
export function registerJobsCommands(program: Command, deps: CliDeps): void {
  const jobs = program.command('jobs').description('Inspect background jobs (dead ones are kept)');

  jobs
    .command('list')
    .description('List jobs, newest first')
    .addOption(new Option('--status <status>', 'only jobs in this state').choices(['pending', 'running', 'succeeded', 'dead']))
    .option('--type <type>', 'only jobs of this type (e.g. webhooks.deliver)')
    .option('--limit <n>', 'at most this many (1-1000)', wholeNumber('must be a whole number from 1 to 1000', 1, 1000), 50)
    .option('--json', 'one JSON object per line')
    .action(async (options: { status?: JobStatus; type?: string; limit: number; json?: boolean }) => {
      const { listJobs } = await import('./job.repository.js');
      await deps.withRuntime(async (runtime) => {
        const rows = await listJobs(runtime.ctx.db, {
          limit: options.limit,
          ...(options.status ? { status: options.status } : {}),
          ...(options.type ? { type: options.type } : {}),
        });
        for (const row of rows) {
          const job = {
            id: row.id,
            type: row.type,
            status: row.status,
            attempts: row.attempts,
            max_attempts: row.max_attempts,
            run_at: new Date(row.run_at).toISOString(),
            last_error: row.last_error,
          };
          deps.print(
            options.json
              ? JSON.stringify(job)
              : `${job.id}  ${job.type}  ${job.status}  attempts ${job.attempts}/${job.max_attempts}  run_at ${job.run_at}${job.last_error ? `  last error: ${job.last_error}` : ''}`,
          );
        }
        if (rows.length === 0 && !options.json) deps.print('No jobs match.');
      });
    });

  jobs
    .command('retry')
    .description('Put a dead job back in the queue with a fresh set of attempts')
    .argument('<job-id>', 'the job id (job_...)')
    .action(async (id: string) => {
      const { retryDeadJob } = await import('./job.repository.js');
      await deps.withRuntime(async (runtime) => {
        if (!(await retryDeadJob(runtime.ctx.db, id, runtime.ctx.clock.now()))) deps.fail(`no dead job with id ${id}`);
        deps.print(`Job ${id} is queued again.`);
      });
    });
}
