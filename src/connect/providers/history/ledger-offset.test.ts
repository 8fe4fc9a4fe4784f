import { describe, expect, it } from 'vitest';
import { fakeForTests } from '../../../../test/support/fake-exchange-server.js';
import { krakenLedger, startFakeKraken, type KrakenAccount } from '../../../../test/support/fake-kraken.js';
import { providerAt, refsOf, walkHistory } from '../../../../test/support/provider-walk.js';

/**
 * The `ledger-offset` walk without an end-time parameter (an exchange whose ledger ccxt pages by
 * offset with no time range; Bitstamp's row was one before it walked by id), against the fake
 * Kraken, whose ccxt class pages the same way: no checkpoints, and a cursor holding another walk's
 * checkpoint sends no end time the exchange does not take.
 */
describe('a ledger paged by offset with no end time to resume from', () => {
  const kraken = fakeForTests(startFakeKraken);

  const provider = (end?: string) =>
    providerAt('kraken', kraken.fake.url, { kind: 'ledger-offset', param: 'ofs', pageSize: 50, ...(end === undefined ? {} : { end }) });
  const walk = (account: KrakenAccount, cursor: string | null, end?: string) =>
    walkHistory(provider(end), { apiKey: account.key, secret: account.secret }, cursor);
  const ledgerCalls = (from: number) =>
    kraken.fake.requests
      .slice(from)
      .filter((r) => r.path === '/0/private/Ledgers')
      .map((r) => new URLSearchParams(r.body));

  it('leaves no checkpoint, and reads everything each time from the newest page', async () => {
    const ledger = krakenLedger(120, { first: 5000 });
    const account = kraken.fake.addAccount({ ledger });
    const { read } = await walk(account, null);
    expect(read.every((page) => page.checkpoint === undefined)).toBe(true);
    expect(refsOf(read).sort()).toEqual(ledger.map((entry) => `ledger:${entry.id}`).sort());
    // Handed a checkpoint of a walk that had an end time, it sends none.
    const before = kraken.fake.requests.length;
    const again = await walk(account, JSON.stringify({ backfill: { end: Math.floor(ledger[60]?.time as number), top: 1 } }));
    expect(ledgerCalls(before).some((p) => p.has('end'))).toBe(false);
    expect(refsOf(again.read).sort()).toEqual(ledger.map((entry) => `ledger:${entry.id}`).sort());
  });

  it('with the end-time parameter named (Kraken’s row), leaves checkpoints that send it', async () => {
    const account = kraken.fake.addAccount({ ledger: krakenLedger(120, { first: 6000 }) });
    const { read } = await walk(account, null, 'end');
    const checkpoint = read[0]?.checkpoint as string;
    expect(JSON.parse(checkpoint)).toEqual({ backfill: { end: expect.any(Number), top: expect.any(Number) } });
    const before = kraken.fake.requests.length;
    await walk(account, checkpoint, 'end');
    expect(ledgerCalls(before)[0]?.get('end')).toBe(String(JSON.parse(checkpoint).backfill.end));
  });
});
