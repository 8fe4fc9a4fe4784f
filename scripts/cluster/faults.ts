import { setTimeout as sleep } from 'node:timers/promises';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import type { Cluster } from './cluster.js';

/** A fault the run made, when, and what it did. */
export interface FaultRecord {
  at: number;
  fault: string;
  detail: string;
}

/**
 * The faults of `--faults`, spread over a load of `seconds` that started at `start` (ms since
 * epoch): a server killed (SIGKILL) and started again on its port; the worker running a statement
 * killed (SIGKILL) and replaced (another takes the job once its lease ends); the SMTP sink and the
 * webhook receiver down for a few seconds; with `postgres`, the PostgreSQL server restarted.
 */
export async function runFaults(cluster: Cluster, start: number, seconds: number, options: { postgres: boolean }): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  const at = async (share: number) => sleep(Math.max(0, start + share * seconds * 1000 - Date.now()));
  const note = (fault: string, detail: string) => {
    records.push({ at: (Date.now() - start) / 1000, fault, detail });
    console.log(`[cluster] fault at ${((Date.now() - start) / 1000).toFixed(1)} s: ${fault} (${detail})`);
  };

  await at(0.15);
  await cluster.restartServe(0);
  note('serve killed', 'SIGKILL to server 1, a new one on its port');

  await at(0.3);
  const victim = await workerRunning(cluster.databaseUrl, 'verify.generate_statement', start + 0.5 * seconds * 1000);
  const id = victim && cluster.workers.has(victim) ? victim : [...cluster.workers.keys()][0]!;
  const replacement = await cluster.replaceWorker(id);
  note(
    'worker killed',
    `SIGKILL to worker ${id}${victim === id ? ' while it ran a statement' : ' (no statement was running)'}, replaced by ${replacement}`,
  );

  await at(0.45);
  await cluster.bounceSmtp(5_000);
  note('SMTP down', 'the sink closed for 5 s, then listening again on its port');

  await at(0.6);
  await cluster.bounceReceiver(3_000);
  note('webhook receiver down', 'closed for 3 s, then listening again on its port');

  if (options.postgres) {
    await at(0.75);
    restartPostgres();
    note('PostgreSQL restarted', 'pg_ctlcluster restart: every connection of every process dropped');
  }
  return records;
}

/** The worker holding a running job of `type`, waiting for one until `until` (ms since epoch). */
async function workerRunning(databaseUrl: string, type: string, until: number): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    while (Date.now() < until) {
      const { rows } = await client.query(`select locked_by from jobs where type = $1 and status = 'running' limit 1`, [type]);
      const lockedBy = (rows[0] as { locked_by: string } | undefined)?.locked_by;
      if (lockedBy) return lockedBy;
      await sleep(50);
    }
    return undefined;
  } finally {
    await client.end();
  }
}

/** Restarts this machine's PostgreSQL cluster (Debian's pg_ctlcluster), as root or through sudo. */
function restartPostgres(): void {
  const version = readdirSync('/etc/postgresql')[0];
  if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql to restart');
  const command = ['pg_ctlcluster', '--skip-systemctl-redirect', version, 'main', 'restart'];
  if (process.getuid?.() === 0) execFileSync(command[0]!, command.slice(1), { stdio: 'inherit' });
  else execFileSync('sudo', command, { stdio: 'inherit' });
}
