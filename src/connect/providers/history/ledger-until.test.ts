import { describe, expect, it } from 'vitest';
import { fakeForTests } from '../../../../test/support/fake-exchange-server.js';
import { krakenLedger, startFakeKraken, type KrakenAccount } from '../../../../test/support/fake-kraken.js';
import { providerAt, refsOf, walkHistory } from '../../../../test/support/provider-walk.js';

/**
 * The `ledger-until` walk (Bitfinex, KuCoin: newest to oldest, each page ending at the oldest
 * time read, through ccxt's unified `until`), proven against another fake whose ccxt class maps
 * `until` too: Kraken's (`until` → `end`, seconds). Bitfinex's own fake walks it in
 * bitfinex.test.ts; no fake KuCoin exists (see docs/exchanges.md). This checks the walk itself —
 * every page, each entry once, checkpoints that resume, the cursor, the failure — with ccxt
 * unmodified, through the provider interface the refresh uses.
 */
describe('a ledger paged back by time (ccxt until), against the fake Kraken', () => {
  const kraken = fakeForTests(startFakeKraken);

  const provider = () => providerAt('kraken', kraken.fake.url, { kind: 'ledger-until', pageSize: 50 });

  const walk = (account: KrakenAccount, cursor: string | null, pages = Infinity) =>
    walkHistory(provider(), { apiKey: account.key, secret: account.secret }, cursor, pages);
  const ledgerCalls = (from: number) =>
    kraken.fake.requests
      .slice(from)
      .filter((r) => r.path === '/0/private/Ledgers')
      .map((r) => new URLSearchParams(r.body));

  it('reads every page newest to oldest, each entry once, and returns the cursor after the newest', async () => {
    const ledger = krakenLedger(175);
    const account = kraken.fake.addAccount({ ledger });
    const before = kraken.fake.requests.length;
    const { read, returned } = await walk(account, null);
    expect(refsOf(read).sort()).toEqual(ledger.map((entry) => `ledger:${entry.id}`).sort());
    const calls = ledgerCalls(before);
    expect(calls[0]?.has('end')).toBe(false);
    // Each next page ends at the oldest entry read (ccxt: `end` = its second + 1, inclusive).
    const ends = calls.slice(1).map((p) => Number(p.get('end')));
    expect(ends).toEqual([...ends].sort((a, b) => b - a));
    const newest = Math.max(...ledger.map((entry) => Math.floor(entry.time)));
    expect(JSON.parse(returned as string)).toEqual({ since: (newest - 86_400) * 1000 });
    // Checkpoints on every page but the last, none once the walk is done.
    expect(read.slice(0, -1).every((page) => page.checkpoint !== undefined)).toBe(true);
    expect(read.at(-1)?.checkpoint).toBeUndefined();
  });

  it('resumes from a page’s checkpoint, reading only what is older, and ends as one walk would', async () => {
    const ledger = krakenLedger(175, { first: 1000 });
    const account = kraken.fake.addAccount({ ledger });
    const first = await walk(account, null, 2);
    const checkpoint = first.read.at(-1)?.checkpoint;
    expect(JSON.parse(checkpoint as string)).toEqual({ backfill: { until: expect.any(Number), top: expect.any(Number) } });
    const rest = await walk(account, checkpoint as string);
    expect(new Set([...refsOf(first.read), ...refsOf(rest.read)])).toEqual(new Set(ledger.map((entry) => `ledger:${entry.id}`)));
    // The boundary is read again (inclusive), nothing more.
    expect(refsOf(first.read).filter((ref) => refsOf(rest.read).includes(ref)).length).toBeLessThanOrEqual(2);
    const newest = Math.max(...ledger.map((entry) => Math.floor(entry.time)));
    expect(JSON.parse(rest.returned as string)).toEqual({ since: (newest - 86_400) * 1000 });
  });

  it('reads back only to the cursor’s time on a later refresh', async () => {
    // An entry an hour: five days, of which the last one is read again.
    const ledger = krakenLedger(120, { first: 2000, spacing: 3600 });
    const account = kraken.fake.addAccount({ ledger });
    const { returned } = await walk(account, null);
    account.ledger.push(...krakenLedger(3, { first: 3000, startTime: Math.floor(Math.max(...ledger.map((e) => e.time))) + 600 }));
    const before = kraken.fake.requests.length;
    const later = await walk(account, returned as string);
    // One page from the cursor's time (Kraken's `start`), then one ending at its oldest entry,
    // which holds nothing new: the end.
    const calls = ledgerCalls(before);
    expect(calls).toHaveLength(2);
    expect(calls.every((p) => p.has('start'))).toBe(true);
    // The three new entries and the last day's re-read (the overlap), nothing older.
    const since = (JSON.parse(returned as string) as { since: number }).since / 1000;
    expect(later.read.flatMap((page) => page.transactions).every((tx) => tx.occurredAt >= since)).toBe(true);
    expect(refsOf(later.read)).toEqual(expect.arrayContaining(account.ledger.slice(-3).map((entry) => `ledger:${entry.id}`)));
  });

  it('fails, rather than pass a ledger off as complete, when pages stop going back in time', async () => {
    // 120 entries in one second: every page ends where it began.
    const account = kraken.fake.addAccount({ ledger: krakenLedger(120, { first: 4000, spacing: 0 }) });
    const before = kraken.fake.requests.length;
    await expect(walk(account, null)).rejects.toThrow(/Kraken call failed/);
    // The first page, then the same one again (nothing new, nothing older): the walk's own guard
    // stops it there, not an error of the exchange's.
    const calls = ledgerCalls(before);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.get('end')).toBe(String(Math.floor(account.ledger[0]?.time as number) + 1));
  });
});
