import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { createClient } from '../../src/clients/client.service.js';
import { service } from '../../src/main/modules.js';
import { loadConfig, type Config } from '../../src/platform/config/config.js';
import type { AppContext } from '../../src/platform/context.js';
import { openSecretBox } from '../../src/platform/crypto/secret-box.js';
import { TestClock } from './clock.js';
import { createTestDatabase, type Engine, type TestDatabase } from './database.js';
import { TEST_MASTER_KEY, TEST_MASTER_KEY_BYTES } from './master-key.js';

export interface TestClient {
  clientId: string;
  testKey: string;
  liveKey: string;
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: TestClock;
  database: TestDatabase;
  /** A new client with both keys: each test makes its own tenant, so tests never see each other's data. */
  newClient(name?: string): Promise<TestClient>;
  /** `app.inject` with `Authorization: Bearer key` and JSON body handling. */
  call(key: string | undefined, options: InjectOptions & { json?: unknown }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

// The master key of every test app unless its config sets MASTER_KEY (a child process given it opens the same secrets).
export { TEST_MASTER_KEY, TEST_MASTER_KEY_BYTES };

/** Configuration for tests: the same loader as production, fed a fixed environment. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  // Tests fire requests far faster than a real client; the rate-limit tests set their own limits.
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: '/nonexistent-ownproof-test',
    RATE_LIMIT_PER_SECOND: '100000',
    ...overrides,
  });
}

/**
 * The real application (every module of the composition root) on a fresh database of the given
 * engine, driven through Fastify's inject (full routing, hooks, validation and serialisation; no
 * socket). `seams` are context parts the test supplies instead of the modules (a chain, extra
 * providers, a webhook network): the test seams the context type declares.
 */
export async function startTestApp(
  engine: Engine,
  options: {
    config?: Record<string, string>;
    logStream?: NodeJS.WritableStream;
    seams?: Partial<AppContext>;
    /** A database another app (another process of the service) uses too; the caller destroys it. */
    database?: TestDatabase;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(engine));
  const clock = new TestClock();
  const config = testConfig(options.config);
  const masterKeys = { current: config.masterKey ?? TEST_MASTER_KEY_BYTES, previous: config.previousMasterKey };
  let secretBox: AppContext['secretBox'];
  try {
    secretBox = await openSecretBox(database.handle.db, masterKeys, clock);
  } catch (error) {
    if (!options.database) await database.destroy();
    throw error;
  }
  const ctx = service.createContext({
    config: { ...config, database: database.config },
    database: database.handle,
    clock,
    secretBox,
    ...(options.seams ? { given: options.seams } : {}),
  });
  const app = await service.buildApp(ctx, { logger: options.logStream ? { stream: options.logStream } : false });
  return {
    app,
    ctx,
    clock,
    database,
    async newClient(name = 'Test client') {
      const created = await createClient(ctx, { name });
      return { clientId: created.clientId, testKey: created.testKey, liveKey: created.liveKey as string };
    },
    call(key, { json, headers, ...rest }) {
      return app.inject({
        ...rest,
        headers: {
          ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(json === undefined ? {} : { payload: JSON.stringify(json) }),
      });
    },
    async close() {
      await app.close();
      await ctx.mailer.close();
      if (!options.database) await database.destroy();
    },
  };
}

/** A writable stream that keeps what is written, one entry per write (pino writes a line each). */
export function captureStream(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, lines };
}
