import { SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite driver serialises the single connection with a mutex whose unlock wakes every
 * waiter, and all but one go back to sleep: with 50 requests in flight, each query costs 50 promise
 * wake-ups, and throughput collapses under concurrency. This driver puts waiters in a FIFO queue and
 * hands the connection to exactly one of them, in arrival order.
 */
class FifoSqliteDriver extends SqliteDriver {
  private readonly waiters: (() => void)[] = [];
  private locked = false;

  constructor(
    config: SqliteDialectConfig,
    private readonly onRelease: () => void,
  ) {
    super(config);
  }

  /** Whether the connection is taken, and how many wait for it (the pool metrics). */
  usage(): { busy: boolean; waiting: number } {
    return { busy: this.locked, waiting: this.waiters.length };
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    if (this.locked) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.locked = true;
    // Uncontended now: only the holder of our queue's turn gets here.
    return super.acquireConnection();
  }

  /**
   * SQLite ends a transaction by itself on some errors (SQLITE_FULL on a full disk, SQLITE_IOERR,
   * SQLITE_NOMEM): the ROLLBACK that follows finds none and fails, and Kysely would throw that
   * failure in place of the cause. There is nothing left to roll back, so the cause is thrown.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if (!(error instanceof Error && /no transaction is active/.test(error.message))) throw error;
    }
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.onRelease();
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }
}

/** Kysely's SQLite dialect with the FIFO driver above; everything else is Kysely's own. */
export class FifoSqliteDialect extends SqliteDialect {
  /**
   * @param onRelease called each time the connection is released, after a query or a transaction
   *   (the prepared-read snapshot ends there).
   */
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly onRelease: () => void,
  ) {
    super(config);
  }

  private driver: FifoSqliteDriver | undefined;

  override createDriver() {
    this.driver = new FifoSqliteDriver(this.config, this.onRelease);
    return this.driver;
  }

  /** The write connection's use now (see FifoSqliteDriver.usage); idle before Kysely made the driver. */
  usage(): { busy: boolean; waiting: number } {
    return this.driver?.usage() ?? { busy: false, waiting: 0 };
  }
}
