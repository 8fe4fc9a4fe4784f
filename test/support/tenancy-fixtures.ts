import { createChainSources } from '../../src/bitcoin/chain-for-mode.js';
import { SimulatedChain } from '../../src/bitcoin/chain/index.js';
import type { SessionRow } from '../../src/connect/connect.table.js';
import { findSessionById } from '../../src/connect/session.repository.js';
import { sessionSecret } from '../../src/connect/session.service.js';
import type { AppContext } from '../../src/platform/context.js';
import { completeWith } from './connect.js';
import { acceptingExchange } from './fake-providers.js';
import type { TestApp, TestClient } from './test-app.js';
import { makeWallet } from '../../src/bitcoin/message/fixtures/signers.js';
import { proveWith } from './verify.js';
import { fakeResolver } from './webhooks.js';

export type Mode = 'test' | 'live';
/** Object ids by id prefix (`acct_` → `acct_…`). */
export type IdsByPrefix = Record<string, string>;

/** A public host name the test resolver answers, so live-mode webhook endpoints can be created. */
const PUBLIC_HOOK_HOST = 'hooks.example.com';
/** The live-mode provider that accepts any login, so live-mode accounts can be connected. */
const LIVE_PROVIDER = acceptingExchange('tenancy_live_exchange', 'Tenancy Live Exchange');

/**
 * The test seams the fixtures need: a live provider that accepts a login, a resolver with a public
 * host, and a mainnet chain (a simulated one, as if ESPLORA_URL were set) so live-mode claims can
 * be proven.
 */
export const TENANCY_SEAMS: Partial<AppContext> = {
  extraProviders: { live: [LIVE_PROVIDER] },
  webhookNetwork: { resolve: fakeResolver({ [PUBLIC_HOOK_HOST]: ['93.184.216.34'] }) },
  chains: createChainSources({
    esploraUrl: undefined,
    live: new SimulatedChain({ seed: 'tenancy-mainnet', network: 'mainnet', premineBlocks: 101 }),
  }),
};

/**
 * Configuration the fixtures need: SMTP, so live-mode access requests can be created (the mail job
 * never runs in these tests, so nothing listens there).
 */
export const TENANCY_CONFIG: Record<string, string> = { SMTP_URL: 'smtp://127.0.0.1:9' };

interface FixtureContext {
  t: TestApp;
  key: string;
  mode: Mode;
  /** The fixtures made before this one in the same client and mode. */
  made: IdsByPrefix;
}

async function post(t: TestApp, key: string, url: string, json: unknown): Promise<Record<string, unknown>> {
  const res = await t.call(key, { method: 'POST', url, json });
  if (res.statusCode !== 200) throw new Error(`fixture: POST ${url} answered ${res.statusCode} ${res.body}`);
  return res.json();
}

async function get(t: TestApp, key: string, url: string): Promise<Record<string, unknown>> {
  const res = await t.call(key, { method: 'GET', url });
  if (res.statusCode !== 200) throw new Error(`fixture: GET ${url} answered ${res.statusCode} ${res.body}`);
  return res.json();
}

/**
 * How to make a real object of each kind a path id can name (by its `x-id-prefix`), for one client
 * and mode, through the API as a client would. Made in this order; a maker may use the ids made
 * before it (`made`). A new kind of object in a path needs one entry here: the tenancy matrix fails
 * and names the missing prefix until it has one.
 */
