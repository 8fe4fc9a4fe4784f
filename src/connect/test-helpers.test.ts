import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { completeWith, createSessionFor, runDueJobs } from '../../test/support/connect.js';
import { engines } from '../../test/support/database.js';
import { expectRefusedUnchanged, type SendRequest } from '../../test/support/refusals.js';
import { FormAgent } from '../../test/support/form-agent.js';
import { startTestApp, type TestApp, type TestClient } from '../../test/support/test-app.js';
import { testnetWallet } from '../../test/support/verify.js';
import { TestReceiver } from '../../test/support/webhooks.js';
import { sandboxWallet } from '../bitcoin/sandbox/sandbox-wallet.js';

const COMPLETE = (id: string) => `/v1/test_helpers/connect/sessions/${id}/complete`;
const ABANDON = (id: string) => `/v1/test_helpers/connect/sessions/${id}/abandon`;
const REQUIRE_REAUTH = (id: string) => `/v1/test_helpers/connect/accounts/${id}/require_reauth`;

/**
 * The connect test helpers act as the account holder on the hosted pages would, through the
 * hosted flow's own services: what a client gets from them (accounts, claims, events, webhooks) is
 * what the pages give it, and every rule of the pages holds (consent, Done, one browser). A
 * request they refuse changes nothing.
 */
