import * as ccxt from 'ccxt';
import type { Exchange } from 'ccxt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engines, type TestDatabase } from '../../../test/support/database.js';
import { exchangeThrottles, openExchange } from './ccxt-instance.js';
import { paceLog } from './ip-pace.js';

describe.each(engines())('the exchange pace across processes on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(() => database?.destroy());

  it('holds ccxt’s rateLimit for the exchange over every process on the database, not per process', async () => {
    // Two processes' throttles: nothing shared between them but the database.
    const processes = [0, 1].map(() => exchangeThrottles(paceLog(database.handle.db)));
    // Binance at 50 ms a call of cost 1: at most 20 calls a second from this IP address.
    const instances = processes.map((throttles) => openExchange(ccxt, { id: 'binance' }, { rateLimit: 50 }, throttles));
    const times: number[] = [];
    const started = performance.now();
    await Promise.all(
      instances.map(async (exchange) => {
        for (let n = 0; n < 25; n++) {
          await exchange.throttle(1);
          times.push(performance.now());
        }
      }),
    );
    times.sort((a, b) => a - b);
    expect(times).toHaveLength(50);
    // 50 calls at 50 ms: the last goes 49 spans after the start at the earliest (per process, 24
    // spans would do). Not gaps: a call the event loop (or the pool's first connection) resolves
    // late bunches with the next.
    expect((times.at(-1) as number) - started).toBeGreaterThanOrEqual(49 * 50 - 5);
  }, 30_000);

  it('spaces a call after the one before it by that one’s cost, whichever process made it', async () => {
    const [one, other] = [0, 1].map(() =>
      openExchange(ccxt, { id: 'kraken' }, { rateLimit: 50 }, exchangeThrottles(paceLog(database.handle.db))),
    ) as [Exchange, Exchange];
    await one.throttle(5);
    const started = performance.now();
    await other.throttle(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  }, 30_000);
});
