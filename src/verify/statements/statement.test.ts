import { signMessage } from '../../bitcoin/message/sign-message.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../../test/support/connect.js';
import { engines } from '../../../test/support/database.js';
import { startTestApp, type TestApp, type TestClient } from '../../../test/support/test-app.js';
import { proveWith, sandboxSigner, shareAsSessionDone, startChallenge, testnetWallet } from '../../../test/support/verify.js';
import { createChainSources } from '../../bitcoin/chain-for-mode.js';
import { EsploraChainSource, SimulatedChain, startEsploraServer, type EsploraServer } from '../../bitcoin/chain/index.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';
import { sandboxWallet } from '../../bitcoin/sandbox/sandbox-wallet.js';
import type { Scope } from '../../platform/scope.js';
import { submitSignature } from '../claims/proof.service.js';
import { revokeAccess } from '../access/sharing.service.js';
import { STATEMENT_MAX_ATTEMPTS } from './statement.job.js';
import type { StatementData } from './statement.schemas.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const GENERATE = '/v1/verify/statements/generate';

describe.each(engines())('statements API on %s', (engine) => {
  const sim = buildSandboxChain();
  const sandbox = sandboxWallet();
  let t: TestApp;
  let client: TestClient;
  let scope: Scope;
  let holderId: string;
  /** Claims of the account holder: with `statements`, without it, and the sandbox wallet (with it). */
  const claims = { spender: '', balancesOnly: '', wallet: '', ofAnotherHolder: '' };
  /** The spender's three transactions in October and November 2026. */
  const spender = { address: '', fee: 0n };

  const post = (json: unknown, key = client.testKey, headers: Record<string, string> = {}) =>
    t.call(key, { method: 'POST', url: GENERATE, json, headers });
  const get = (url: string, key = client.testKey) => t.call(key, { method: 'GET', url });
  const eventsOf = async (type: string) =>
    ((await get(`/v1/events?type=${type}&limit=100`)).json().data as { data: { object: Record<string, unknown> } }[]).map(
      (e) => e.data.object,
    );
  const count = async (table: 'verify_statements' | 'jobs') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const storedData = async (id: string) => {
    const row = await t.ctx.db.selectFrom('verify_statements').select('data').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.data as string) as StatementData;
  };
  /** A claim proven as a connect session's would be, shared with this client with what the session asked for. */
  const prove = async (holder: string, permissions: string[]) => {
    const wallet = testnetWallet('p2wpkh');
    const claim = await proveWith(t.ctx, scope, holder, wallet, { kind: 'connect_session', session_id: 'sess_statements', permissions });
    return { wallet, id: claim.id };
  };
  const october = { open: at('2026-10-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') };

  beforeAll(async () => {
    t = await startTestApp(engine, { seams: { chains: createChainSources({ esploraUrl: undefined, test: sim }) } });
    // The periods below end in November 2026; a machine whose clock is earlier still takes them.
    const missing = at('2026-12-01T00:00:00Z') - Math.floor(t.clock.now() / 1000);
    if (missing > 0) t.clock.advance(missing);
    client = await t.newClient('Acme Lending');
    scope = { clientId: client.clientId, mode: 'test' };
    holderId = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })
    ).json().id;
    const otherHolder = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'eve@example.com' } })
    ).json().id;

    const spending = await prove(holderId, ['transactions']);
    claims.spender = spending.id;
    spender.address = spending.wallet.address;
    claims.balancesOnly = (await prove(holderId, ['balances'])).id;
    claims.ofAnotherHolder = (await prove(otherHolder, ['transactions'])).id;
    const inSession = { kind: 'connect_session' as const, session_id: 'sess_statements', permissions: ['transactions'] };
    const challenge = await startChallenge(t.ctx, scope, holderId, sandbox.descriptor, inSession);
    const proven = await submitSignature(t.ctx, challenge, signMessage(sandboxSigner(0), challenge.message));
    if (!proven.ok) throw new Error(JSON.stringify(proven));
    await shareAsSessionDone(t.ctx, scope, inSession, proven.claim.id);
    claims.wallet = proven.claim.id;

    // The spender's history on the sandbox chain (after the sandbox's own, which ends in September 2026).
    sim.registerKey(spending.wallet.privateKeys[0]!);
    const merchant = sim.newAddress('p2wpkh');
    sim.fund(spender.address, 500_000n, { time: at('2026-10-05T12:00:00Z') });
    const payment = sim.spend(spender.address, merchant, 120_000n, { time: at('2026-10-20T12:00:00Z') });
    spender.fee = (await sim.getTransaction(payment))!.fee;
    sim.fund(spender.address, 30_000n, { time: at('2026-11-03T12:00:00Z') });
    // The sandbox wallet starts using receive address 6 after it was verified (and scanned).
    sim.fund(sandbox.address('receive', 6), 70_000n, { time: at('2026-11-04T12:00:00Z') });
    sim.mine({ time: at('2026-11-05T00:00:00Z'), count: 6 });
  });
  afterAll(() => t.close());

  it('answers pending at once, computes the statement in the background, announces statement.completed, and keeps its figures', async () => {
    const res = await post({ account_holder_id: holderId, claim_ids: [claims.spender], period: october, timezone: 'America/New_York' });
    expect(res.statusCode).toBe(200);
    const pending = res.json();
    expect(pending).toEqual({
      id: expect.stringMatching(/^stmt_[0-9A-Za-z]{22}$/),
      object: 'statement',
      status: 'pending',
      account_holder_id: holderId,
      claim_ids: [claims.spender],
      period: october,
      timezone: 'America/New_York',
      summary: null,
      chain: null,
      valuation_currency: null,
      valuation: null,
      failure_reason: null,
      created_at: expect.any(Number),
      updated_at: pending.created_at,
      completed_at: null,
      pdf_generated_at: null,
      livemode: false,
    });
    expect((await get(`/v1/verify/statements/${pending.id}`)).json()).toEqual(pending);

    await runDueJobs(t.ctx);
    const completed = (await get(`/v1/verify/statements/${pending.id}`)).json();
    expect(completed).toMatchObject({ id: pending.id, status: 'completed', failure_reason: null, completed_at: expect.any(Number) });
    const out = 120_000n;
    expect(completed.summary).toEqual({
      opening_balance: '0',
      closing_balance: (530_000n - out - spender.fee).toString(),
      total_in: '530000',
      total_out: out.toString(),
      total_fees: spender.fee.toString(),
      transaction_count: 3,
      pending_transaction_count: 0,
    });
    expect(completed.chain).toEqual({ height: sim.height, block_hash: sim.block(sim.height)!.hash, min_confirmations: 6 });
    const [event] = (await eventsOf('statement.completed')).filter((o) => o.id === pending.id);
    expect(event).toEqual(completed);

    const data = await storedData(pending.id);
    expect(data.months.map((m) => [m.month, m.transaction_count])).toEqual([
      ['2026-09', 0], // 1 October 00:00 UTC is still 30 September in New York
      ['2026-10', 2],
      ['2026-11', 1],
    ]);
    expect(data.months[1]!.transactions[1]).toMatchObject({
      amount_out: '120000',
      fee: spender.fee.toString(),
      block_time_local: '2026-10-20T08:00:00-04:00',
    });
    expect(data.claims[0]).toMatchObject({
      claim_id: claims.spender,
      subject: { type: 'address', address: spender.address },
      addresses: [spender.address],
    });

    // New blocks and transactions later change nothing: the figures were stored, never recomputed.
    sim.fund(spender.address, 1_000n, { time: at('2026-11-10T00:00:00Z') });
    sim.mine({ count: 6 });
    await runDueJobs(t.ctx);
    expect((await get(`/v1/verify/statements/${pending.id}`)).json()).toEqual(completed);
  });

  it('values the statement in the currency asked for: balances at the bounds, movements at their times, every span adding up', async () => {
    const minor = (text: string) => BigInt(text.replace('.', ''));
    const addsUp = (v: Record<string, string>) =>
      minor(v.opening_value as string) +
        minor(v.value_in as string) -
        minor(v.value_out as string) -
        minor(v.value_fees as string) +
        minor(v.revaluation as string) ===
      minor(v.closing_value as string);
    for (const currency of ['EUR', 'JPY']) {
      const res = await post({
        account_holder_id: holderId,
        claim_ids: [claims.spender],
        period: october,
        timezone: 'Europe/London',
        valuation_currency: currency,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ valuation_currency: currency, valuation: null });
      await runDueJobs(t.ctx);
      const completed = (await get(`/v1/verify/statements/${res.json().id}`)).json();
      expect(completed.valuation).toMatchObject({
        status: 'valued',
        currency,
        source: { exchange: 'sandbox', market: `BTC/${currency}`, interval: '1h' },
      });
      expect(addsUp(completed.valuation), currency).toBe(true);
      expect(completed.valuation.value_out).not.toMatch(/^-?0(\.0+)?$/);
      if (currency === 'JPY') expect(completed.valuation.closing_value).toMatch(/^-?\d+$/);
      else expect(completed.valuation.closing_value).toMatch(/^-?\d+\.\d{2}$/);
      const data = await storedData(res.json().id);
      if (data.valuation?.status !== 'valued') throw new Error('no valuation stored');
      for (const month of data.valuation.months) expect(addsUp(month as unknown as Record<string, string>), month.month).toBe(true);
      const payment = data.months.flatMap((m) => m.transactions).find((row) => row.amount_out === '120000')!;
      expect(payment.price).toEqual(expect.any(String));
      expect(data.valuation.prices.some((p) => p.price === payment.price)).toBe(true);
    }
  });

  it('refuses a valuation currency it does not value in, naming the ones it does', async () => {
    for (const currency of ['eur', 'XBT', 'AUD', '']) {
      const res = await post({
        account_holder_id: holderId,
        claim_ids: [claims.spender],
        period: october,
        timezone: 'UTC',
        valuation_currency: currency,
      });
      expect(res.statusCode, currency).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'valuation_currency' });
      expect(res.json().error.message).toContain('"USD", "EUR", "GBP", "CHF", "CAD", "JPY"');
    }
  });

  it('completes without a valuation, saying why, when a price is not final yet (a period ending a moment ago)', async () => {
    const now = Math.floor(t.clock.now() / 1000);
    const res = await post({
      account_holder_id: holderId,
      claim_ids: [claims.spender],
      period: { open: october.open, close: now - 60 },
      timezone: 'UTC',
      valuation_currency: 'GBP',
    });
    await runDueJobs(t.ctx);
    const completed = (await get(`/v1/verify/statements/${res.json().id}`)).json();
    expect(completed.status).toBe('completed');
    expect(completed.summary).not.toBeNull();
    expect(completed.valuation).toEqual({ status: 'unavailable', currency: 'GBP', reason: expect.stringMatching(/\w/) });
    expect((await storedData(res.json().id)).valuation).toMatchObject({ status: 'unavailable', currency: 'GBP' });
  });

  it('takes the period as {opening_time, closing_time} too, and returns it as {open, close}', async () => {
    const res = await post({
      account_holder_id: holderId,
      claim_ids: [claims.spender],
      period: { opening_time: october.open, closing_time: october.close },
      timezone: 'UTC',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().period).toEqual(october);
  });

  it('reads every address a wallet claim uses at generation, one used after verification included, with its internal transfer as a fee alone', async () => {
    const period = { open: at('2025-06-01T00:00:00Z'), close: at('2026-11-20T00:00:00Z') };
    const created = (await post({ account_holder_id: holderId, claim_ids: [claims.wallet], period, timezone: 'Asia/Kolkata' })).json();
    await runDueJobs(t.ctx);
    const statement = (await get(`/v1/verify/statements/${created.id}`)).json();
    expect(statement.status).toBe('completed');
    const data = await storedData(created.id);
    expect(data.claims[0]!.addresses).toContain(sandbox.address('receive', 6));
    const used = data.claims[0]!.addresses;
    expect(BigInt(statement.summary.opening_balance)).toBe((await sim.getBalance(used, { time: period.open - 1 })).confirmed);
    expect(BigInt(statement.summary.closing_balance)).toBe((await sim.getBalance(used, { time: period.close - 1 })).confirmed);
    const november2025 = data.months.find((m) => m.month === '2025-11')!;
    expect(november2025.transactions).toEqual([expect.objectContaining({ amount_in: '0', amount_out: '0' })]);
    expect(data.months.find((m) => m.month === '2026-11')!.transactions).toEqual([
      expect.objectContaining({ amount_in: '70000', block_time_local: '2026-11-04T17:30:00+05:30' }),
    ]);
  });

  it('works with an Idempotency-Key like every POST: the retry gets the same statement, and only one is made', async () => {
    const body = { account_holder_id: holderId, claim_ids: [claims.spender], period: october, timezone: 'UTC' };
    const [statements, jobs] = [await count('verify_statements'), await count('jobs')];
    const first = await post(body, client.testKey, { 'idempotency-key': `statement-${engine}` });
    const again = await post(body, client.testKey, { 'idempotency-key': `statement-${engine}` });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await count('verify_statements')).toBe(statements + 1);
    expect(await count('jobs')).toBe(jobs + 1);
    const other = await post({ ...body, timezone: 'Europe/Paris' }, client.testKey, { 'idempotency-key': `statement-${engine}` });
    expect([other.statusCode, other.json().error.code]).toEqual([409, 'idempotency_key_reused']);
  });

  it('accepts a period of exactly ten years in its time zone, and refuses one second more', async () => {
    const open = at('2016-11-01T00:00:00+05:30');
    const close = at('2026-11-01T00:00:00+05:30');
    const ok = await post({ account_holder_id: holderId, claim_ids: [claims.spender], period: { open, close }, timezone: 'Asia/Kolkata' });
    expect(ok.statusCode).toBe(200);
    const tooLong = await post({
      account_holder_id: holderId,
      claim_ids: [claims.spender],
      period: { open, close: close + 1 },
      timezone: 'Asia/Kolkata',
    });
    expect(tooLong.json().error).toMatchObject({ code: 'parameter_invalid', param: 'period[close]' });
    expect(tooLong.json().error.message).toContain('10 years');
  });

  it.each([
    ['no account holder', { account_holder_id: undefined }, 400, 'parameter_missing', 'account_holder_id'],
    ['an unknown account holder', { account_holder_id: 'ah_nobody' }, 400, 'parameter_invalid', 'account_holder_id'],
    ['no claims', { claim_ids: [] }, 400, 'parameter_invalid', 'claim_ids'],
    ['a repeated claim', { claim_ids: ['SPENDER', 'SPENDER'] }, 400, 'parameter_invalid', 'claim_ids'],
    ['101 claims', { claim_ids: Array.from({ length: 101 }, (_, i) => `clm_${i}`) }, 400, 'parameter_invalid', 'claim_ids'],
    ['a claim id that is not text', { claim_ids: [7] }, 400, 'parameter_invalid', 'claim_ids[0]'],
    ['a claim never shared with you', { claim_ids: ['clm_nothing0000000000000000'] }, 404, 'resource_missing', 'claim_ids[0]'],
    ['an unknown second claim', { claim_ids: ['SPENDER', 'clm_nothing0000000000000000'] }, 404, 'resource_missing', 'claim_ids[1]'],
    ['a claim of another account holder', { claim_ids: ['SPENDER', 'OTHER_HOLDER'] }, 400, 'parameter_invalid', 'claim_ids[1]'],
    ['a claim shared without statements', { claim_ids: ['BALANCES_ONLY'] }, 403, 'statement_permission_missing', 'claim_ids[0]'],
    ['no period', { period: undefined }, 400, 'parameter_missing', 'period'],
    ['an empty period', { period: {} }, 400, 'parameter_missing', 'period[open]'],
    ['a period without close', { period: { open: 1_790_000_000 } }, 400, 'parameter_missing', 'period[close]'],
    ['a period without closing_time', { period: { opening_time: 1_790_000_000 } }, 400, 'parameter_missing', 'period[closing_time]'],
    ['both spellings mixed', { period: { open: 1_790_000_000, closing_time: 1_791_000_000 } }, 400, 'parameter_invalid', 'period'],
    ['open equal to close', { period: { open: 1_790_000_000, close: 1_790_000_000 } }, 400, 'parameter_invalid', 'period[close]'],
    [
      'close before open',
      { period: { opening_time: 1_790_000_000, closing_time: 1_780_000_000 } },
      400,
      'parameter_invalid',
      'period[closing_time]',
    ],
    ['close in the future', { period: { open: 1_790_000_000, close: 'FUTURE' } }, 400, 'parameter_invalid', 'period[close]'],
    ['open as text', { period: { open: '1790000000', close: 1_791_000_000 } }, 400, 'parameter_invalid', 'period[open]'],
    ['a negative open', { period: { open: -1, close: 1_791_000_000 } }, 400, 'parameter_invalid', 'period[open]'],
    ['a fractional close', { period: { open: 1_790_000_000, close: 1_791_000_000.5 } }, 400, 'parameter_invalid', 'period[close]'],
    [
      'a period with another field',
      { period: { open: 1_790_000_000, close: 1_791_000_000, from: 1 } },
      400,
      'parameter_unknown',
      'period[from]',
    ],
    ['no time zone', { timezone: undefined }, 400, 'parameter_missing', 'timezone'],
    ['a made-up time zone', { timezone: 'Mars/Olympus_Mons' }, 400, 'parameter_invalid', 'timezone'],
    ['an offset for a time zone', { timezone: '+05:30' }, 400, 'parameter_invalid', 'timezone'],
    ['a number for a time zone', { timezone: 330 }, 400, 'parameter_invalid', 'timezone'],
    ['an unknown field', { format: 'monthly' }, 400, 'parameter_unknown', 'format'],
  ])('refuses %s with %i %s naming %s, and creates nothing', async (_what, change, status, code, param) => {
    const now = Math.floor(t.clock.now() / 1000);
    const named: Record<string, string> = {
      SPENDER: claims.spender,
      OTHER_HOLDER: claims.ofAnotherHolder,
      BALANCES_ONLY: claims.balancesOnly,
    };
    const fill = (value: unknown): unknown =>
      value === 'FUTURE'
        ? now + 60
        : typeof value === 'string' && value in named
          ? named[value]
          : Array.isArray(value)
            ? value.map(fill)
            : value && typeof value === 'object'
              ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]))
              : value;
    const body: Record<string, unknown> = { account_holder_id: holderId, claim_ids: [claims.spender], period: october, timezone: 'UTC' };
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) delete body[key];
      else body[key] = fill(value);
    }
    const [statements, jobs] = [await count('verify_statements'), await count('jobs')];
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error).toMatchObject({ code, param });
    expect(res.json().error.message).toMatch(/\w/);
    expect([await count('verify_statements'), await count('jobs')]).toEqual([statements, jobs]);
  });

  it('lists newest first with account holder and status filters and pages, and hides other tenants’ statements', async () => {
    const otherHolder = (
      await t.call(client.testKey, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'grace@example.com' } })
    ).json().id;
    const { id: claimId } = await prove(otherHolder, ['transactions']);
    const body = { account_holder_id: otherHolder, claim_ids: [claimId], period: october, timezone: 'UTC' };
    const a = (await post(body)).json();
    const b = (await post(body)).json();
    const listed = (await get(`/v1/verify/statements?account_holder_id=${otherHolder}`)).json();
    expect(listed).toMatchObject({ object: 'list', url: '/v1/verify/statements', has_more: false });
    expect(listed.data.map((s: { id: string }) => s.id)).toEqual([b.id, a.id]);
    const page = (await get(`/v1/verify/statements?account_holder_id=${otherHolder}&limit=1&starting_after=${b.id}`)).json();
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect((await get(`/v1/verify/statements?account_holder_id=${otherHolder}&status=completed`)).json().data).toEqual([]);
    await runDueJobs(t.ctx);
    expect((await get(`/v1/verify/statements?account_holder_id=${otherHolder}&status=completed`)).json().data).toHaveLength(2);
    expect((await get('/v1/verify/statements?status=done')).json().error).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    expect((await get('/v1/verify/statements?account_holder_id=ah_nobody')).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'account_holder_id',
    });

    const stranger = await t.newClient('Other Lender');
    expect((await get(`/v1/verify/statements/${a.id}`, stranger.testKey)).json().error).toMatchObject({
      code: 'resource_missing',
      param: 'id',
    });
    expect((await get(`/v1/verify/statements/${a.id}`, client.liveKey)).statusCode).toBe(404);
    expect((await get('/v1/verify/statements', stranger.testKey)).json().data).toEqual([]);
    expect((await get('/v1/verify/statements', client.liveKey)).json().data).toEqual([]);
  });

  it('refuses a claim whose sharing was revoked (404), while a statement completed before stays readable', async () => {
    const { id: claimId } = await prove(holderId, ['transactions']);
    const body = { account_holder_id: holderId, claim_ids: [claimId], period: october, timezone: 'UTC' };
    const made = (await post(body)).json();
    await runDueJobs(t.ctx);
    const completed = (await get(`/v1/verify/statements/${made.id}`)).json();
    expect(completed.status).toBe('completed');
    expect(completed.summary).toMatchObject({ opening_balance: '0', closing_balance: '0', transaction_count: 0 });
    expect(await revokeAccess(t.ctx, { controller: 'ada@example.com', modes: ['test'] }, client.clientId, claimId)).toMatchObject({
      id: claimId,
      access: { revoked_at: expect.any(Number) },
    });
    const refused = await post(body);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error).toMatchObject({ code: 'resource_missing', param: 'claim_ids[0]' });
    expect((await get(`/v1/verify/statements/${made.id}`)).json()).toEqual(completed);
  });

  it('fails a statement whose claim stops being shared before it is computed, with statement.failed', async () => {
    const { id: claimId } = await prove(holderId, ['transactions']);
    const made = (await post({ account_holder_id: holderId, claim_ids: [claimId], period: october, timezone: 'UTC' })).json();
    await revokeAccess(t.ctx, { controller: 'ada@example.com', modes: ['test'] }, client.clientId, claimId);
    await runDueJobs(t.ctx);
    const failed = (await get(`/v1/verify/statements/${made.id}`)).json();
    expect(failed).toMatchObject({ status: 'failed', summary: null, chain: null, completed_at: null });
    expect(failed.failure_reason).toBe(`The account holder stopped sharing claim ${claimId} with you before the statement was computed.`);
    expect((await eventsOf('statement.failed')).filter((o) => o.id === made.id)).toEqual([failed]);
  });
});