export const FIXTURE_MAKERS: readonly { prefix: string; make: (f: FixtureContext) => Promise<string> }[] = [
  {
    prefix: 'ah_',
    make: async ({ t, key }) =>
      (await post(t, key, '/v1/connect/account_holders', { email: 'tenant@example.com', name: 'Tenant' })).id as string,
  },
  {
    prefix: 'sess_',
    make: async ({ t, key, made }) =>
      (await post(t, key, '/v1/connect/sessions', { account_holder: made.ah_, permissions: ['balances', 'transactions', 'addresses'] }))
        .id as string,
  },
  {
    // Completes the session above: test mode with the sandbox exchange, live mode with an exchange
    // double that accepts the login.
    prefix: 'acct_',
    make: async ({ t, mode, made }) => {
      // The API shows the secret only when creating the session: the pages' link is read from the row.
      const secret = sessionSecret(t.ctx, (await findSessionById(t.ctx.db, made.sess_ as string)) as SessionRow);
      const [account] =
        mode === 'test'
          ? await completeWith(t.ctx, secret, 'sandbox', { username: 'user_good', password: 'pass_good' })
          : await completeWith(t.ctx, secret, LIVE_PROVIDER.id, { api_key: 'key' });
      if (!account) throw new Error('fixture: the session connected no account');
      return account;
    },
  },
  {
    prefix: 'we_',
    make: async ({ t, key, mode }) =>
      (
        await post(t, key, '/v1/webhook_endpoints', {
          url: mode === 'test' ? 'http://127.0.0.1:9/hook' : `https://${PUBLIC_HOOK_HOST}/hook`,
          enabled_events: ['*'],
        })
      ).id as string,
  },
  {
    // A claim proven in the session above, so it is shared with this client (pages are the only way
    // to prove; the fixture calls the same service the pages call).
    prefix: 'clm_',
    make: async ({ t, key, mode, made }) => {
      const check = await t.ctx.apiKeys(key);
      if (!check.ok) throw new Error('fixture: the key does not authenticate');
      const wallet = makeWallet('p2wpkh', mode === 'live' ? 'mainnet' : 'testnet');
      const origin = { kind: 'connect_session' as const, session_id: made.sess_ as string, permissions: ['balances', 'transactions'] };
      return (await proveWith(t.ctx, check.scope, made.ah_ as string, wallet, origin)).id;
    },
  },
  {
    // A request to the account holder above (live mode needs SMTP: the tenancy app sets SMTP_URL).
    prefix: 'ar_',
    make: async ({ t, key, made }) =>
      (await post(t, key, '/v1/verify/access_requests', { type: 'sharing', account_holder_id: made.ah_, permissions: ['balances'] }))
        .id as string,
  },
  {
    // A statement of the claim above over the last 30 days (it stays pending: no worker runs here).
    prefix: 'stmt_',
    make: async ({ t, key, made }) => {
      const now = Math.floor(t.clock.now() / 1000);
      const body = {
        account_holder_id: made.ah_,
        claim_ids: [made.clm_],
        period: { open: now - 30 * 24 * 3600, close: now },
        timezone: 'UTC',
      };
      return (await post(t, key, '/v1/verify/statements/generate', body)).id as string;
    },
  },
  {
    // Every action above recorded events; the newest will do.
    prefix: 'evt_',
    make: async ({ t, key }) => {
      const list = (await get(t, key, '/v1/events?limit=1')).data as { id: string }[];
      if (!list[0]) throw new Error('fixture: no event was recorded');
      return list[0].id;
    },
  },
];

/** One object of every kind for the given key's client and mode. */
async function makeFixtures(t: TestApp, key: string): Promise<IdsByPrefix> {
  const mode: Mode = key.startsWith('sk_live_') ? 'live' : 'test';
  const made: IdsByPrefix = {};
  for (const { prefix, make } of FIXTURE_MAKERS) made[prefix] = await make({ t, key, mode, made });
  return made;
}

/** Two clients, A and B, each with one object of every kind in test mode and in live mode. */
export interface TenancyWorld {
  clients: Record<'a' | 'b', TestClient>;
  ids: Record<'a' | 'b', Record<Mode, IdsByPrefix>>;
}

export async function makeTenancyWorld(t: TestApp): Promise<TenancyWorld> {
  const a = await t.newClient('Tenant A');
  const b = await t.newClient('Tenant B');
  return {
    clients: { a, b },
    ids: {
      a: { test: await makeFixtures(t, a.testKey), live: await makeFixtures(t, a.liveKey) },
      b: { test: await makeFixtures(t, b.testKey), live: await makeFixtures(t, b.liveKey) },
    },
  };
}

/** The key of a client in a mode. */
export function keyOf(client: TestClient, mode: Mode): string {
  return mode === 'test' ? client.testKey : client.liveKey;
}
