import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Ownproof, OwnproofEvent } from '../../packages/sdk/src/index.js';
import type { AccountHolder } from './account-holder.js';
import type { LenderReceiver } from './webhook-receiver.js';

/** Prints one line per step with the time it took and the time since the start. */
export class StepLog {
  private readonly started = performance.now();
  private count = 0;
  constructor(private readonly write: (line: string) => void) {}

  async step<T>(run: () => Promise<T>, describe: (result: T) => string): Promise<T> {
    const begun = performance.now();
    const result = await run();
    const now = performance.now();
    const took = `${((now - begun) / 1000).toFixed(2)} s`.padStart(8);
    const total = `${((now - this.started) / 1000).toFixed(1)} s`.padStart(7);
    this.write(`${String(++this.count).padStart(2)}. ${took}  (at ${total})  ${describe(result)}`);
    return result;
  }

  line(text: string): void {
    this.write(text);
  }
}

export interface JourneyResult {
  pdfPath: string;
  jwksPath: string;
  statementId: string;
}

/**
 * The lender's integration, through the SDK only: a webhook endpoint, an account holder, a session
 * the holder completes, accounts refreshed and read, an access request the holder approves, the
 * webhooks of both checked with the endpoint's secret, a statement, its PDF checked and saved.
 */
export async function runJourney(
  ownproof: Ownproof,
  holder: AccountHolder,
  receiver: LenderReceiver,
  outDir: string,
  log: StepLog,
): Promise<JourneyResult> {
  const endpoint = await log.step(
    () => ownproof.webhookEndpoints.create({ url: receiver.webhookUrl, enabled_events: ['*'], description: 'npm run demo' }),
    (e) => `Webhook endpoint ${e.id} created for ${e.url}`,
  );
  const email = `applicant+${Date.now()}@example.com`;
  const accountHolder = await log.step(
    () => ownproof.connect.accountHolders.create({ email, name: 'Ada Lovelace' }),
    (h) => `Account holder ${h.id} created (${email})`,
  );
  const session = await log.step(
    () =>
      ownproof.connect.sessions.create({
        account_holder: accountHolder.id,
        permissions: ['balances', 'transactions'],
        return_url: receiver.returnUrl,
      }),
    (s) => `Session ${s.id} created: ${s.hosted_url}`,
  );
  const completed = await log.step(
    async () => {
      await holder.completeSession(session);
      return ownproof.connect.sessions.poll(session.id, { intervalMs: 500 });
    },
    (s) =>
      `Session ${s.status} ${holder.how}: the Sandbox Exchange (user_good) and the sandbox wallet, proven; ${s.accounts.length} accounts`,
  );

  for (const id of completed.accounts) {
    await log.step(
      async () => {
        await ownproof.connect.accounts.refresh(id, { features: ['balances', 'transactions'] });
        const account = await ownproof.connect.accounts.pollRefresh(id, { intervalMs: 500 });
        const balances = await ownproof.connect.accounts.balances(id).toArray();
        return { account, balances };
      },
      ({ account, balances }) =>
        `Account ${account.id} refreshed (${account.display_name}${account.ownership.status === 'verified' ? ', ownership verified' : ''}): ${balances.map((b) => `${b.total} ${b.asset}`).join(', ') || 'no balances'}`,
    );
  }

  const request = await log.step(
    () =>
      ownproof.verify.accessRequests.create({
        type: 'sharing',
        account_holder_id: accountHolder.id,
        permissions: ['balances', 'statements'],
        message: 'For your loan application.',
      }),
    (r) => `Access request ${r.id} created (${r.permissions.join(', ')})`,
  );
  const granted = await log.step(
    async () => {
      await holder.approveAccessRequest(request, email);
      return ownproof.verify.accessRequests.retrieve(request.id);
    },
    (r) => `Access request ${r.status} ${holder.how}: claims ${r.claim_ids.join(', ')}`,
  );

  const events = await log.step(
    () => webhooksOf(ownproof, receiver, endpoint.secret ?? '', ['session.completed', 'access_request.granted']),
    (received) => `Webhooks received and verified: ${[...received.keys()].join(', ')}`,
  );
  const sessionEvent = events.get('session.completed');
  if (sessionEvent?.type !== 'session.completed' || sessionEvent.data.object.id !== session.id)
    throw new Error('session.completed is not about this session');

  const now = Math.floor(Date.now() / 1000);
  const statement = await log.step(
    async () => {
      const created = await ownproof.verify.statements.generate({
        account_holder_id: accountHolder.id,
        claim_ids: granted.claim_ids,
        period: { open: now - 365 * 86_400, close: now - 60 },
        timezone: 'Europe/London',
      });
      return ownproof.verify.statements.poll(created.id, { intervalMs: 500 });
    },
    (s) => `Statement ${s.id} ${s.status} for the last 12 months`,
  );
  if (statement.status !== 'completed') throw new Error(`statement ${statement.id} ${statement.status}`);

  return log.step(
    async () => {
      const pdf = await ownproof.verify.statements.downloadPdf(statement.id);
      const check = await ownproof.verify.statements.check(pdf);
      if (!check.valid) throw new Error(`the server does not recognise statement ${statement.id}'s PDF`);
      const jwks = await ownproof.signingKeys.retrieve();
      const pdfPath = path.join(outDir, `${statement.id}.pdf`);
      const jwksPath = path.join(outDir, 'jwks.json');
      writeFileSync(pdfPath, pdf);
      writeFileSync(jwksPath, `${JSON.stringify(jwks, null, 2)}\n`);
      return { pdfPath, jwksPath, statementId: statement.id, size: pdf.byteLength };
    },
    (r) => `Statement PDF downloaded (${r.size} bytes), checked by the server (valid) and saved with the signing keys`,
  );
}

/** Waits up to a minute for a delivery of each event type, each checked and typed by `webhooks.unwrap`. */
async function webhooksOf(
  ownproof: Ownproof,
  receiver: LenderReceiver,
  secret: string,
  types: string[],
): Promise<Map<string, OwnproofEvent>> {
  const found = new Map<string, OwnproofEvent>();
  const deadline = Date.now() + 60_000;
  let seen = 0;
  while (types.some((type) => !found.has(type))) {
    // Deliveries arriving while these are checked are left for the next round.
    const batch = receiver.deliveries.slice(seen);
    seen += batch.length;
    for (const delivery of batch) {
      const event = await ownproof.webhooks.unwrap(delivery.body, delivery.headers as Record<string, string>, secret);
      if (types.includes(event.type)) found.set(event.type, event);
    }
    if (Date.now() > deadline) {
      const missing = types.filter((t) => !found.has(t)).join(', ');
      throw new Error(
        `no ${missing} webhook within a minute (received: ${[...found.keys()].join(', ') || 'none'}; see GET /v1/events and the endpoint's deliveries)`,
      );
    }
    await sleep(200);
  }
  return found;
}
