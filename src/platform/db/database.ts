import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config/config.js';
import type { Database } from './schema.js';
import { registerReader } from './prepared-read.js';
import { FifoSqliteDialect } from './sqlite-dialect.js';
import { openSqliteReader } from './sqlite-reader.js';
import { withStatementCache } from './sqlite-statement-cache.js';

/**
 * What the storage engine can do, for the few places where SQLite and PostgreSQL differ.
 * Code branches on these flags, never on the engine's name.
 */
export interface DbCapabilities {
  /** `SELECT ... FOR UPDATE SKIP LOCKED` for claiming rows under concurrency (job queue). */
  supportsSkipLocked: boolean;
  /**
   * `SELECT ... FOR UPDATE` row locks for read-modify-write in a transaction. Without them (SQLite)
   * a write transaction already excludes every other writer, so the read-then-write is safe as is.
   */
  supportsRowLocks: boolean;
  /** Session advisory locks shared across processes. */
  supportsAdvisoryLocks: boolean;
  /** The whole database lives in one process's file; concurrency inside it is serialised. */
  singleWriter: boolean;
  /** How an auto-numbered primary key is declared: SQLite AUTOINCREMENT or SQL-standard identity. */
  identityColumn: 'autoincrement' | 'generated-identity';
}

/** The connections a process holds to its database, now (for the metrics of its pool). */
export interface ConnectionStats {
  /** Connections open. */
  open: number;
  /** Of those, waiting for a query. */
  idle: number;
  /** Queries waiting for a connection to become free. */
  waiting: number;
  /** The most connections the process opens. */
  max: number;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  capabilities: DbCapabilities;
  /** Human description for start-up logs, without credentials. */
  description: string;
  /** PostgreSQL: the pool's connections; SQLite: the one write connection and the queries queued for it. */
  connections(): ConnectionStats;
  destroy(): Promise<void>;
}

export type Db = Kysely<Database>;

/** Opens the configured database: an SQLite file (created on demand) or a PostgreSQL pool. */
export function openDatabase(config: DatabaseConfig, options: { poolSize?: number } = {}): DatabaseHandle {
  if (config.engine === 'sqlite') return openSqlite(config.file);
  return openPostgres(config.url, options.poolSize ?? 10);
}

function openSqlite(file: string): DatabaseHandle {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets readers proceed during a write; FULL makes a committed transaction survive power loss.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const reader = file === ':memory:' ? undefined : openSqliteReader(file);
  // Whatever the write connection did must be visible to the next prepared read.
  const dialect = new FifoSqliteDialect({ database: withStatementCache(sqlite) }, () => reader?.endSnapshot());
  const db = new Kysely<Database>({ dialect });
  if (reader) registerReader(db, reader);
  return {
    db,
    capabilities: {
      supportsSkipLocked: false,
      supportsRowLocks: false,
      supportsAdvisoryLocks: false,
      singleWriter: true,
      identityColumn: 'autoincrement',
    },
    description: `SQLite ${file}`,
    connections: () => {
      const { busy, waiting } = dialect.usage();
      return { open: 1, idle: busy ? 0 : 1, waiting, max: 1 };
    },
    destroy: async () => {
      await db.destroy();
      reader?.close();
    },
  };
}

const INT8_OID = 20;

function openPostgres(url: string, max: number): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // bigint columns hold Unix timestamps and sequence numbers, all far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const parsed = new URL(url);
  return {
    db,
    capabilities: {
      supportsSkipLocked: true,
      supportsRowLocks: true,
      supportsAdvisoryLocks: true,
      singleWriter: false,
      identityColumn: 'generated-identity',
    },
    description: `PostgreSQL ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`,
    connections: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
    destroy: () => db.destroy(),
  };
}
