import { describe, expect, it } from 'vitest';
import { addressClaim, chainOf, change, outsider, receive, scriptOf, tx, walletClaim } from '../../../test/support/statement-chain.js';
import { SimulatedChain } from '../../bitcoin/chain/index.js';
import { buildSandboxChain } from '../../bitcoin/sandbox/sandbox-chain.js';
import { computeStatement, inChainOrder, type StatementClaimInput } from './statement-computation.js';
import { effectOf } from './statement-movement.js';
import { boundaryHeights } from './statement-generation.js';
import type { StatementData, StatementTotals } from './statement.schemas.js';

const at = (iso: string) => Date.parse(iso) / 1000;

/** opening + in − out − fees = closing, in satoshis. */
function reconciles(t: StatementTotals): boolean {
  return BigInt(t.opening_balance) + BigInt(t.total_in) - BigInt(t.total_out) - BigInt(t.total_fees) === BigInt(t.closing_balance);
}

/** Every month, the whole period and every claim reconcile; months chain into each other; row balances follow. */
function expectConsistent(data: StatementData): void {
  expect(reconciles(data.summary), 'whole period').toBe(true);
  let balance = BigInt(data.summary.opening_balance);
  let count = 0;
  for (const month of data.months) {
    expect(reconciles(month), month.month).toBe(true);
    expect(BigInt(month.opening_balance), `${month.month} opens where the previous month closed`).toBe(balance);
    for (const row of month.transactions) {
      balance += BigInt(row.amount_in) - BigInt(row.amount_out) - BigInt(row.fee);
      expect(BigInt(row.balance), row.txid).toBe(balance);
      expect(row.block_time).toBeGreaterThan(0);
    }
    expect(BigInt(month.closing_balance)).toBe(balance);
    expect(month.transaction_count).toBe(month.transactions.length);
    count += month.transaction_count;
  }
  expect(BigInt(data.summary.closing_balance)).toBe(balance);
  expect(data.summary.transaction_count).toBe(count);
  for (const claim of data.claims) {
    expect(reconciles(claim.summary), claim.claim_id).toBe(true);
    let claimBalance = BigInt(claim.summary.opening_balance);
    for (const month of claim.months) {
      expect(reconciles(month), `${claim.claim_id} ${month.month}`).toBe(true);
      expect(BigInt(month.opening_balance)).toBe(claimBalance);
      claimBalance = BigInt(month.closing_balance);
    }
    expect(BigInt(claim.summary.closing_balance)).toBe(claimBalance);
  }
}

