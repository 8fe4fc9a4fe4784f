import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { ReceivedMail } from '../../test/support/smtp-sink.js';
import type { ReceivedWebhook } from '../../test/support/webhooks.js';

/** One invariant of a load run: its name and what broke it (nothing: it held). */
export interface Check {
  name: string;
  failures: string[];
}

/** What the checks read from the database once the queue has drained. */
export interface ClusterState {
  /** Jobs that are not finished or ended dead (scheduled ones, due later, are left out). */
  unfinishedJobs: { id: string; type: string; status: string }[];
  /** Events with at least one enabled endpoint of their client that subscribes to them. */
  subscribedEvents: { id: string; type: string }[];
  statements: { id: string; status: string }[];
  /** Usage records per statement (type statement_pdf). */
  pdfBillings: { resource_id: string; count: number }[];
  /** Stored PDFs per statement and format. */
  pdfDocuments: { statement_id: string; format: string; count: number }[];
  accessRequests: { id: string; email: string; notification_status: string; notification_error: string | null }[];
  /** statement.completed events per statement. */
  statementCompletions: Map<string, number>;
}

/** What the load itself saw and made. */
export interface LoadOutcome {
  statements: string[];
  accessRequests: string[];
  serverErrors: number;
  networkErrors: number;
  laneErrors: string[];
  webhooks: ReceivedWebhook[];
  mail: ReceivedMail[];
}

/**
 * The invariants a run must keep, each a list of what broke it: no job lost (left unfinished or
 * dead), every subscribed event delivered at least once, each statement completed exactly once
 * (one statement.completed), with one PDF per format and billed exactly once, each access request's e-mail sent exactly once, no
 * 5xx and no failed journey.
 */
export function checkRun(state: ClusterState, load: LoadOutcome): Check[] {
  const delivered = new Set(load.webhooks.map((w) => (JSON.parse(w.body) as { id: string }).id));
  const made = new Set(load.statements);
  const billed = new Map(state.pdfBillings.map((b) => [b.resource_id, Number(b.count)]));
  const mailTo = new Map<string, number>();
  for (const mail of load.mail) for (const to of mail.envelope.to) mailTo.set(to.toLowerCase(), (mailTo.get(to.toLowerCase()) ?? 0) + 1);
  const requested = new Set(load.accessRequests);
  return [
    { name: 'no job lost or dead', failures: state.unfinishedJobs.map((j) => `${j.type} ${j.id} is ${j.status}`) },
    {
      name: 'every subscribed event delivered at least once',
      failures: state.subscribedEvents.filter((e) => !delivered.has(e.id)).map((e) => `${e.type} ${e.id} never arrived`),
    },
    {
      name: 'every statement the load asked for completed',
      failures: [
        ...load.statements.filter((id) => !state.statements.some((s) => s.id === id)).map((id) => `${id} is missing`),
        ...state.statements.filter((s) => made.has(s.id) && s.status !== 'completed').map((s) => `${s.id} is ${s.status}`),
        ...load.statements
          .filter((id) => (state.statementCompletions.get(id) ?? 0) !== 1)
          .map((id) => `${id} completed ${state.statementCompletions.get(id) ?? 0} times (statement.completed events)`),
      ],
    },
    {
      name: 'each downloaded statement billed exactly once, one PDF per format',
      failures: [
        ...state.statements
          .filter((s) => made.has(s.id) && s.status === 'completed' && billed.get(s.id) !== 1)
          .map((s) => `${s.id} billed ${billed.get(s.id) ?? 0} times`),
        ...state.pdfDocuments.filter((d) => Number(d.count) !== 1).map((d) => `${d.statement_id} has ${d.count} ${d.format} PDFs`),
      ],
    },
    {
      // A request answered (by the test helper) before its mail job ran is not mailed at all, by design (verify-mail.ts).
      name: 'each access request e-mailed exactly once, or not at all when answered before its mail went out',
      failures: state.accessRequests
        .filter((r) => requested.has(r.id))
        .flatMap((r) => {
          const count = mailTo.get(r.email.toLowerCase()) ?? 0;
          const answeredFirst =
            r.notification_status === 'failed' && r.notification_error?.startsWith('not sent: the request was ') === true;
          if ((r.notification_status === 'sent' && count === 1) || (answeredFirst && count === 0)) return [];
          return [
            `${r.id}: notification ${r.notification_status}${r.notification_error ? ` (${r.notification_error})` : ''}, ${count} messages to its holder`,
          ];
        }),
    },
    {
      name: 'no 5xx answer and no connection failure',
      failures: [
        ...(load.serverErrors > 0 ? [`${load.serverErrors} answers were 5xx`] : []),
        ...(load.networkErrors > 0 ? [`${load.networkErrors} requests failed to connect`] : []),
      ],
    },
    { name: 'every journey completed', failures: load.laneErrors },
  ];
}

/** Reads the state the checks need; `now` (ms) separates jobs due from jobs scheduled later. */
export async function readClusterState(databaseUrl: string, now: number): Promise<ClusterState> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = async <T>(text: string, values: unknown[] = []) => (await client.query(text, values)).rows as T[];
    const endpoints = await rows<{ client_id: string; mode: string; enabled_events: string }>(
      `select client_id, mode, enabled_events from webhook_endpoints where status = 'enabled'`,
    );
    const events = await rows<{ id: string; type: string; client_id: string; mode: string; data: string }>(
      'select id, type, client_id, mode, data from events',
    );
    const statementCompletions = new Map<string, number>();
    for (const e of events.filter((e) => e.type === 'statement.completed')) {
      const id = (JSON.parse(e.data) as { id: string }).id;
      statementCompletions.set(id, (statementCompletions.get(id) ?? 0) + 1);
    }
    const subscribes = (e: (typeof events)[number]) =>
      endpoints.some(
        (ep) =>
          ep.client_id === e.client_id &&
          ep.mode === e.mode &&
          (JSON.parse(ep.enabled_events) as string[]).some((t) => t === '*' || t === e.type),
      );
    return {
      unfinishedJobs: await rows(
        `select id, type, status from jobs where status = 'dead' or (status in ('pending', 'running') and run_at <= $1)`,
        [now],
      ),
      subscribedEvents: events.filter(subscribes).map(({ id, type }) => ({ id, type })),
      statements: await rows('select id, status from verify_statements'),
      pdfBillings: await rows(`select resource_id, count(*) as count from usage_records where type = 'statement_pdf' group by resource_id`),
      pdfDocuments: await rows(
        'select statement_id, format, count(*) as count from verify_statement_documents group by statement_id, format',
      ),
      accessRequests: await rows(
        'select r.id, h.email, r.notification_status, r.notification_error from verify_access_requests r join account_holders h on h.id = r.account_holder_id',
      ),
      statementCompletions,
    };
  } finally {
    await client.end();
  }
}

/**
 * Waits until no job is due or running (the workers caught up), at most `timeoutMs`; the
 * scheduled ones (a session's expiry, a retry later) do not count.
 */
export async function waitForDrain(databaseUrl: string, timeoutMs: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await client.query(
        `select count(*)::int as n from jobs where status = 'running' or (status = 'pending' and run_at <= $1)`,
        [Date.now()],
      );
      if ((rows[0] as { n: number }).n === 0) return true;
      await sleep(500);
    }
    return false;
  } finally {
    await client.end();
  }
}
