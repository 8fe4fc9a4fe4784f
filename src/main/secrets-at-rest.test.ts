import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../test/support/connect.js';
import { engines } from '../../test/support/database.js';
import { FormAgent } from '../../test/support/form-agent.js';
import { acceptingExchange } from '../../test/support/fake-providers.js';
import { startTestApp, type TestApp, type TestClient } from '../../test/support/test-app.js';
import { TestReceiver } from '../../test/support/webhooks.js';
import type { Kysely } from 'kysely';
import { randomBase62 } from '../platform/crypto/random.js';
import { allMigrations } from '../platform/db/migrations/index.js';
import type { Provider } from '../connect/providers/provider.js';

/** A test-mode exchange that takes any API key, keeping it only in the account's (sealed) connection. */
const vault: Provider = {
  ...acceptingExchange('vault', 'Vault'),
  connect: async (input) => ({ ok: true, accounts: [{ displayName: 'Vault', connection: { api_key: input.api_key ?? '' } }] }),
};

/**
 * The secrets a client and an account holder are given — API keys, session client secrets, webhook
 * secrets (created and rotated), exchange credentials, a portal session — appear in no event, no
 * webhook body a real receiver gets, no API object but the session create response (and its
 * idempotent replay), and nowhere in clear in the database: not in the SQLite file, not in a
 * pg_dump. (A portal sign-in link's token is left out: without SMTP_URL the development outbox
 * keeps the mail, link included, by design; such links reach test mode only.)
 */