describe('the effect of one transaction on a set of addresses', () => {
  const mine = new Set([scriptOf(receive(0)), scriptOf(receive(1)), scriptOf(change(0))]);

  it('counts a payment received as in, with no fee', () => {
    expect(
      effectOf(
        tx(
          1,
          1,
          [[outsider(0), 10_000n]],
          [
            [receive(0), 9_000n],
            [outsider(1), 800n],
          ],
        ),
        mine,
      ),
    ).toEqual({ amountIn: 9_000n, amountOut: 0n, fee: 0n, net: 9_000n });
  });

  it('counts a payment sent as out and the whole fee when every input is theirs, change excluded', () => {
    const paid = tx(
      1,
      1,
      [
        [receive(0), 50_000n],
        [receive(1), 20_000n],
      ],
      [
        [outsider(0), 30_000n],
        [change(0), 39_000n],
      ],
    );
    expect(effectOf(paid, mine)).toEqual({ amountIn: 0n, amountOut: 30_000n, fee: 1_000n, net: -31_000n });
  });

  it('treats a transfer between two of its own addresses as internal: only the fee leaves', () => {
    const consolidation = tx(
      1,
      1,
      [
        [receive(0), 50_000n],
        [receive(1), 20_000n],
      ],
      [[change(0), 69_500n]],
    );
    expect(effectOf(consolidation, mine)).toEqual({ amountIn: 0n, amountOut: 0n, fee: 500n, net: -500n });
  });

  it('attributes a share of the fee by input value when only some inputs are theirs, rounded down', () => {
    // They put in 30,000 of 90,000 and got 20,000 back; the fee is 1,001 → a third, rounded down, is 333.
    const joint = tx(
      1,
      1,
      [
        [receive(0), 30_000n],
        [outsider(0), 60_000n],
      ],
      [
        [receive(1), 20_000n],
        [outsider(1), 68_999n],
      ],
    );
    expect(effectOf(joint, mine)).toEqual({ amountIn: 0n, amountOut: 9_667n, fee: 333n, net: -10_000n });
  });

  it('attributes no fee to a party that came out ahead, and never more than they lost', () => {
    // A payjoin receiver: puts in 10,000, gets 15,000 back.
    const payjoin = tx(
      1,
      1,
      [
        [receive(0), 10_000n],
        [outsider(0), 50_000n],
      ],
      [
        [receive(1), 15_000n],
        [outsider(1), 44_000n],
      ],
    );
    expect(effectOf(payjoin, mine)).toEqual({ amountIn: 5_000n, amountOut: 0n, fee: 0n, net: 5_000n });
    // Lost only 100 in a transaction whose proportional fee share would be 500.
    const small = tx(
      1,
      1,
      [
        [receive(0), 10_000n],
        [outsider(0), 10_000n],
      ],
      [
        [receive(1), 9_900n],
        [outsider(1), 9_100n],
      ],
    );
    expect(effectOf(small, mine)).toEqual({ amountIn: 0n, amountOut: 0n, fee: 100n, net: -100n });
  });

  it('ignores a transaction that touches none of the addresses', () => {
    expect(effectOf(tx(1, 1, [[outsider(0), 1_000n]], [[outsider(1), 900n]]), mine)).toBeUndefined();
  });

  it('orders a block’s transactions after the ones they spend, whatever order the source gave', () => {
    const first = tx(5, 100, [[outsider(0), 10_000n]], [[receive(0), 9_000n]]);
    const second = tx(5, 100, [[receive(0), 9_000n]], [[receive(1), 8_000n]], [first.txid]);
    const earlier = tx(4, 90, [[outsider(0), 1_000n]], [[receive(0), 900n]]);
    // second's txid sorts after first's anyway; make the dependency the reason by reversing ids.
    const swapped = { ...second, txid: '0'.repeat(64) };
    expect(inChainOrder([swapped, first, earlier, first]).map((t) => t.txid)).toEqual([earlier.txid, first.txid, swapped.txid]);
  });
});