describe.each(engines())('statements while the chain source is down, on %s', (engine) => {
  const sim = new SimulatedChain({ seed: 'statement-outage', network: 'testnet', startTime: at('2025-01-01T00:00:00Z') });
  let server: EsploraServer;
  let t: TestApp;
  let key: string;
  let body: Record<string, unknown>;
  const generate = async () => (await t.call(key, { method: 'POST', url: GENERATE, json: body })).json().id as string;
  const read = async (id: string) => (await t.call(key, { method: 'GET', url: `/v1/verify/statements/${id}` })).json();
  const attempts = async (id: string) =>
    (
      await t.ctx.db
        .selectFrom('jobs')
        .select('attempts')
        .where('dedupe_key', '=', `verify.generate_statement:${id}`)
        .executeTakeFirstOrThrow()
    ).attempts;

  beforeAll(async () => {
    server = await startEsploraServer(sim);
    // The real HTTP client, without its own retries, so each job attempt is one try.
    const source = new EsploraChainSource({ baseUrl: server.url, network: 'testnet', maxAttempts: 1, timeoutMs: 2_000 });
    t = await startTestApp(engine, { seams: { chains: createChainSources({ esploraUrl: undefined, test: source }) } });
    const client = await t.newClient();
    key = client.testKey;
    const holderId = (await t.call(key, { method: 'POST', url: '/v1/connect/account_holders', json: { email: 'ada@example.com' } })).json()
      .id;
    const wallet = testnetWallet('p2wpkh');
    const claim = await proveWith(t.ctx, { clientId: client.clientId, mode: 'test' }, holderId, wallet, {
      kind: 'connect_session',
      session_id: 'sess_x',
      permissions: ['transactions'],
    });
    sim.fund(wallet.address, 250_000n, { time: at('2025-02-10T00:00:00Z') });
    sim.mine({ count: 6 });
    body = {
      account_holder_id: holderId,
      claim_ids: [claim.id],
      period: { open: at('2025-01-01T00:00:00Z'), close: at('2025-06-01T00:00:00Z') },
      timezone: 'UTC',
    };
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('retries when the chain source fails, and completes once it answers again', async () => {
    const id = await generate();
    server.injectFault({ status: 503, times: 1 });
    await runDueJobs(t.ctx);
    expect(await read(id)).toMatchObject({ status: 'pending', failure_reason: null });
    t.clock.advance(31);
    await runDueJobs(t.ctx);
    expect(await read(id)).toMatchObject({ status: 'completed', summary: { closing_balance: '250000', transaction_count: 1 } });
    expect(await attempts(id)).toBe(2);
  });

  it('fails the statement with a clear reason and statement.failed once the retries run out', async () => {
    const id = await generate();
    server.injectFault({ status: 503, times: 1_000_000 });
    for (let run = 1; run <= STATEMENT_MAX_ATTEMPTS; run++) {
      expect((await read(id)).status, `before attempt ${run}`).toBe('pending');
      await runDueJobs(t.ctx);
      t.clock.advance(600);
    }
    const failed = await read(id);
    expect(failed).toMatchObject({ status: 'failed', summary: null });
    expect(failed.failure_reason).toBe(
      'The Bitcoin chain data source answered with an error (HTTP 503), also after retrying for about a quarter of an hour; generate the statement again later.',
    );
    expect(failed.failure_reason).not.toContain('127.0.0.1');
    expect(await attempts(id)).toBe(STATEMENT_MAX_ATTEMPTS);
    const events = (await t.call(key, { method: 'GET', url: '/v1/events?type=statement.failed' })).json().data as {
      data: { object: { id: string } };
    }[];
    expect(events.map((e) => e.data.object)).toEqual([failed]);
  });
});
