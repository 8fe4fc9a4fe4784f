import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Histogram } from 'prom-client';
import type { AppContext } from '../context.js';
import { randomBase62 } from '../crypto/random.js';
import { createLogger, redactSecrets } from '../http/logging.js';
import { exponentialBackoff, type CompiledJobDefinition, type JobCatalog } from './catalog.js';
import { jobRunDuration } from './job.metrics.js';
import { claimJobs, jobPayload, purgeSucceededJobs, renewLease, settleJob, settleSucceededJobs } from './job.repository.js';
import type { JobRow } from './job.table.js';

export interface WorkerOptions {
  /** Jobs run at the same time by this worker. */
  concurrency?: number;
  /** How long a claimed job stays reserved without a heartbeat; heartbeats renew it every third. */
  leaseMs?: number;
  /** Idle wait between looks for new work (enqueues in this process wake the worker at once). */
  pollIntervalMs?: number;
  /** Succeeded jobs older than this are deleted (dead ones are kept). */
  retainSucceededMs?: number;
  log?: FastifyBaseLogger;
  id?: string;
}

const DEFAULTS = { concurrency: 16, leaseMs: 30_000, pollIntervalMs: 500, retainSucceededMs: 7 * 24 * 3600_000 };
const PURGE_EVERY_MS = 10 * 60_000;

/**
 * Runs jobs from the jobs table: claims due work atomically under a lease, runs handlers with a
 * timeout, renews leases while they run, and settles each job as succeeded, retried later (with the
 * job type's backoff) or dead. Any number of workers, in any number of processes, can share a
 * database: a job whose worker died is taken again when its lease expires.
 */
export class Worker {
  readonly id: string;
  private readonly options: Required<Omit<WorkerOptions, 'log' | 'id'>>;
  private readonly log: FastifyBaseLogger;
  private readonly inflight = new Map<string, { promise: Promise<void>; abort: AbortController }>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private lastPurge = 0;
  private lastAbandonedCheck = 0;
  /** The job types this worker runs, fixed for its life. */
  private readonly types: string[];
  /** Succeeded jobs waiting to be marked so in one statement (see settleSucceeded). */
  private succeeded: { id: string; settled: () => void; failed: (error: unknown) => void }[] = [];
  private readonly runs: Histogram<'type' | 'outcome'>;