describe('computing a statement', () => {
  const period = { open: at('2026-01-01T00:00:00Z'), close: at('2026-04-01T00:00:00Z') };

  it('reconciles every month and the whole period, with opening balance, running balances and fees', () => {
    const history = [
      tx(
        100,
        at('2025-12-20T10:00:00Z'),
        [[outsider(0), 200_000n]],
        [
          [receive(0), 150_000n],
          [outsider(1), 49_000n],
        ],
      ),
      tx(110, at('2026-01-05T10:00:00Z'), [[outsider(0), 80_000n]], [[receive(1), 80_000n]]),
      tx(
        120,
        at('2026-01-20T10:00:00Z'),
        [[receive(0), 150_000n]],
        [
          [outsider(2), 100_000n],
          [change(0), 49_000n],
        ],
      ),
      tx(
        130,
        at('2026-03-03T10:00:00Z'),
        [
          [receive(1), 80_000n],
          [change(0), 49_000n],
        ],
        [[receive(0), 128_000n]],
      ),
      tx(140, at('2026-04-02T10:00:00Z'), [[outsider(0), 5_000n]], [[receive(0), 5_000n]]),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [walletClaim('clm_w', [receive(0), receive(1), change(0)])],
      transactions: history,
      chain: chainOf(history),
    });
    expectConsistent(data);
    expect(data.summary).toEqual({
      opening_balance: '150000',
      closing_balance: '128000',
      total_in: '80000',
      total_out: '100000',
      total_fees: '2000',
      transaction_count: 3,
      pending_transaction_count: 0,
    });
    expect(data.months.map((m) => [m.month, m.opening_balance, m.closing_balance, m.transaction_count])).toEqual([
      ['2026-01', '150000', '129000', 2],
      ['2026-02', '129000', '129000', 0],
      ['2026-03', '129000', '128000', 1],
    ]);
    expect(data.months[2]!.transactions[0]).toMatchObject({
      amount_in: '0',
      amount_out: '0',
      fee: '1000',
      balance: '128000',
      block_height: 130,
      block_time_local: '2026-03-03T10:00:00Z',
    });
    expect(data.claims[0]!.summary).toEqual({
      opening_balance: '150000',
      closing_balance: '128000',
      total_in: '80000',
      total_out: '100000',
      total_fees: '2000',
      transaction_count: 3,
    });
  });

  it('shows a transfer between two claims as out of one and into the other, and as internal in the statement’s figures', () => {
    const history = [
      tx(100, at('2025-12-01T00:00:00Z'), [[outsider(0), 100_000n]], [[receive(0), 100_000n]]),
      tx(
        110,
        at('2026-02-10T00:00:00Z'),
        [[receive(0), 100_000n]],
        [
          [receive(1), 60_000n],
          [receive(0), 39_700n],
        ],
      ),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(0)), addressClaim('clm_b', receive(1))],
      transactions: history,
      chain: chainOf(history),
    });
    expectConsistent(data);
    const [a, b] = data.claims;
    expect(a!.summary).toMatchObject({ opening_balance: '100000', closing_balance: '39700', total_out: '60000', total_fees: '300' });
    expect(b!.summary).toMatchObject({ opening_balance: '0', closing_balance: '60000', total_in: '60000', total_fees: '0' });
    expect(data.summary).toMatchObject({
      opening_balance: '100000',
      closing_balance: '99700',
      total_in: '0',
      total_out: '0',
      total_fees: '300',
    });
    expect(data.months[1]!.transactions[0]!.claims).toEqual([
      { claim_id: 'clm_a', amount_in: '0', amount_out: '60000', fee: '300', balance: '39700' },
      { claim_id: 'clm_b', amount_in: '60000', amount_out: '0', fee: '0', balance: '60000' },
    ]);
  });

  it('counts an address claimed twice (alone and in a wallet) once in the statement’s figures', () => {
    const history = [tx(110, at('2026-01-10T00:00:00Z'), [[outsider(0), 10_000n]], [[receive(0), 10_000n]])];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(0)), walletClaim('clm_w', [receive(0), receive(1)])],
      transactions: history,
      chain: chainOf(history),
    });
    expect(data.summary.closing_balance).toBe('10000');
    expect(data.claims.map((c) => c.summary.closing_balance)).toEqual(['10000', '10000']);
  });

  it('gives an empty period its opening balance as closing balance, and every month of it', () => {
    const history = [tx(100, at('2025-06-01T00:00:00Z'), [[outsider(0), 10_000n]], [[receive(0), 7_000n]])];
    const data = computeStatement({
      period,
      timezone: 'America/New_York',
      claims: [addressClaim('clm_a', receive(0))],
      transactions: history,
      chain: chainOf(history),
    });
    expectConsistent(data);
    expect(data.summary).toMatchObject({
      opening_balance: '7000',
      closing_balance: '7000',
      total_in: '0',
      total_out: '0',
      total_fees: '0',
      transaction_count: 0,
    });
    expect(data.months.map((m) => m.month)).toEqual(['2025-12', '2026-01', '2026-02', '2026-03']);
    const none = computeStatement({
      period,
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(5))],
      transactions: [],
      chain: chainOf([]),
    });
    expect(none.summary).toMatchObject({ opening_balance: '0', closing_balance: '0', transaction_count: 0 });
  });

  it('includes a block timed exactly at open, leaves one timed exactly at close to the next period, and cuts by effective block time', () => {
    const history = [
      tx(100, period.open - 1, [[outsider(0), 1_000n]], [[receive(0), 1_000n]]),
      tx(101, period.open, [[outsider(0), 2_000n]], [[receive(0), 2_000n]]),
      tx(102, period.close - 1, [[outsider(0), 4_000n]], [[receive(0), 4_000n]]),
      // A miner's clock behind its predecessor's: Bitcoin allows it; the block still counts after block 102.
      tx(103, period.close - 7200, [[outsider(0), 8_000n]], [[receive(0), 8_000n]]),
      tx(104, period.close, [[outsider(0), 16_000n]], [[receive(0), 16_000n]]),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(0))],
      transactions: history,
      chain: chainOf(history),
    });
    expectConsistent(data);
    expect(data.summary).toMatchObject({ opening_balance: '1000', closing_balance: '15000', total_in: '14000', transaction_count: 3 });
    expect(data.months.at(-1)!.transactions.map((t) => t.block_height)).toEqual([102, 103]);
  });

  it('counts only transactions with 6 confirmations at the tip; shallower ones of the period are reported as pending', () => {
    const history = [
      tx(100, at('2026-01-10T00:00:00Z'), [[outsider(0), 1_000n]], [[receive(0), 1_000n]]),
      tx(195, at('2026-03-30T00:00:00Z'), [[outsider(0), 2_000n]], [[receive(0), 2_000n]]),
      tx(196, at('2026-03-30T01:00:00Z'), [[receive(0), 2_000n]], [[outsider(1), 1_500n]]),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(0))],
      transactions: history,
      chain: chainOf(history, 200),
    });
    expectConsistent(data);
    expect(data.summary).toMatchObject({ closing_balance: '3000', transaction_count: 2, pending_transaction_count: 1 });
    expect(data.chain).toEqual({ height: 200, block_hash: 'ab'.repeat(32), min_confirmations: 6 });
  });

  it('reports as pending only the shallow transactions of the period, not those before open or at and after close', () => {
    const history = [
      tx(100, at('2025-12-01T00:00:00Z'), [[outsider(0), 1_000n]], [[receive(0), 1_000n]]),
      // With the tip at 199 (6 confirmations needed) every block from 195 on is shallow: one before
      // open, one in the period, one stamped exactly at close and one after it.
      tx(195, at('2025-12-31T23:59:59Z'), [[outsider(0), 4_000n]], [[receive(0), 4_000n]]),
      tx(196, at('2026-02-01T00:00:00Z'), [[outsider(0), 8_000n]], [[receive(0), 8_000n]]),
      tx(197, at('2026-04-01T00:00:00Z'), [[outsider(0), 16_000n]], [[receive(0), 16_000n]]),
      tx(198, at('2026-04-02T00:00:00Z'), [[outsider(0), 32_000n]], [[receive(0), 32_000n]]),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(0))],
      transactions: history,
      chain: chainOf(history, 199),
    });
    expectConsistent(data);
    expect(data.summary).toEqual({
      opening_balance: '1000',
      closing_balance: '1000',
      total_in: '0',
      total_out: '0',
      total_fees: '0',
      transaction_count: 0,
      pending_transaction_count: 1,
    });
  });

  it('puts each transaction in the month of the statement’s time zone: New York across both DST changes, Kolkata, Chatham, Lord Howe', () => {
    const times = [
      at('2026-03-01T04:59:59Z'), // 23:59:59 on 28 Feb in New York
      at('2026-03-08T06:59:59Z'), // 01:59:59 EST, the last second before the clocks go forward
      at('2026-03-08T07:00:00Z'), // 03:00:00 EDT
      at('2026-04-01T03:59:59Z'), // 23:59:59 EDT on 31 March
      at('2026-10-31T23:30:00Z'), // 05:00 on 1 November in Kolkata, 13:15 on 1 November in Chatham, 10:30 on 1 November on Lord Howe
      at('2026-11-01T05:30:00Z'), // 01:30 EDT, before the clocks go back
      at('2026-11-01T06:30:00Z'), // 01:30 EST, the same wall time an hour later
      at('2026-11-30T23:59:59Z'), // still November in UTC; 1 December east of it
    ];
    const history = times.map((time, i) => tx(100 + i, time, [[outsider(0), 1_000n]], [[receive(0), 1_000n]]));
    const period2026 = { open: at('2026-02-01T00:00:00Z'), close: at('2026-12-15T00:00:00Z') };
    const monthsOf = (timezone: string) => {
      const data = computeStatement({
        period: period2026,
        timezone,
        claims: [addressClaim('clm_a', receive(0))],
        transactions: history,
        chain: chainOf(history),
      });
      expectConsistent(data);
      return Object.fromEntries(
        data.months.filter((m) => m.transaction_count > 0).map((m) => [m.month, m.transactions.map((t) => t.block_time_local)]),
      );
    };
    expect(monthsOf('America/New_York')).toEqual({
      '2026-02': ['2026-02-28T23:59:59-05:00'],
      '2026-03': ['2026-03-08T01:59:59-05:00', '2026-03-08T03:00:00-04:00', '2026-03-31T23:59:59-04:00'],
      '2026-10': ['2026-10-31T19:30:00-04:00'],
      '2026-11': ['2026-11-01T01:30:00-04:00', '2026-11-01T01:30:00-05:00', '2026-11-30T18:59:59-05:00'],
    });
    expect(monthsOf('UTC')).toMatchObject({
      '2026-03': expect.any(Array),
      '2026-04': ['2026-04-01T03:59:59Z'],
      '2026-10': ['2026-10-31T23:30:00Z'],
    });
    expect(monthsOf('Asia/Kolkata')['2026-11']).toEqual([
      '2026-11-01T05:00:00+05:30',
      '2026-11-01T11:00:00+05:30',
      '2026-11-01T12:00:00+05:30',
    ]);
    expect(monthsOf('Asia/Kolkata')['2026-12']).toEqual(['2026-12-01T05:29:59+05:30']);
    expect(monthsOf('Pacific/Chatham')['2026-11']![0]).toBe('2026-11-01T13:15:00+13:45');
    expect(monthsOf('Australia/Lord_Howe')['2026-11']![0]).toBe('2026-11-01T10:30:00+11:00');
  });
});

