import { eventsOf } from '../platform/events/event-catalog.js';
import { defineJob } from '../platform/jobs/catalog.js';
import { defineModule } from '../platform/module.js';
import type { Mode } from '../platform/scope.js';
import { accountHolderRoutes } from './account-holder.routes.js';
import { AccountHolder } from './account-holder.schemas.js';
import { accountRoutes } from './account.routes.js';
import { Account } from './account.schemas.js';
import { expireSessionJob } from './expire-session.job.js';
import { connectPages } from './pages/connect.surface.js';
import type { OAuthServer } from './oauth/oauth-client.js';
import { exchangeThrottles, type ExchangeThrottles } from './providers/ccxt-instance.js';
import { exchangeCallLog } from './providers/exchange-call-log.js';
import { paceLog } from './providers/ip-pace.js';
import type { ExchangeOverrides } from './providers/ccxt-provider.js';
import type { Provider } from './providers/provider.js';
import { createProviderRegistry, type ProviderRegistry } from './providers/registry.js';
import { refreshAccount } from './refresh-account.js';
import { HISTORY_BUDGET_MS, REFRESH_MAX_ATTEMPTS, refreshAccountJob } from './refresh-account.job.js';
import { accountRefreshes } from './refresh.metrics.js';
import { findSessionById } from './session.repository.js';
import { sessionRoutes } from './session.routes.js';
import { expireIfDue } from './session.service.js';
import { connectTestHelperRoutes } from './test-helpers.routes.js';
import { Session } from './session.schemas.js';

declare module '../platform/context.js' {
  interface AppContext {
    /** Exchanges and wallets an account holder can connect, per mode. */
    providers: ProviderRegistry;
    /** ccxt's throttle per exchange id, held across processes in the database, for every call to an exchange (connect's and the prices module's). */
    exchangeThrottles: ExchangeThrottles;
    /** Test seam: more providers behind the same interface (absent in production). */
    extraProviders?: Partial<Record<Mode, Provider[]>>;
    /** Test seam: ccxt options per exchange id, laid over ours (a local fake exchange's `urls`). */
    exchangeOverrides?: Partial<Record<string, ExchangeOverrides>>;
    /** Test seam: how long one refresh run walks a history before a new job goes on (default 80 s). */
    refreshHistoryBudgetMs?: number;
    /** Test seam: OAuth server URLs per exchange id (a local OAuth 2 server). */
    oauthServerOverrides?: Partial<Record<string, Partial<OAuthServer>>>;
  }
}

const expireSession = defineJob({
  ...expireSessionJob,
  async run(payload, run) {
    const row = await findSessionById(run.ctx.db, payload.session_id);
    if (!row) return;
    const after = await expireIfDue(run.ctx, row);
    // A worker whose clock runs a little behind retries instead of leaving the session open.
    if (after.status === 'open') throw new Error('session not due to expire yet');
  },
});

const refreshAccountRun = defineJob({
  ...refreshAccountJob,
  async run(payload, run) {
    await refreshAccount(run.ctx, payload.account_id, payload.features, {
      lastAttempt: run.attempt >= REFRESH_MAX_ATTEMPTS,
      signal: run.signal,
      historyBudgetMs: run.ctx.refreshHistoryBudgetMs ?? HISTORY_BUDGET_MS,
      retry: payload.retry ?? 0,
    });
  },
});

/**
 * Connect: account holders, sessions and the hosted connect pages, connected accounts and their
 * refresh. Needs the bitcoin module's chain sources (listed before it).
 */
export const connectModule = defineModule({
  name: 'connect',
  context: (ctx) => {
    const throttles = ctx.exchangeThrottles ?? exchangeThrottles(paceLog(ctx.db));
    return {
      exchangeThrottles: throttles,
      providers: createProviderRegistry({
        chains: ctx.chains,
        clock: ctx.clock,
        throttles,
        calls: exchangeCallLog(ctx.db, ctx.capabilities),
        ...(ctx.extraProviders ? { extra: ctx.extraProviders } : {}),
        ...(ctx.exchangeOverrides ? { exchangeOverrides: ctx.exchangeOverrides } : {}),
        ...(ctx.oauthServerOverrides ? { oauthServerOverrides: ctx.oauthServerOverrides } : {}),
      }),
    };
  },
  apiRoutes: [accountHolderRoutes, sessionRoutes, accountRoutes, connectTestHelperRoutes],
  pages: [connectPages],
  jobs: [expireSession, refreshAccountRun],
  events: [
    ...eventsOf(AccountHolder, {
      'account_holder.created': 'An account holder was created.',
      'account_holder.updated': 'An account holder was changed; the object shows it after the change.',
    }),
    ...eventsOf(Session, {
      'session.completed':
        'The person chose Done in the hosted flow: the session is `completed`, its `accounts` and `account_ids` hold the accounts connected in it ' +
        '(wallets proven in it arrive as `claim.created`). `client_secret` and `hosted_url` are null: the secret is shown only when the session is created.',
      'session.abandoned':
        'The session ended without Done: the person cancelled, the flow failed to start, or no decision came before `expires_at`. Accounts connected ' +
        'in it were discarded. `client_secret` and `hosted_url` are null.',
    }),
    ...eventsOf(Account, {
      'account.refreshed':
        'A refresh ended, or failed and was scheduled again: each feature of `refresh` shows `succeeded` or `failed` (with its `error` and, when ' +
        'it retries by itself, `next_refresh_available_at`).',
      'account.disconnected':
        'The account was disconnected (`POST /v1/connect/accounts/{id}/disconnect`): its credentials are erased, its stored data stays readable.',
    }),
  ],
  metrics: [accountRefreshes],
  openApiTags: [
    { name: 'Account holders', description: 'The people who connect accounts and share claims.' },
    { name: 'Sessions', description: 'Hosted connection flows: send an account holder to connect exchange accounts and wallets.' },
    { name: 'Accounts', description: 'Connected exchange accounts and wallets, their data and on-demand refresh.' },
  ],
});