  constructor(
    private readonly ctx: AppContext,
    private readonly catalog: JobCatalog,
    options: WorkerOptions = {},
  ) {
    this.options = {
      concurrency: options.concurrency ?? DEFAULTS.concurrency,
      leaseMs: options.leaseMs ?? DEFAULTS.leaseMs,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
      retainSucceededMs: options.retainSucceededMs ?? DEFAULTS.retainSucceededMs,
    };
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBase62(6)}`;
    this.types = catalog.types();
    this.log = (options.log ?? createLogger(ctx.config.logLevel)).child({ worker: this.id });
    this.runs = ctx.metrics.histogram(jobRunDuration);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Looks for work now instead of at the next poll (call after enqueueing in this process). */
  notify(): void {
    this.wake?.();
  }

  get activeJobs(): number {
    return this.inflight.size;
  }

  /**
   * Stops taking work and waits up to `graceMs` for running jobs to finish. Jobs still running then
   * are aborted and handed back to the queue (their attempt is not counted), so another worker
   * picks them up at once instead of after their lease expires.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await this.loop;
    const finished = Promise.all([...this.inflight.values()].map((job) => job.promise));
    const timedOut = await Promise.race([finished.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      const now = this.ctx.clock.now();
      for (const [id, job] of this.inflight) {
        job.abort.abort(new Error('worker shutting down'));
        await settleJob(this.ctx.db, { id, workerId: this.id, status: 'pending', now, runAt: now, attemptsDelta: -1 });
      }
      await Promise.allSettled([...this.inflight.values()].map((job) => job.promise));
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const free = this.options.concurrency - this.inflight.size;
        const claimed = free > 0 ? await this.claim(free) : [];
        for (const job of claimed) this.execute(job);
        await this.maybePurge();
        if (claimed.length === free && free > 0) continue; // more may be waiting
        await this.idle(claimed.length === 0);
      } catch (error) {
        this.log.error({ err: error }, 'job worker loop failed; retrying');
        await sleep(this.options.pollIntervalMs);
      }
    }
  }

  /**
   * Takes abandoned jobs (expired leases) at least once a second and whenever due work does not
   * fill the free slots, so crashed work is picked up even while the queue is saturated.
   */
  private async claim(limit: number): Promise<JobRow[]> {
    const now = this.ctx.clock.now();
    const take = (kind: 'due' | 'abandoned', max: number) =>
      claimJobs(this.ctx.db, this.ctx.capabilities, {
        workerId: this.id,
        now,
        leaseMs: this.options.leaseMs,
        types: this.types,
        limit: max,
        kind,
      });
    const abandonedFirst = now - this.lastAbandonedCheck >= 1000;
    const claimed = abandonedFirst ? await take('abandoned', limit) : [];
    claimed.push(...(await take('due', limit - claimed.length)));
    if (abandonedFirst || claimed.length < limit) {
      if (!abandonedFirst) claimed.push(...(await take('abandoned', limit - claimed.length)));
      this.lastAbandonedCheck = now;
    }
    return claimed;
  }

  /** Waits for a wake-up, a finished job (a free slot) or, when there was nothing to do, the poll interval. */
  private async idle(nothingClaimed: boolean): Promise<void> {
    if (!this.running) return;
    const waits: Promise<unknown>[] = [new Promise<void>((resolve) => (this.wake = resolve))];
    if (nothingClaimed || this.inflight.size === 0) waits.push(sleep(this.options.pollIntervalMs));
    if (this.inflight.size > 0) waits.push(Promise.race([...this.inflight.values()].map((job) => job.promise)));
    await Promise.race(waits);
    this.wake = undefined;
  }

  private execute(job: JobRow): void {
    const abort = new AbortController();
    const promise = this.runJob(job, abort).finally(() => this.inflight.delete(job.id));
    this.inflight.set(job.id, { promise, abort });
  }

  private async runJob(job: JobRow, abort: AbortController): Promise<void> {
    const log = this.log.child({ job_id: job.id, job_type: job.type, attempt: job.attempts });
    const definition = this.catalog.get(job.type);
    const heartbeat = setInterval(() => void this.heartbeat(job, abort, log), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    const ran = this.runs.startTimer({ type: job.type });
    let timer: NodeJS.Timeout | undefined;
    try {
      if (!definition) throw new Error(`no handler for job type ${job.type}`);
      const payload = jobPayload(job, definition.check);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new Error(`timed out after ${definition.timeoutMs} ms`);
          abort.abort(error);
          reject(error);
        }, definition.timeoutMs);
      });
      // An aborted job settles at once, even if its handler ignores the signal and runs on.
      const aborted = new Promise<never>((_, reject) =>
        abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true }),
      );
      await Promise.race([
        definition.run(payload, { ctx: this.ctx, jobId: job.id, attempt: job.attempts, signal: abort.signal, log }),
        timeout,
        aborted,
      ]);
      clearTimeout(timer);
      await this.settleSucceeded(job.id);
      ran({ outcome: 'succeeded' });
    } catch (error) {
      clearTimeout(timer);
      if (!this.running && abort.signal.aborted) {
        ran({ outcome: 'interrupted' }); // handed back by stop()
        return;
      }
      ran({ outcome: (await this.fail(job, definition, error, log)) ? 'dead' : 'retried' });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Marks a succeeded job done together with the others that finish within the same 2 ms: one
   * UPDATE for many jobs instead of one each (settling was a third of the SQL a short job costs).
   * The job's slot frees only once its batch is written, so stop() and crash semantics are unchanged:
   * a crash before the write runs the job again, as it would have before.
   */
  private settleSucceeded(id: string): Promise<void> {
    return new Promise<void>((settled, failed) => {
      if (this.succeeded.push({ id, settled, failed }) === 1) setTimeout(() => void this.flushSucceeded(), 2);
    });
  }

  private async flushSucceeded(): Promise<void> {
    const batch = this.succeeded.splice(0);
    try {
      await settleSucceededJobs(this.ctx.db, { ids: batch.map((b) => b.id), workerId: this.id, now: this.ctx.clock.now() });
      for (const b of batch) b.settled();
    } catch (error) {
      for (const b of batch) b.failed(error);
    }
  }

  /** Settles a failed run: dead (true) or back in the queue after the type's delay (false). */
  private async fail(job: JobRow, definition: CompiledJobDefinition | undefined, error: unknown, log: FastifyBaseLogger): Promise<boolean> {
    const now = this.ctx.clock.now();
    const message = redactSecrets(error instanceof Error ? error.message : String(error)).slice(0, 1000);
    const dead = job.attempts >= job.max_attempts || definition === undefined;
    const delay = dead ? 0 : definition.retryDelayMs ? definition.retryDelayMs(job.attempts, error) : exponentialBackoff(job.attempts);
    await settleJob(this.ctx.db, {
      id: job.id,
      workerId: this.id,
      status: dead ? 'dead' : 'pending',
      now,
      runAt: now + delay,
      error: message,
    });
    if (dead) log.error({ err: error }, 'job failed for the last time; it is dead');
    else log.warn({ err: error, retry_in_ms: delay }, 'job failed; will retry');
    return dead;
  }

  private async heartbeat(job: JobRow, abort: AbortController, log: FastifyBaseLogger): Promise<void> {
    try {
      const held = await renewLease(this.ctx.db, {
        id: job.id,
        workerId: this.id,
        lockedUntil: this.ctx.clock.now() + this.options.leaseMs,
      });
      if (!held && !abort.signal.aborted) {
        log.warn('lost the lease on a running job; aborting it');
        abort.abort(new Error('lease lost'));
      }
    } catch (error) {
      log.warn({ err: error }, 'could not renew a job lease');
    }
  }

  private async maybePurge(): Promise<void> {
    const now = this.ctx.clock.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    const purged = await purgeSucceededJobs(this.ctx.db, now - this.options.retainSucceededMs);
    if (purged > 0) this.log.info({ purged }, 'deleted old succeeded jobs');
  }
}

/** A plain (ref'd) timer: a running worker is what keeps a worker process alive on SQLite. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
