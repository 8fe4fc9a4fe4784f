import type { Config } from './config/config.js';
import type { Clock } from './clock.js';
import type { SecretBox } from './crypto/secret-box.js';
import type { Db, DbCapabilities } from './db/database.js';
import type { ApiKeyAuthenticator } from './http/auth.js';
import type { WebhookNetwork } from './webhooks/network.js';
import type { Mailer } from './mail/mailer.js';
import type { Metrics } from './metrics/metrics.js';

/**
 * What services, request handlers and jobs need from the outside world (decorated onto Fastify as
 * `ctx`, handed to every job run and CLI command).
 *
 * Platform declares its own parts here; a domain module adds its parts by declaration merging in
 * its `*.module.ts` (`declare module '../platform/context.js' { interface AppContext { … } }`)
 * and builds them in `AppModule.context`, so this file names no domain type.
 *
 * Services take what they use as `deps: Pick<AppContext, 'db' | 'clock' | …>` (docs/architecture.md,
 * "Dependencies").
 */
export interface AppContext {
  config: Config;
  db: Db;
  capabilities: DbCapabilities;
  clock: Clock;
  secretBox: SecretBox;
  /** Resolves a presented API key to the (client, mode) it acts for; provided by the clients module. */
  apiKeys: ApiKeyAuthenticator;
  /** Sends e-mail: through SMTP_URL, or into the outbox read at /dev/mail, or (production without SMTP_URL) not at all (docs/architecture.md, "Mail"). */
  mailer: Mailer;
  /** This context's metrics: every module's declared metrics (`AppModule.metrics`), scraped at METRICS_PORT (docs/operations.md, "Metrics"). */
  metrics: Metrics;
  /**
   * Test seam: the DNS resolver and timeout webhook delivery uses. Absent in production (the
   * system resolver, 15 s); tests set it to simulate DNS rebinding, public names and slow receivers.
   */
  webhookNetwork?: Partial<WebhookNetwork>;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
