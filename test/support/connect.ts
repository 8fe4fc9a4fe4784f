import pino from 'pino';
import { jobCatalog } from '../../src/job-catalog.js';
import {
  acceptDisclaimer,
  connectWithProvider,
  finishSession,
  lookUpHostedSession,
  type HostedSession,
} from '../../src/connect/hosted-flow.service.js';
import type { AppContext } from '../../src/platform/context.js';
import { Worker } from '../../src/platform/jobs/worker.js';
import type { TestApp } from './test-app.js';

/** Creates an account holder and a session through the API; returns the session object. */
export async function createSessionFor(
  t: TestApp,
  key: string,
  body: { permissions?: string[]; return_url?: string } = {},
): Promise<{ session: Record<string, unknown> & { id: string; client_secret: string }; holderId: string }> {
  const holder = await t.call(key, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'holder@example.com' } });
  const holderId = holder.json().id as string;
  const res = await t.call(key, {
    method: 'POST',
    url: '/v1/connect/sessions',
    json: { permissions: body.permissions ?? ['balances', 'transactions', 'addresses'], account_holder: holderId, ...(body.return_url ? { return_url: body.return_url } : {}) },
  });
  if (res.statusCode !== 200) throw new Error(`session creation failed: ${res.body}`);
  return { session: res.json(), holderId };
}

/** The account holder's side of the hosted flow, driven through the same service the pages call. */
export async function hostedSession(ctx: AppContext, secret: string): Promise<HostedSession> {
  const hosted = await lookUpHostedSession(ctx, secret);
  if (hosted.state !== 'open') throw new Error(`session is ${hosted.state}`);
  return hosted;
}

/** Walks a session through disclaimer → provider login → Done; returns the connected account ids. */
export async function completeWith(
  ctx: AppContext,
  secret: string,
  provider: string,
  input: Record<string, string>,
): Promise<string[]> {
  const hosted = await hostedSession(ctx, secret);
  await acceptDisclaimer(ctx, hosted);
  const attempt = await connectWithProvider(ctx, hosted, provider, input);
  if (!attempt.ok) throw new Error(`connect failed: ${attempt.message}`);
  const done = await finishSession(ctx, await hostedSession(ctx, secret));
  if (!done.ok) throw new Error('could not finish the session');
  return attempt.accounts.map((a) => a.id);
}

/** Runs the real worker until no job is due, so a test can look at what background work did. */
export async function runDueJobs(ctx: AppContext, timeoutMs = 15_000): Promise<void> {
  const worker = new Worker(ctx, jobCatalog(), { pollIntervalMs: 10, log: pino({ level: 'silent' }) });
  worker.start();
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const due = await ctx.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => eb.or([eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', ctx.clock.now())]), eb('status', '=', 'running')]))
        .executeTakeFirstOrThrow();
      if (Number(due.n) === 0 && worker.activeJobs === 0) return;
      if (Date.now() > deadline) throw new Error(`jobs still due after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await worker.stop(1000);
  }
}