describe('naming each movement', () => {
  const period = { open: at('2026-01-01T00:00:00Z'), close: at('2026-04-01T00:00:00Z') };
  const rowsOf = (data: StatementData) => data.months.flatMap((m) => m.transactions);

  it('names a receipt, a payment, a transfer to itself, a consolidation and a deposit proof, with the outside addresses where they help', () => {
    const history = [
      // From two outsiders; a third outsider's change is not a counterparty.
      tx(
        100,
        at('2026-01-05T10:00:00Z'),
        [
          [outsider(0), 200_000n],
          [outsider(1), 50_000n],
          [outsider(0), 1_000n],
        ],
        [
          [receive(0), 150_000n],
          [outsider(2), 100_000n],
        ],
      ),
      // To two outsiders, change back.
      tx(
        110,
        at('2026-01-10T10:00:00Z'),
        [[receive(0), 150_000n]],
        [
          [outsider(3), 60_000n],
          [outsider(4), 10_000n],
          [change(0), 79_000n],
        ],
      ),
      // One input of its own, two outputs of its own: sent to self, only the fee leaves.
      tx(
        120,
        at('2026-02-01T10:00:00Z'),
        [[change(0), 79_000n]],
        [
          [receive(1), 30_000n],
          [change(0), 48_500n],
        ],
      ),
      // Two inputs of its own into one output of its own.
      tx(
        130,
        at('2026-02-10T10:00:00Z'),
        [
          [receive(1), 30_000n],
          [change(0), 48_500n],
        ],
        [[receive(0), 78_000n]],
      ),
      // The deposit a deposit-proof claim was proven with.
      tx(
        140,
        at('2026-03-01T10:00:00Z'),
        [[receive(0), 78_000n]],
        [
          [outsider(5), 700n],
          [receive(0), 76_800n],
        ],
      ),
      // A batch payout to five outsiders: three are listed, and how many more there are.
      tx(
        150,
        at('2026-03-10T10:00:00Z'),
        [[receive(0), 76_800n]],
        [1, 2, 3, 4, 5].map((i): [string, bigint] => [outsider(10 + i), 10_000n]).concat([[receive(0), 26_000n]]),
      ),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [walletClaim('clm_w', [receive(0), receive(1), change(0)])],
      transactions: history,
      depositProofTxids: [history[4]!.txid],
      chain: chainOf(history),
    });
    expectConsistent(data);
    expect(data.version).toBe(2);
    expect(rowsOf(data).map((row) => [row.kind, row.counterparties, row.counterparties_more])).toEqual([
      ['received', [outsider(0), outsider(1)], 0],
      ['sent', [outsider(3), outsider(4)], 0],
      ['self_transfer', [], 0],
      ['consolidation', [], 0],
      ['deposit_proof', [outsider(5)], 0],
      ['sent', [outsider(11), outsider(12), outsider(13)], 2],
    ]);
  });

  it('names a transfer between two of the statement’s claims as sent to self, as its figures treat it', () => {
    const history = [
      tx(100, at('2025-12-01T00:00:00Z'), [[outsider(0), 100_000n]], [[receive(0), 100_000n]]),
      tx(
        110,
        at('2026-02-10T00:00:00Z'),
        [[receive(0), 100_000n]],
        [
          [receive(1), 60_000n],
          [receive(0), 39_700n],
        ],
      ),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [addressClaim('clm_a', receive(0)), addressClaim('clm_b', receive(1))],
      transactions: history,
      chain: chainOf(history),
    });
    expect(rowsOf(data).map((row) => row.kind)).toEqual(['self_transfer']);
  });

  it('names a payjoin it came out ahead of as received and a coinjoin it paid into as sent', () => {
    const history = [
      tx(
        100,
        at('2026-01-05T00:00:00Z'),
        [
          [receive(0), 10_000n],
          [outsider(0), 50_000n],
        ],
        [
          [receive(1), 15_000n],
          [outsider(1), 44_000n],
        ],
      ),
      tx(
        110,
        at('2026-01-06T00:00:00Z'),
        [
          [receive(1), 15_000n],
          [outsider(2), 15_000n],
        ],
        [
          [receive(0), 10_000n],
          [outsider(3), 10_000n],
          [outsider(4), 9_000n],
        ],
      ),
    ];
    const data = computeStatement({
      period,
      timezone: 'UTC',
      claims: [walletClaim('clm_w', [receive(0), receive(1)])],
      transactions: history,
      chain: chainOf(history),
    });
    expect(rowsOf(data).map((row) => [row.kind, row.counterparties])).toEqual([
      ['received', [outsider(0)]],
      ['sent', [outsider(3), outsider(4)]],
    ]);
  });
});