describe.each(engines())('connect test helpers on %s', (engine) => {
  let t: TestApp;
  let acme: TestClient;
  let receiver: TestReceiver;
  let hookSecret: string;
  const api = (method: 'GET' | 'POST', url: string, json?: unknown, key = acme.testKey) =>
    t.call(key, { method, url, ...(json === undefined ? {} : { json }) });
  const expectRefused = (send: SendRequest, status: number, code: string, param?: string) =>
    expectRefusedUnchanged(t, send, status, code, param);
  const events = async () =>
    (
      (await api('GET', '/v1/events?limit=100')).json().data as { id: string; type: string; data: { object: Record<string, unknown> } }[]
    ).reverse();

  beforeAll(async () => {
    t = await startTestApp(engine);
    receiver = await TestReceiver.start();
  });
  beforeEach(async () => {
    // One receiver for the file: only this test's client may deliver to it (pending deliveries to a deleted endpoint are dropped).
    await t.ctx.db.deleteFrom('webhook_endpoints').execute();
    acme = await t.newClient('Acme Lending');
    receiver.received.length = 0;
    const endpoint = await api('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    hookSecret = endpoint.json().secret as string;
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  describe('complete', () => {
    it('completes an open session as the person would: consent, a sandbox login, the sandbox wallet proven, Done — with the accounts, claim, events and webhooks of the pages', async () => {
      const { session, path } = await createSessionFor(t, acme.testKey, { permissions: ['balances', 'transactions'] });
      const res = await api('POST', COMPLETE(session.id), {
        exchange_logins: [{ username: 'user_multi', password: 'pass_good' }],
        wallets: [{ prove_ownership: true }],
      });
      expect(res.statusCode, res.body).toBe(200);
      const completed = res.json();
      expect(completed).toMatchObject({ id: session.id, object: 'session', status: 'completed', client_secret: null, hosted_url: null });
      expect(completed.accounts).toHaveLength(3);
      expect(completed.account_ids).toEqual(completed.accounts);

      const accounts = (await api('GET', `/v1/connect/accounts?session=${session.id}`)).json().data as {
        id: string;
        display_name: string;
        provider: { id: string };
        ownership: { status: string; claim: string | null };
      }[];
      expect(accounts.map((a) => a.display_name).sort()).toEqual([
        'Bitcoin wallet (native segwit)',
        'Sandbox Exchange — Savings',
        'Sandbox Exchange — Spot',
      ]);
      const wallet = accounts.find((a) => a.provider.id === 'bitcoin');
      expect(wallet?.ownership.status).toBe('verified');
      const claimId = wallet?.ownership.claim as string;
      const claim = (await api('GET', `/v1/verify/claims/${claimId}`)).json();
      expect(claim).toMatchObject({
        subject: { type: 'wallet', descriptor: sandboxWallet().descriptor },
        access: { permissions: ['balances', 'statements'] },
      });

      // Consent is recorded as the disclaimer page records it: the session belongs to no other browser now.
      const row = await t.ctx.db
        .selectFrom('connect_sessions')
        .select(['consented_at', 'browser_hash'])
        .where('id', '=', session.id)
        .executeTakeFirstOrThrow();
      expect(row.consented_at).not.toBeNull();
      expect(row.browser_hash).not.toBeNull();
      // The hosted link says what it says after Done on the page.
      expect((await new FormAgent(t.app, 'connect').get(path)).body).toContain('You’re done');

      const recorded = (await events()).filter((e) => e.type.startsWith('session.') || e.type.startsWith('claim.'));
      expect(recorded.map((e) => e.type)).toEqual(['claim.created', 'session.completed']);
      expect(recorded[1]?.data.object).toMatchObject({ id: session.id, status: 'completed', client_secret: null });

      await runDueJobs(t.ctx);
      const delivered = receiver.received.map(
        (r) => new Webhook(hookSecret).verify(r.body, r.headers as Record<string, string>) as { type: string; id: string },
      );
      expect(
        delivered
          .map((e) => e.type)
          .filter((type) => type !== 'account_holder.created')
          .sort(),
      ).toEqual(['claim.created', 'session.completed']);
    });

    it('connects a test-network address without a proof: the account is listed, unverified, and no claim is made', async () => {
      const { session } = await createSessionFor(t, acme.testKey, { permissions: ['balances'] });
      const address = testnetWallet('p2wpkh').address;
      const res = await api('POST', COMPLETE(session.id), { wallets: [{ wallet: address }] });
      expect(res.statusCode, res.body).toBe(200);
      const [account] = (await api('GET', `/v1/connect/accounts?session=${session.id}`)).json().data as {
        display_name: string;
        ownership: unknown;
      }[];
      expect(account).toMatchObject({
        display_name: `Bitcoin address ${address.slice(0, 8)}…${address.slice(-6)}`,
        ownership: { status: 'unverified', claim: null },
      });
      expect(await t.ctx.db.selectFrom('verify_claims').select('id').where('client_id', '=', acme.clientId).execute()).toEqual([]);
    });

    it('refuses a login the Sandbox Exchange refuses, naming the login; nothing is connected, consented or counted', async () => {
      const { session } = await createSessionFor(t, acme.testKey);
      const body = { exchange_logins: [{ username: 'user_good' }, { username: 'user_bad' }], wallets: [{}] };
      const refused = await expectRefused(() => api('POST', COMPLETE(session.id), body), 400, 'parameter_invalid', 'exchange_logins[1]');
      expect(refused.message).toBe('Invalid value for exchange_logins[1]: The username or password is incorrect.');
      const outage = await expectRefused(
        () => api('POST', COMPLETE(session.id), { exchange_logins: [{ username: 'user_outage' }] }),
        400,
        'parameter_invalid',
        'exchange_logins[0]',
      );
      expect(outage.message).toContain('simulated outage');
      expect((await api('GET', `/v1/connect/sessions/${session.id}`)).json().status).toBe('open');
    });

    it('refuses a wallet the form refuses, and a proof the sandbox wallet cannot make, naming the field; nothing changes', async () => {
      const { session } = await createSessionFor(t, acme.testKey);
      const mainnet = await expectRefused(
        () => api('POST', COMPLETE(session.id), { wallets: [{ wallet: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }] }),
        400,
        'parameter_invalid',
        'wallets[0][wallet]',
      );
      expect(mainnet.message).toBe('Invalid value for wallets[0][wallet]: This is a mainnet address; test mode needs a test-network one.');
      // Someone else's wallet: connecting it watch-only is fine, proving it is not.
      const foreign = testnetWallet('p2wpkh').address;
      const proof = await expectRefused(
        () =>
          api('POST', COMPLETE(session.id), {
            exchange_logins: [{ username: 'user_good' }],
            wallets: [{ wallet: foreign, prove_ownership: true }],
          }),
        400,
        'parameter_invalid',
        'wallets[0][prove_ownership]',
      );
      expect(proof.message).toContain(`${foreign} is not an address of the sandbox wallet`);
      await expectRefused(() => api('POST', COMPLETE(session.id), {}), 400, 'parameter_missing', 'exchange_logins');
      expect((await api('GET', `/v1/connect/sessions/${session.id}`)).json().status).toBe('open');
    });
  });

  describe('abandon', () => {
    it('abandons an open session as Cancel on the pages does: session.abandoned, and nothing reaches the client', async () => {
      const { session, path } = await createSessionFor(t, acme.testKey, { returnUrl: 'https://app.example.com/back' });
      const res = await api('POST', ABANDON(session.id));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: session.id, status: 'abandoned', accounts: [] });
      const row = await t.ctx.db
        .selectFrom('connect_sessions')
        .select('abandon_reason')
        .where('id', '=', session.id)
        .executeTakeFirstOrThrow();
      expect(row.abandon_reason).toBe('cancelled');
      expect((await events()).filter((e) => e.type.startsWith('session.')).map((e) => e.type)).toEqual(['session.abandoned']);
      expect((await new FormAgent(t.app, 'connect').get(path)).body).toContain('This link has expired');
      expect((await api('GET', `/v1/connect/accounts?session=${session.id}`)).json().data).toEqual([]);
    });
  });

  describe('what they refuse', () => {
    it('answers 403 test_mode_only to a live key, on its own live session and account, and changes nothing', async () => {
      const { session } = await createSessionFor(t, acme.liveKey);
      const refused = await expectRefused(() => api('POST', COMPLETE(session.id), { wallets: [{}] }, acme.liveKey), 403, 'test_mode_only');
      expect(refused.message).toContain('test mode');
      await expectRefused(() => api('POST', ABANDON(session.id), undefined, acme.liveKey), 403, 'test_mode_only');
      expect((await api('GET', `/v1/connect/sessions/${session.id}`, undefined, acme.liveKey)).json().status).toBe('open');
    });

    it('answers 404 to another client’s session and account, and to this client’s in the other mode; nothing changes', async () => {
      const other = await t.newClient('Other Co');
      const { session } = await createSessionFor(t, other.testKey);
      await expectRefused(() => api('POST', COMPLETE(session.id), { wallets: [{}] }), 404, 'resource_missing', 'id');
      await expectRefused(() => api('POST', ABANDON(session.id)), 404, 'resource_missing', 'id');
      const done = await api('POST', COMPLETE(session.id), { exchange_logins: [{ username: 'user_good' }] }, other.testKey);
      await expectRefused(() => api('POST', REQUIRE_REAUTH(done.json().accounts[0])), 404, 'resource_missing', 'id');
      const live = await createSessionFor(t, acme.liveKey);
      await expectRefused(() => api('POST', COMPLETE(live.session.id), { wallets: [{}] }), 404, 'resource_missing', 'id');
    });

    it('answers 409 session_not_open to a session already completed, abandoned or expired; nothing changes', async () => {
      const completed = (await createSessionFor(t, acme.testKey)).session;
      expect((await api('POST', COMPLETE(completed.id), { wallets: [{}] })).statusCode).toBe(200);
      const again = await expectRefused(() => api('POST', COMPLETE(completed.id), { wallets: [{}] }), 409, 'session_not_open');
      expect(again.message).toBe('The session is completed; only an open session can be completed or abandoned.');
      await expectRefused(() => api('POST', ABANDON(completed.id)), 409, 'session_not_open');

      const abandoned = (await createSessionFor(t, acme.testKey)).session;
      expect((await api('POST', ABANDON(abandoned.id))).statusCode).toBe(200);
      await expectRefused(() => api('POST', COMPLETE(abandoned.id), { wallets: [{}] }), 409, 'session_not_open');
      await expectRefused(() => api('POST', ABANDON(abandoned.id)), 409, 'session_not_open');

      const expired = (await createSessionFor(t, acme.testKey)).session;
      t.clock.advance(2 * 3600);
      try {
        // Past its deadline the session turns abandoned as any read finds it (as the pages do), then is refused.
        const res = await api('POST', COMPLETE(expired.id), { wallets: [{}] });
        expect([res.statusCode, res.json().error.code]).toEqual([409, 'session_not_open']);
        expect((await api('GET', `/v1/connect/sessions/${expired.id}`)).json()).toMatchObject({ status: 'abandoned', accounts: [] });
      } finally {
        // Back to real time: receivers check webhook timestamps against their own clock.
        t.clock.advance(-2 * 3600);
      }
    });

    it('answers 409 session_opened_in_browser once the person accepted the disclaimer in a browser: the helper presses neither Done nor Cancel for them', async () => {
      const { session, path } = await createSessionFor(t, acme.testKey);
      const person = new FormAgent(t.app, 'connect');
      await person.get(path);
      expect((await person.post(`${path}/consent`)).statusCode).toBe(303);
      await expectRefused(() => api('POST', COMPLETE(session.id), { wallets: [{}] }), 409, 'session_opened_in_browser');
      await expectRefused(() => api('POST', ABANDON(session.id)), 409, 'session_opened_in_browser');
      // The person's browser carries on.
      expect((await person.post(`${path}/exit`)).statusCode).toBe(200);
      expect((await api('GET', `/v1/connect/sessions/${session.id}`)).json().status).toBe('abandoned');
    });
  });

  describe('require_reauth', () => {
    /** A completed session's account, from a sandbox login. */
    async function connectedAccount(key = acme.testKey): Promise<string> {
      const { session } = await createSessionFor(t, key, { permissions: ['balances', 'transactions'] });
      const res = await api('POST', COMPLETE(session.id), { exchange_logins: [{ username: 'user_good' }] }, key);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().accounts[0] as string;
    }

    it('puts an account into requires_reauth as an expired provider login does on a refresh: account.refreshed, then refresh is 409 account_requires_reauth', async () => {
      const accountId = await connectedAccount();
      const res = await api('POST', REQUIRE_REAUTH(accountId));
      expect(res.statusCode, res.body).toBe(200);
      const failed = {
        status: 'failed',
        error: {
          code: 'reauthentication_required',
          message: 'The Sandbox Exchange login has expired; the account holder must connect again.',
        },
      };
      expect(res.json()).toMatchObject({ id: accountId, status: 'requires_reauth', balance_refresh: failed, transaction_refresh: failed });
      const refreshed = (await events()).filter((e) => e.type === 'account.refreshed');
      expect(refreshed.map((e) => e.data.object)).toEqual([res.json()]);

      const refresh = await expectRefused(
        () => api('POST', `/v1/connect/accounts/${accountId}/refresh`, { features: ['balances'] }),
        409,
        'account_requires_reauth',
      );
      expect(refresh.message).toContain('connect the account again in a new session');
      // Asked again, it stays as it is.
      expect((await api('POST', REQUIRE_REAUTH(accountId))).json().status).toBe('requires_reauth');

      await runDueJobs(t.ctx);
      const delivered = receiver.received.map(
        (r) =>
          new Webhook(hookSecret).verify(r.body, r.headers as Record<string, string>) as {
            type: string;
            data: { object: { status: string } };
          },
      );
      expect(delivered.filter((e) => e.type === 'account.refreshed').map((e) => e.data.object.status)).toContain('requires_reauth');
    });

    it('answers 409 account_disconnected for a disconnected account and 403 test_mode_only to a live key; nothing changes', async () => {
      const accountId = await connectedAccount();
      expect((await api('POST', `/v1/connect/accounts/${accountId}/disconnect`)).statusCode).toBe(200);
      await expectRefused(() => api('POST', REQUIRE_REAUTH(accountId)), 409, 'account_disconnected');
      // A live account, connected through the service the pages call (the helpers serve test keys only).
      const { session } = await createSessionFor(t, acme.liveKey);
      const [liveAccount] = await completeWith(t.ctx, session.client_secret, 'bitcoin', {
        wallet: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      });
      await expectRefused(() => api('POST', REQUIRE_REAUTH(liveAccount as string), undefined, acme.liveKey), 403, 'test_mode_only');
      expect((await api('GET', `/v1/connect/accounts/${liveAccount}`, undefined, acme.liveKey)).json().status).toBe('active');
      // The other mode's id is no account of this key's.
      await expectRefused(() => api('POST', REQUIRE_REAUTH(liveAccount as string)), 404, 'resource_missing', 'id');
    });
  });
});
