import type { SimulatedChain } from '../../src/bitcoin/chain/index.js';
import { sandboxWallet } from '../../src/bitcoin/sandbox/sandbox-wallet.js';
import { emailIdentity } from '../../src/platform/mail/address.js';
import type { Scope } from '../../src/platform/scope.js';
import type { ClaimStatement } from '../../src/verify/claims/claim.schemas.js';
import { checkDeposit, startDepositChallenge } from '../../src/verify/claims/proof.service.js';
import { runDueJobs } from './connect.js';
import type { TestApp, TestClient } from './test-app.js';
import { proveWith, shareAsSessionDone, testnetWallet } from './verify.js';

export const at = (iso: string) => Date.parse(iso) / 1000;

/** A lender (client), an account holder of it, and a way to prove claims and complete statements of them. */
export interface StatementWorld {
  client: TestClient;
  scope: Scope;
  holderId: string;
  /** A fresh P2WPKH address claim of the holder, shared with the client for statements. */
  proveAddress(): Promise<{ id: string; address: string; privateKey: Uint8Array }>;
  /**
   * A claim of the sandbox wallet proven by a deposit: paid from its receive address 4 on the
   * simulated chain in a block at `time`, then buried under five more blocks. Returns the claim and
   * the deposit (its txid and the service's deposit address).
   */
  proveSandboxWalletByDeposit(sim: SimulatedChain, time: number): Promise<{ id: string; txid: string; depositAddress: string }>;
  /** Generates a statement through the API and runs its job; returns the completed statement. */
  completedStatement(body: {
    claim_ids: string[];
    period: { open: number; close: number };
    timezone: string;
    valuation_currency?: string;
  }): Promise<Record<string, unknown> & { id: string }>;
}

export async function makeStatementWorld(
  t: TestApp,
  options: { clientName?: string; holder?: Record<string, string> } = {},
): Promise<StatementWorld> {
  // The periods of these tests end in November 2026; a machine whose clock is earlier still takes them.
  const missing = at('2026-12-01T00:00:00Z') - Math.floor(t.clock.now() / 1000);
  if (missing > 0) t.clock.advance(missing);
  const client = await t.newClient(options.clientName ?? 'Acme Lending');
  const scope: Scope = { clientId: client.clientId, mode: 'test' };
  const holder = await t.call(client.testKey, {
    method: 'POST',
    url: '/v1/connect/account_holders',
    json: options.holder ?? { email: 'ada@example.com' },
  });
  if (holder.statusCode !== 200) throw new Error(`account holder: ${holder.body}`);
  const holderId = holder.json().id as string;
  return {
    client,
    scope,
    holderId,
    async proveAddress() {
      const wallet = testnetWallet('p2wpkh');
      const claim = await proveWith(t.ctx, scope, holderId, wallet, {
        kind: 'connect_session',
        session_id: 'sess_statements',
        permissions: ['transactions'],
      });
      return { id: claim.id, address: wallet.address, privateKey: wallet.privateKeys[0] as Uint8Array };
    },
    async proveSandboxWalletByDeposit(sim, time) {
      const origin = { kind: 'connect_session' as const, session_id: 'sess_statements', permissions: ['transactions'] };
      const request = {
        scope,
        accountHolderId: holderId,
        requesterName: 'Acme Lending',
        origin,
        controller: emailIdentity(options.holder?.email ?? 'ada@example.com'),
      };
      const started = await startDepositChallenge(t.ctx, request, sandboxWallet().descriptor);
      if (!started.ok) throw new Error(started.message);
      const { deposit_address: depositAddress, deposit_amount: amount } = started.challenge;
      if (depositAddress === null || amount === null) throw new Error('not a deposit challenge');
      sim.spend(sandboxWallet().address('receive', 4), depositAddress, BigInt(amount), { time });
      sim.mine({ time: time + 600, count: 5 });
      const proven = await checkDeposit(t.ctx, started.challenge);
      if (!proven.ok) throw new Error(`deposit proof: ${JSON.stringify(proven)}`);
      await shareAsSessionDone(t.ctx, scope, origin, proven.claim.id);
      const proof = (JSON.parse(proven.claim.statement) as ClaimStatement).proof;
      return { id: proven.claim.id, txid: proof.txid as string, depositAddress };
    },
    async completedStatement(body) {
      const res = await t.call(client.testKey, {
        method: 'POST',
        url: '/v1/verify/statements/generate',
        json: { account_holder_id: holderId, ...body },
      });
      if (res.statusCode !== 200) throw new Error(`generate: ${res.body}`);
      await runDueJobs(t.ctx);
      const statement = (await t.call(client.testKey, { method: 'GET', url: `/v1/verify/statements/${res.json().id}` })).json();
      if (statement.status !== 'completed') throw new Error(`statement not completed: ${JSON.stringify(statement)}`);
      return statement;
    },
  };
}

/** Funds and spends from `address` on the simulated chain in October and November 2026, each buried under 6 blocks. */
export async function octoberHistory(
  sim: SimulatedChain,
  claim: { address: string; privateKey: Uint8Array },
): Promise<{ fee: bigint; txids: string[] }> {
  sim.registerKey(claim.privateKey);
  const merchant = sim.newAddress('p2wpkh');
  const funding = sim.fund(claim.address, 500_000n, { time: at('2026-10-05T12:00:00Z') });
  const payment = sim.spend(claim.address, merchant, 120_000n, { time: at('2026-10-20T12:00:00Z') });
  const topUp = sim.fund(claim.address, 30_000n, { time: at('2026-11-03T12:00:00Z') });
  sim.mine({ time: at('2026-11-05T00:00:00Z'), count: 6 });
  const tx = await sim.getTransaction(payment);
  if (!tx) throw new Error('the payment is not on the chain');
  return { fee: tx.fee, txids: [funding, payment, topUp] };
}