describe.each(engines())('secrets in events, webhooks and the database on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  let receiver: TestReceiver;
  const secrets: string[] = [];
  let created: Record<string, unknown>;
  let replayed: Record<string, unknown>;
  let completedId: string;
  let abandonedId: string;

  const api = async (method: 'GET' | 'POST', url: string, json?: unknown, headers: Record<string, string> = {}) => {
    const res = await t.call(client.testKey, { method, url, headers, ...(json === undefined ? {} : { json }) });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
    return res.json() as Record<string, unknown>;
  };

  /** Through the hosted pages: consent, then `steps` with the page agent. */
  async function hosted(session: Record<string, unknown>, steps: (agent: FormAgent, path: string) => Promise<void>) {
    const path = new URL(session.hosted_url as string).pathname;
    const agent = new FormAgent(t.app, 'connect');
    await agent.get(path);
    expect((await agent.post(`${path}/consent`)).statusCode).toBe(303);
    await steps(agent, path);
  }

  beforeAll(async () => {
    receiver = await TestReceiver.start();
    t = await startTestApp(engine, { seams: { extraProviders: { test: [vault] } } });
    client = await t.newClient();
    secrets.push(client.testKey, client.liveKey);

    const endpoint = await api('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    const rotated = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, {});
    secrets.push(endpoint.secret as string, rotated.secret as string);

    const holder = await api('POST', '/v1/connect/account_holders', { email: 'ada@example.com' });
    const body = { account_holder: holder.id, permissions: ['balances'] };
    created = await api('POST', '/v1/connect/sessions', body, { 'idempotency-key': 'secrets-at-rest' });
    replayed = await api('POST', '/v1/connect/sessions', body, { 'idempotency-key': 'secrets-at-rest' });
    const apiKey = `vault_${randomBase62(32)}`;
    secrets.push(created.client_secret as string, apiKey);
    await hosted(created, async (agent, path) => {
      expect((await agent.post(`${path}/providers/vault`, { api_key: apiKey })).statusCode).toBe(303);
      expect((await agent.post(`${path}/finish`)).statusCode).toBe(200);
    });
    completedId = created.id as string;

    const abandoned = await api('POST', '/v1/connect/sessions', body);
    secrets.push(abandoned.client_secret as string);
    await hosted(abandoned, async (agent, path) => {
      expect((await agent.post(`${path}/exit`)).statusCode).toBe(200);
    });
    abandonedId = abandoned.id as string;

    // The account holder signs in to the portal from the access request's e-mail.
    await api('POST', '/v1/verify/access_requests', { type: 'sharing', account_holder_id: holder.id, permissions: ['balances'] });
    await runDueJobs(t.ctx);
    const mail = await t.ctx.db
      .selectFrom('mail_outbox')
      .select('text_body')
      .where('to_address', '=', 'ada@example.com')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    const link = /\/portal\/sign-in\/pl_[0-9A-Za-z]+/.exec(mail.text_body)?.[0] as string;
    const portal = new FormAgent(t.app, 'portal');
    await portal.get(link);
    const signedIn = await portal.post(link);
    secrets.push(/ownproof_portal_session=(ps_[0-9A-Za-z]+)/.exec([signedIn.headers['set-cookie']].flat().join('\n'))?.[1] as string);

    // Every event so far delivered to the receiver.
    await runDueJobs(t.ctx);
    expect(secrets.every((secret) => typeof secret === 'string' && secret.length >= 32)).toBe(true);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const leaked = (text: string) => secrets.filter((secret) => text.includes(secret)).map((secret) => `${secret.slice(0, 10)}…`);

  it('returns client_secret and hosted_url in the create response and its idempotent replay only', async () => {
    expect(created.client_secret).toMatch(/^cs_test_[0-9A-Za-z]{32}$/);
    expect(created.hosted_url).toBe(`${t.ctx.config.connectBaseUrl}/${created.client_secret}`);
    expect(replayed).toEqual(created);
    for (const id of [completedId, abandonedId]) {
      expect(await api('GET', `/v1/connect/sessions/${id}`)).toMatchObject({ id, client_secret: null, hosted_url: null });
    }
    const listed = (await api('GET', '/v1/connect/sessions')).data as Record<string, unknown>[];
    expect(listed.map((s) => [s.client_secret, s.hosted_url])).toEqual(listed.map(() => [null, null]));
  });

  it('carries no secret in the events table, /v1/events or the webhook bodies received', async () => {
    const rows = await t.ctx.db.selectFrom('events').selectAll().where('client_id', '=', client.clientId).execute();
    const listed = await api('GET', '/v1/events?limit=100');
    const bodies = receiver.received.map((request) => request.body);
    const types = (listed.data as { type: string; data: { object: Record<string, unknown> } }[]).filter((e) =>
      e.type.startsWith('session.'),
    );
    // The search covers the session events, delivered: each shows the session without its secret.
    expect(types.map((e) => e.type).sort()).toEqual(['session.abandoned', 'session.completed']);
    for (const event of types) expect(event.data.object).toMatchObject({ client_secret: null, hosted_url: null });
    expect(bodies.filter((body) => body.includes('"session.completed"') || body.includes('"session.abandoned"'))).toHaveLength(2);
    expect(leaked(JSON.stringify(rows)), 'events table').toEqual([]);
    expect(leaked(JSON.stringify(listed)), '/v1/events').toEqual([]);
    expect(leaked(bodies.join('\n')), 'webhook bodies').toEqual([]);
  });

  it('scrubs the secret from session events recorded before sessions hid it, when the database is upgraded', async () => {
    // A session.completed event as earlier versions recorded it: the session with its secret.
    const secret = `cs_test_${randomBase62(32)}`;
    const legacy = {
      id: 'sess_legacy',
      object: 'session',
      account_holder: 'ah_legacy',
      client_secret: secret,
      hosted_url: `https://c.example/${secret}`,
      status: 'completed',
    };
    await t.ctx.db
      .insertInto('events')
      .values({
        id: 'evt_legacy_session',
        client_id: client.clientId,
        mode: 'test',
        type: 'session.completed',
        data: JSON.stringify(legacy),
        created_at: 1,
      })
      .execute();
    const upgrade = Object.entries(allMigrations(t.database.handle.capabilities)).find(([name]) =>
      name.endsWith('_session_events_without_secret'),
    )?.[1];
    await upgrade?.up(t.ctx.db as unknown as Kysely<unknown>);
    const event = await api('GET', '/v1/events/evt_legacy_session');
    expect((event.data as { object: unknown }).object).toEqual({ ...legacy, client_secret: null, hosted_url: null });
  });

  it.runIf(engine === 'sqlite')('stores no secret in clear in the SQLite file', async () => {
    const config = t.database.config as { file: string };
    const files = [config.file, `${config.file}-wal`].filter((file) => existsSync(file));
    const bytes = files.map((file) => readFileSync(file).toString('latin1')).join('\n');
    // The file holds the flow's data: the search is over the right bytes.
    expect(bytes).toContain(completedId);
    expect(leaked(bytes)).toEqual([]);
  });

  it.runIf(engine === 'postgres')('stores no secret in clear in the PostgreSQL database (pg_dump)', async () => {
    const { stdout } = await promisify(execFile)('pg_dump', ['--no-owner', (t.database.config as { url: string }).url], {
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(stdout).toContain(completedId);
    expect(leaked(stdout)).toEqual([]);
  });
});
