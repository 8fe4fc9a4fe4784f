import { Ownproof } from '../../packages/sdk/src/index.js';

/** Every answer the load saw, per route template (ids replaced by `{id}`). */
export class Recorder {
  private readonly routes = new Map<string, { latencies: number[]; statuses: Map<number, number> }>();
  /** Failures that were not HTTP answers (connection refused, reset), by message. */
  readonly networkErrors = new Map<string, number>();

  /** A `fetch` that records each attempt it makes, for the SDK's `fetch` option. */
  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const route = `${request.method} ${template(new URL(request.url).pathname)}`;
    const started = performance.now();
    try {
      const response = await fetch(request);
      this.record(route, response.status, performance.now() - started);
      return response;
    } catch (error) {
      const message =
        error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error);
      this.networkErrors.set(message, (this.networkErrors.get(message) ?? 0) + 1);
      throw error;
    }
  };

  record(route: string, status: number, ms: number): void {
    const entry = this.routes.get(route) ?? { latencies: [], statuses: new Map<number, number>() };
    entry.latencies.push(ms);
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    this.routes.set(route, entry);
  }

  /** Per route: requests, their rate over `seconds`, p50/p99 latency and the count of each status. */
  summary(seconds: number): RouteSummary[] {
    return [...this.routes]
      .map(([route, { latencies, statuses }]) => {
        const sorted = [...latencies].sort((a, b) => a - b);
        const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
        return {
          route,
          requests: sorted.length,
          perSecond: sorted.length / seconds,
          p50Ms: at(0.5),
          p99Ms: at(0.99),
          statuses: Object.fromEntries(statuses),
        };
      })
      .sort((a, b) => b.requests - a.requests);
  }

  /** How many answers had a status from `from` to `to` (inclusive). */
  count(from: number, to: number): number {
    let total = 0;
    for (const { statuses } of this.routes.values()) for (const [status, n] of statuses) if (status >= from && status <= to) total += n;
    return total;
  }
}

export interface RouteSummary {
  route: string;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<number, number>;
}

/** `/v1/connect/sessions/cs_1a2b/refresh` → `/v1/connect/sessions/{id}/refresh`. */
export function template(pathname: string): string {
  // Our ids are a short prefix and at least 16 base62 characters; path words (`account_holders`) are shorter.
  return pathname.replace(/\/[a-z]+_[A-Za-z0-9]{16,}(?=\/|$)/g, '/{id}');
}

/** What one lane did: the objects the checks hold the database to. */
export interface LaneResult {
  clientId: string;
  journeys: number;
  statements: string[];
  accessRequests: string[];
  errors: string[];
}

/**
 * One lender's integration in a loop until `until` (ms since epoch): the sandbox journey through the
 * SDK, as packages/sdk's journey test runs it once — holder, session completed by the test helper,
 * accounts refreshed and read, an access request approved by the test helper, a statement generated
 * and its PDF downloaded. A failed step is recorded and the lane goes on with a new journey.
 */
export async function runLane(options: {
  baseUrl: string;
  apiKey: string;
  clientId: string;
  until: number;
  recorder: Recorder;
  lane: number;
}): Promise<LaneResult> {
  const ownproof = new Ownproof({ apiKey: options.apiKey, baseUrl: options.baseUrl, fetch: options.recorder.fetch, timeoutMs: 60_000 });
  const result: LaneResult = { clientId: options.clientId, journeys: 0, statements: [], accessRequests: [], errors: [] };
  for (let n = 0; Date.now() < options.until; n++) {
    try {
      const holder = await ownproof.connect.accountHolders.create({
        email: `holder-${options.lane}-${n}@example.com`,
        name: `Holder ${options.lane}.${n}`,
      });
      const session = await ownproof.connect.sessions.create({ account_holder: holder.id, permissions: ['balances', 'transactions'] });
      await ownproof.testHelpers.connect.sessions.complete(session.id, {
        exchange_logins: [{ username: 'user_good' }],
        wallets: [{ prove_ownership: true }],
      });
      const completed = await ownproof.connect.sessions.poll(session.id, { intervalMs: 500 });
      if (completed.status !== 'completed') throw new Error(`session ${session.id} ended ${completed.status}`);
      for (const accountId of completed.accounts) {
        await ownproof.connect.accounts.refresh(accountId, { features: ['balances', 'transactions'] });
        const refreshed = await ownproof.connect.accounts.pollRefresh(accountId, { intervalMs: 500 });
        if (refreshed.balance_refresh?.status !== 'succeeded')
          throw new Error(`refresh of ${accountId} ended ${refreshed.balance_refresh?.status}`);
        await ownproof.connect.accounts.balances(accountId).toArray();
        await ownproof.connect.accounts.transactions(accountId).toArray();
      }
      const request = await ownproof.verify.accessRequests.create({
        type: 'sharing',
        account_holder_id: holder.id,
        permissions: ['balances', 'statements'],
      });
      result.accessRequests.push(request.id);
      const granted = await ownproof.testHelpers.verify.accessRequests.approve(request.id);
      const now = Math.floor(Date.now() / 1000);
      const statement = await ownproof.verify.statements.generate({
        account_holder_id: holder.id,
        claim_ids: granted.claim_ids,
        period: { open: now - 90 * 86_400, close: now - 60 },
        timezone: 'Europe/London',
      });
      result.statements.push(statement.id);
      const done = await ownproof.verify.statements.poll(statement.id, { intervalMs: 500 });
      if (done.status !== 'completed') throw new Error(`statement ${statement.id} ended ${done.status}`);
      // Three first downloads at once, each through the balancer to another server: one PDF made, one billed.
      const pdfs = await Promise.all([1, 2, 3].map(() => ownproof.verify.statements.downloadPdf(statement.id)));
      for (const pdf of pdfs)
        if (new TextDecoder().decode(pdf.slice(0, 5)) !== '%PDF-') throw new Error(`statement ${statement.id}: the download is not a PDF`);
      result.journeys++;
    } catch (error) {
      result.errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  return result;
}