describe('transactions left out', () => {
  const period = { open: at('2026-01-01T00:00:00Z'), close: at('2026-04-01T00:00:00Z') };

  it('lists every transaction of the period it leaves out: txid, block, time in UTC and local with offset, net amount, confirmations at the tip and why', () => {
    const history = [
      tx(100, at('2026-01-10T00:00:00Z'), [[outsider(0), 1_000n]], [[receive(0), 1_000n]]),
      // Tip 200, 6 confirmations needed: block 195 has 6 and counts, 196 has 5 and 200 has 1.
      tx(195, at('2026-03-30T00:00:00Z'), [[outsider(0), 2_000n]], [[receive(0), 2_000n]]),
      tx(196, at('2026-03-30T01:00:00Z'), [[receive(0), 2_000n]], [[outsider(1), 1_500n]]),
      tx(200, at('2026-03-31T12:00:00Z'), [[outsider(2), 9_000n]], [[receive(0), 8_000n]]),
      // Found in a block above the tip (mined while the histories were read): not part of this view either.
      tx(201, at('2026-03-31T22:59:00Z'), [[outsider(2), 4_000n]], [[receive(0), 4_000n]]),
      // Above the tip too, but stamped at close: another period's business.
      tx(202, at('2026-04-01T00:00:00Z'), [[outsider(3), 5_000n]], [[receive(0), 5_000n]]),
    ];
    const data = computeStatement({
      period,
      timezone: 'Europe/London',
      claims: [addressClaim('clm_a', receive(0))],
      transactions: history,
      chain: chainOf(history, 200),
    });
    expectConsistent(data);
    expect(data.summary).toMatchObject({ closing_balance: '3000', transaction_count: 2, pending_transaction_count: 3 });
    expect(data.excluded).toEqual([
      {
        txid: history[2]!.txid,
        block_height: 196,
        block_time: at('2026-03-30T01:00:00Z'),
        block_time_local: '2026-03-30T02:00:00+01:00',
        kind: 'sent',
        net: '-2000',
        confirmations: 5,
        reason: '5 confirmations at the tip the statement was computed at (block 200); 6 needed',
      },
      {
        txid: history[3]!.txid,
        block_height: 200,
        block_time: at('2026-03-31T12:00:00Z'),
        block_time_local: '2026-03-31T13:00:00+01:00',
        kind: 'received',
        net: '8000',
        confirmations: 1,
        reason: '1 confirmation at the tip the statement was computed at (block 200); 6 needed',
      },
      {
        txid: history[4]!.txid,
        block_height: 201,
        block_time: at('2026-03-31T22:59:00Z'),
        block_time_local: '2026-03-31T23:59:00+01:00',
        kind: 'received',
        net: '4000',
        confirmations: 0,
        reason: 'in block 201, mined after the tip the statement was computed at (block 200)',
      },
    ]);
  });
});

