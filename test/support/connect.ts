import pino from 'pino';
import { service } from '../../src/main/modules.js';
import {
  acceptDisclaimer,
  connectWithProvider,
  finishSession,
  lookUpHostedSession,
  type HostedSession,
} from '../../src/connect/hosted-flow.service.js';
import type { AppContext } from '../../src/platform/context.js';
import { Worker } from '../../src/platform/jobs/worker.js';
import { sandboxWallet } from '../../src/bitcoin/sandbox/sandbox-wallet.js';
import { eventually } from './eventually.js';
import { FormAgent } from './form-agent.js';
import { queueIdle } from './queue.js';
import type { TestApp } from './test-app.js';

/** A session as the API returns it (the fields tests read). */
export interface CreatedSession {
  id: string;
  client_secret: string;
  hosted_url: string;
  status: string;
  accounts: string[];
  account_ids: string[];
  return_url: string | null;
}

/**
 * Creates an account holder and a session through the real API, as a client would. Returns the
 * session, the holder's id and the path of the hosted URL (the app may listen on another origin than
 * the configured one).
 */
export async function createSessionFor(
  t: TestApp,
  key: string,
  options: { permissions?: string[]; returnUrl?: string } = {},
): Promise<{ session: CreatedSession; holderId: string; path: string }> {
  const holder = await t.call(key, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'holder@example.com' } });
  if (holder.statusCode !== 200) throw new Error(`account holder: ${holder.statusCode} ${holder.body}`);
  const holderId = holder.json().id as string;
  const created = await t.call(key, {
    method: 'POST',
    url: '/v1/connect/sessions',
    json: {
      account_holder: holderId,
      permissions: options.permissions ?? ['balances', 'transactions', 'addresses'],
      ...(options.returnUrl ? { return_url: options.returnUrl } : {}),
    },
  });
  if (created.statusCode !== 200) throw new Error(`session: ${created.statusCode} ${created.body}`);
  const session = created.json() as CreatedSession;
  return { session, holderId, path: new URL(session.hosted_url).pathname };
}

/** The account holder's side of the hosted flow, driven through the same service the pages call. */
export async function hostedSession(ctx: AppContext, secret: string): Promise<HostedSession> {
  const hosted = await lookUpHostedSession(ctx, secret);
  if (hosted.state !== 'open') throw new Error(`session is ${hosted.state}`);
  return hosted;
}

/** The hosted flow's provider login step with the session's provider `providerId`. */
export function loginWith(ctx: AppContext, hosted: HostedSession, providerId: string, input: Record<string, string>) {
  const provider = hosted.providers.find((p) => p.id === providerId);
  if (!provider) throw new Error(`provider ${providerId} is not offered in this session`);
  return connectWithProvider(ctx, hosted, provider, input);
}

/** Walks a session through disclaimer → provider login → Done; returns the connected account ids. */
export async function completeWith(ctx: AppContext, secret: string, provider: string, input: Record<string, string>): Promise<string[]> {
  const hosted = await hostedSession(ctx, secret);
  await acceptDisclaimer(ctx, hosted);
  const attempt = await loginWith(ctx, hosted, provider, input);
  if (!attempt.ok) throw new Error(`connect failed: ${attempt.message}`);
  const done = await finishSession(ctx, await hostedSession(ctx, secret));
  if (!done.ok) throw new Error('could not finish the session');
  return attempt.accounts.map((a) => a.id);
}

/**
 * Runs the real worker until no job is due, so a test can look at what background work did. The
 * wait ends before the suite's 30 s test timeout, so a test that overruns it fails here, with the
 * worker stopped; a test whose work takes longer (a walk of hundreds of jobs) passes a longer wait
 * and sets a longer timeout of its own.
 */
export async function runDueJobs(ctx: AppContext, timeoutMs = 25_000): Promise<void> {
  const worker = new Worker(ctx, service.jobCatalog(), { pollIntervalMs: 10, log: pino({ level: 'silent' }) });
  worker.start();
  try {
    await eventually(async () => (await queueIdle(ctx)) && worker.activeJobs === 0, timeoutMs);
  } finally {
    await worker.stop(1000);
  }
}

/** A hosted session, driven through its pages as a browser without JavaScript, in which the sandbox wallet was connected and proven. */
export interface ProvenSession {
  sessionId: string;
  /** The hosted URL's path. */
  path: string;
  agent: FormAgent;
  accountId: string;
  claimId: string;
}

/**
 * Creates a session for an existing account holder through the API, then, as the person would on
 * the hosted pages: accepts the disclaimer, connects the sandbox wallet, proves it with "Sign with
 * the sandbox wallet" — and stops there, before Done or Cancel.
 */
export async function proveInHostedSession(t: TestApp, key: string, holderId: string, permissions: string[]): Promise<ProvenSession> {
  const created = await t.call(key, { method: 'POST', url: '/v1/connect/sessions', json: { account_holder: holderId, permissions } });
  if (created.statusCode !== 200) throw new Error(`session: ${created.statusCode} ${created.body}`);
  const session = created.json() as CreatedSession;
  const path = new URL(session.hosted_url).pathname;
  const agent = new FormAgent(t.app, 'connect');
  await agent.get(path);
  await agent.post(`${path}/consent`);
  await agent.get(`${path}/providers/bitcoin`);
  const connected = await agent.post(`${path}/providers/bitcoin`, { wallet: sandboxWallet().descriptor });
  if (connected.statusCode !== 303) throw new Error(`connect: ${connected.statusCode}`);
  await agent.get(path);
  const accountId = (
    await t.ctx.db.selectFrom('connect_accounts').select('id').where('session_id', '=', session.id).executeTakeFirstOrThrow()
  ).id;
  const started = await agent.post(`${path}/accounts/${accountId}/prove`);
  if (started.statusCode !== 303) throw new Error(`start proof: ${started.statusCode}`);
  const challengeUrl = started.headers.location as string;
  await agent.get(challengeUrl);
  const proven = await agent.post(`${challengeUrl}/sandbox`);
  if (proven.statusCode !== 303) throw new Error(`proof: ${proven.statusCode} ${proven.body}`);
  const claimId = (await t.ctx.db.selectFrom('connect_accounts').select('claim_id').where('id', '=', accountId).executeTakeFirstOrThrow())
    .claim_id;
  if (!claimId) throw new Error('the account records no claim');
  await agent.get(path);
  return { sessionId: session.id, path, agent, accountId, claimId };
}