describe('a statement computed from the sandbox chain', () => {
  const sim = buildSandboxChain();

  async function fromChain(claims: StatementClaimInput[], period: { open: number; close: number }, timezone = 'UTC') {
    const addresses = claims.flatMap((c) => c.addresses);
    const histories = await sim.getAddressHistory(addresses, { includeMempool: false });
    const tip = await sim.getTip();
    const heights = await boundaryHeights(sim, period, timezone);
    return computeStatement({
      period,
      timezone,
      claims,
      transactions: [...histories.values()].flat(),
      chain: { tipHeight: tip.height, tipHash: tip.hash, minConfirmations: 6, heightBefore: (t) => heights.get(t) as number },
    });
  }

  it('matches the chain’s own balance at open and close, and shows the wallet’s internal transfer as its fee alone', async () => {
    const used = [0, 1, 2, 3, 4, 5].map(receive).concat([0, 1, 2].map(change));
    const period = { open: at('2025-06-01T00:00:00Z'), close: at('2026-03-01T00:00:00Z') };
    const data = await fromChain([walletClaim('clm_sandbox', used)], period);
    expectConsistent(data);
    expect(BigInt(data.summary.opening_balance)).toBe((await sim.getBalance(used, { time: period.open - 1 })).confirmed);
    expect(BigInt(data.summary.closing_balance)).toBe((await sim.getBalance(used, { time: period.close - 1 })).confirmed);
    // 20 November 2025: receive 1 paid 0.2 BTC to receive 3, change to change 1 — all the wallet's own.
    const november = data.months.find((m) => m.month === '2025-11')!;
    expect(november.transactions).toHaveLength(1);
    expect(november.transactions[0]).toMatchObject({
      amount_in: '0',
      amount_out: '0',
      kind: 'self_transfer',
      counterparties: [],
      counterparties_more: 0,
    });
    expect(BigInt(november.transactions[0]!.fee)).toBeGreaterThan(0n);
    expect(BigInt(november.total_fees)).toBe(BigInt(november.opening_balance) - BigInt(november.closing_balance));
    // 15 July 2025: 0.1 BTC to a merchant, change to change 0.
    const july = data.months.find((m) => m.month === '2025-07')!.transactions[0]!;
    expect(july).toMatchObject({
      amount_out: '10000000',
      amount_in: '0',
      kind: 'sent',
      counterparties: [expect.stringMatching(/^tb1q/)],
      counterparties_more: 0,
    });
    // The merchant: the one output of the payment that is not the wallet's.
    const payment = await sim.getTransaction(july.txid);
    expect(july.counterparties).toEqual(payment!.outputs.filter((o) => !used.includes(o.address!)).map((o) => o.address));
  });

  it('computes a claim with 10,000 transactions in well under a second or two', async () => {
    const busy = new SimulatedChain({ seed: 'statement-busy', network: 'testnet', startTime: at('2025-01-01T00:00:00Z') });
    const address = busy.newAddress('p2wpkh');
    busy.fundMany(address, 10_000, 1_000n, { time: at('2025-02-01T00:00:00Z'), perBlock: 50 });
    busy.mine({ count: 6 });
    const histories = await busy.getAddressHistory([address], { includeMempool: false });
    const tip = await busy.getTip();
    const period = { open: at('2025-01-15T00:00:00Z'), close: at('2025-06-01T00:00:00Z') };
    const heights = await boundaryHeights(busy, period, 'Europe/Berlin');
    const started = performance.now();
    const data = computeStatement({
      period,
      timezone: 'Europe/Berlin',
      claims: [addressClaim('clm_busy', address)],
      transactions: histories.get(address) ?? [],
      chain: { tipHeight: tip.height, tipHash: tip.hash, minConfirmations: 6, heightBefore: (t) => heights.get(t) as number },
    });
    const elapsed = performance.now() - started;
    expectConsistent(data);
    expect(data.summary).toMatchObject({
      opening_balance: '0',
      closing_balance: '10000000',
      total_in: '10000000',
      transaction_count: 10_000,
    });
    expect(data.months.reduce((n, m) => n + m.transactions.length, 0)).toBe(10_000);
    console.log(`statement of 10,000 transactions computed in ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(2_000);
  });
});
