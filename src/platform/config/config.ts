import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { addressDomain, isLoopbackHost, parseMailbox, type Mailbox } from '../mail/address.js';

/** Raised for a bad environment variable; the CLI prints its message as one line and exits. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Environment = 'development' | 'production' | 'test';
/** Paper sizes documents (statement PDFs) are laid out for: ISO A4 and US Letter. */
export const PAGE_SIZES = ['A4', 'Letter'] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type DatabaseConfig = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };
/** Fastify's trustProxy: a boolean, a hop count, or a list of addresses/CIDRs. */
export type TrustProxy = boolean | number | string[];

/** The SMTP server of `SMTP_URL`. */
export interface SmtpConfig {
  host: string;
  port: number;
  /** `smtps://`: TLS from the first byte (port 465 by default). */
  implicitTls: boolean;
  /**
   * For `smtp://`: `required` refuses to send unless the server upgrades the connection with
   * STARTTLS (the default); `optional` uses STARTTLS when the server offers it and sends in plain
   * text otherwise (the default for loopback hosts, or `?tls=optional`).
   */
  starttls: 'required' | 'optional';
  /** The login of the URL. `pass` is not enumerable, so printing or serialising the config never shows it. */
  auth: { user: string; pass: string } | undefined;
}

export interface MailConfig {
  /** Where mail is sent; undefined: no SMTP_URL, mail is kept in the outbox table (read at /dev/mail outside production). */
  smtp: SmtpConfig | undefined;
  /** The From of every message (`MAIL_FROM`). */
  from: Mailbox;
  /** How long connecting, the server's greeting and the TLS upgrade may take together (`SMTP_TIMEOUT_SECONDS`). */
  timeoutMs: number;
}

export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
}

export interface Config {
  env: Environment;
  host: string;
  port: number;
  publicBaseUrl: string;
  connectBaseUrl: string;
  dataDir: string;
  database: DatabaseConfig;
  logLevel: LogLevel;
  /** 32-byte key for secrets at rest, or undefined when it is to be read from/generated in dataDir. */
  masterKey: Buffer | undefined;
  /**
   * The master key being replaced (MASTER_KEY_PREVIOUS), during a rotation only: it unwraps data
   * keys it still wraps, and never wraps anything (docs/architecture.md, "Secrets at rest").
   */
  previousMasterKey: Buffer | undefined;
  trustProxy: TrustProxy;
  /**
   * Where this process answers Prometheus scrapes (`METRICS_PORT`, `METRICS_HOST`): a listener of
   * its own, apart from the API's port, so metrics never reach the public surface; `serve` and
   * `worker` alike. Unset: no listener (docs/operations.md, "Metrics").
   */
  metrics: { host: string; port: number } | undefined;
  /** How long a successful API key lookup is reused; revocation elsewhere takes effect within it. */
  apiKeyCache: { ttlMs: number; maxEntries: number };
  /** Jobs one worker process runs at the same time. */
  workerConcurrency: number;
  /** How long an open connect session lasts before it is abandoned. */
  sessionTtlSeconds: number;
  /** Esplora-compatible API (electrs, mempool) for mainnet chain data in live mode; unset: no live wallets. */
  esploraUrl: string | undefined;
  /**
   * Watch-only extended public key or descriptor (mainnet) whose receive addresses take live-mode
   * deposit proofs, one per proof; unset: live mode offers no deposit proof. Checked by the verify
   * module when it starts (platform does not parse Bitcoin keys).
   */
  depositXpub: string | undefined;
  /**
   * API rate limit per client and mode: `perSecond` requests in each one-second window, and up to
   * `burst` more per ten-second window once a second's allowance is used (docs/architecture.md, "Rate limits").
   */
  rateLimit: { perSecond: number; burst: number };
  /** Outgoing e-mail (docs/architecture.md, "Mail"). */
  mail: MailConfig;
  /**
   * Whether test-mode webhooks may go to loopback addresses (127.0.0.0/8, ::1), so integrators
   * receive on their own machine (`WEBHOOK_ALLOW_LOOPBACK`). Default: yes, except in production,
   * where a loopback target is this server's own machine. Live mode never sends there.
   */
  webhookAllowLoopback: boolean;
  /** The paper size statement PDFs are laid out for (`STATEMENT_PAGE_SIZE`). */
  statementPageSize: PageSize;
  /**
   * The exchange whose public hourly candles value live-mode statements (`PRICE_SOURCE`, lower
   * case); unset: the prices module's default. Checked by the prices module when it starts
   * (platform does not know the exchanges).
   */
  priceSource: string | undefined;
  /**
   * OAuth clients the operator registered with providers, by provider id: `OAUTH_<ID>_CLIENT_ID`
   * and `OAUTH_<ID>_CLIENT_SECRET` (e.g. `OAUTH_COINBASE_…`). `clientSecret` is not enumerable.
   */
  oauthClients: Record<string, OAuthClientConfig>;
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const ENVIRONMENTS: readonly Environment[] = ['development', 'production', 'test'];

/**
 * Reads the optional `.env` file of the working directory. Variables already set in the process win,
 * as with every dotenv loader, so an operator can always override the file.
 */
export function readDotenv(cwd: string = process.cwd()): Env {
  const file = path.join(cwd, '.env');
  if (!existsSync(file)) return {};
  return parseDotenv(readFileSync(file));
}

/**
 * Builds the configuration from environment variables (the only source of configuration).
 * Throws ConfigError naming the first variable that is wrong.
 */
export function loadConfig(env: Env = { ...readDotenv(), ...process.env }): Config {
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const nodeEnv = oneOf('NODE_ENV', get('NODE_ENV') ?? 'development', ENVIRONMENTS);
  const host = get('HOST') ?? '127.0.0.1';
  const port = integer('PORT', get('PORT') ?? '8080', 0, 65535);
  const defaultBase = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const publicBaseUrl = baseUrl('PUBLIC_BASE_URL', get('PUBLIC_BASE_URL') ?? defaultBase);
  const connectBaseUrl = baseUrl('CONNECT_BASE_URL', get('CONNECT_BASE_URL') ?? `${publicBaseUrl}/connect`);
  const dataDir = path.resolve(get('DATA_DIR') ?? './data');
  const database = databaseConfig(get('DATABASE_URL'), dataDir);
  const logLevel = oneOf('LOG_LEVEL', (get('LOG_LEVEL') ?? 'info').toLowerCase(), LOG_LEVELS);
  const masterKey = masterKeyValue('MASTER_KEY', get('MASTER_KEY'));
  const previousMasterKey = masterKeyValue('MASTER_KEY_PREVIOUS', get('MASTER_KEY_PREVIOUS'));
  const rateLimitPerSecond = integer('RATE_LIMIT_PER_SECOND', get('RATE_LIMIT_PER_SECOND') ?? '100', 1, 1_000_000);
  if (masterKey === undefined && nodeEnv === 'production') {
    throw new ConfigError('MASTER_KEY', 'is required when NODE_ENV=production (32 bytes as 64 hex characters or base64)');
  }
  return {
    env: nodeEnv,
    host,
    port,
    publicBaseUrl,
    connectBaseUrl,
    dataDir,
    database,
    logLevel,
    masterKey,
    previousMasterKey,
    trustProxy: trustProxyValue(get('TRUST_PROXY')),
    metrics: metricsListener(get('METRICS_PORT'), get('METRICS_HOST'), { host, port }),
    workerConcurrency: integer('WORKER_CONCURRENCY', get('WORKER_CONCURRENCY') ?? '16', 1, 1000),
    sessionTtlSeconds: integer('SESSION_TTL_SECONDS', get('SESSION_TTL_SECONDS') ?? '3600', 60, 7 * 24 * 3600),
    esploraUrl: get('ESPLORA_URL') === undefined ? undefined : baseUrl('ESPLORA_URL', get('ESPLORA_URL') as string),
    depositXpub: get('DEPOSIT_XPUB'),
    rateLimit: {
      perSecond: rateLimitPerSecond,
      // The burst defaults to the per-second rate, so lowering the rate lowers the burst with it.
      burst: integer('RATE_LIMIT_BURST', get('RATE_LIMIT_BURST') ?? String(rateLimitPerSecond), 0, 1_000_000),
    },
    apiKeyCache: { ttlMs: integer('API_KEY_CACHE_SECONDS', get('API_KEY_CACHE_SECONDS') ?? '2', 0, 300) * 1000, maxEntries: 10_000 },
    statementPageSize: pageSize(get('STATEMENT_PAGE_SIZE')),
    priceSource: get('PRICE_SOURCE')?.toLowerCase(),
    webhookAllowLoopback: booleanValue('WEBHOOK_ALLOW_LOOPBACK', get('WEBHOOK_ALLOW_LOOPBACK')) ?? nodeEnv !== 'production',
    oauthClients: oauthClients(env, get),
    mail: {
      smtp: smtpConfig(get('SMTP_URL')),
      from: mailFrom(get('MAIL_FROM'), publicBaseUrl),
      timeoutMs: integer('SMTP_TIMEOUT_SECONDS', get('SMTP_TIMEOUT_SECONDS') ?? '10', 1, 300) * 1000,
    },
  };
}

/** Every `OAUTH_<ID>_CLIENT_ID` with its `OAUTH_<ID>_CLIENT_SECRET`; one without the other is an error. */
function oauthClients(env: Env, get: (name: string) => string | undefined): Record<string, OAuthClientConfig> {
  const ids = new Set(Object.keys(env).flatMap((name) => /^OAUTH_([A-Z0-9]+)_CLIENT_(?:ID|SECRET)$/.exec(name)?.[1] ?? []));
  const clients: Record<string, OAuthClientConfig> = {};
  for (const id of ids) {
    const [idName, secretName] = [`OAUTH_${id}_CLIENT_ID`, `OAUTH_${id}_CLIENT_SECRET`];
    const clientId = get(idName);
    const clientSecret = get(secretName);
    if (clientId === undefined && clientSecret === undefined) continue;
    if (clientSecret === undefined) throw new ConfigError(secretName, `is required with ${idName}`);
    if (clientId === undefined) throw new ConfigError(idName, `is required with ${secretName}`);
    const client = { clientId } as OAuthClientConfig;
    Object.defineProperty(client, 'clientSecret', { value: clientSecret, enumerable: false });
    clients[id.toLowerCase()] = client;
  }
  return clients;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

/** `true` or `false` (any letter case); undefined when unset. */
function booleanValue(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const word = value.toLowerCase();
  if (word === 'true' || word === 'false') return word === 'true';
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

/** `A4` (the default) or `Letter`, in any letter case. */
function pageSize(value: string | undefined): PageSize {
  const size = PAGE_SIZES.find((name) => name.toLowerCase() === (value ?? 'A4').toLowerCase());
  if (size === undefined) throw new ConfigError('STATEMENT_PAGE_SIZE', `must be A4 or Letter (got "${value}")`);
  return size;
}

function baseUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must use http or https (got "${url.protocol}")`);
  }
  if (url.search || url.hash) throw new ConfigError(name, 'must not have a query string or fragment');
  return url.toString().replace(/\/+$/, '');
}

function databaseConfig(value: string | undefined, dataDir: string): DatabaseConfig {
  if (value === undefined) return { engine: 'sqlite', file: path.join(dataDir, 'ownproof.sqlite') };
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { engine: 'postgres', url: value };
  }
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/i.exec(value);
  if (sqlite?.[1]) return { engine: 'sqlite', file: path.resolve(sqlite[1]) };
  throw new ConfigError(
    'DATABASE_URL',
    'must start with postgres://, postgresql:// or sqlite: (the value is not shown because it may hold a password)',
  );
}

function masterKeyValue(name: string, value: string | undefined): Buffer | undefined {
  if (value === undefined) return undefined;
  const key = parseMasterKey(value);
  if (!key) throw new ConfigError(name, 'must be 32 bytes written as 64 hex characters or as base64');
  return key;
}

/** Parses a 32-byte key written as hex or base64; undefined when it is neither. */
export function parseMasterKey(value: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const key = Buffer.from(value, 'base64');
    if (key.length === 32) return key;
  }
  return undefined;
}

/**
 * `METRICS_PORT` (0: any free port) and `METRICS_HOST` (default 127.0.0.1, whatever HOST is: the
 * metrics are for the operator's network, and listening wider is a choice to make explicitly).
 */
function metricsListener(
  portValue: string | undefined,
  hostValue: string | undefined,
  api: { host: string; port: number },
): Config['metrics'] {
  if (portValue === undefined) {
    if (hostValue !== undefined)
      throw new ConfigError('METRICS_HOST', 'is set but METRICS_PORT is not (metrics are served only on a port of their own)');
    return undefined;
  }
  const port = integer('METRICS_PORT', portValue, 0, 65535);
  const host = hostValue ?? '127.0.0.1';
  if (port !== 0 && port === api.port)
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${api.port}): metrics are kept off the API's port`);
  return { host, port };
}

function trustProxyValue(value: string | undefined): TrustProxy {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry))) return entries;
  throw new ConfigError(
    'TRUST_PROXY',
    `must be true, false, a hop count, or a comma-separated list of IP addresses/CIDRs (got "${value}")`,
  );
}

/**
 * `smtp://[user:password@]host[:port][?tls=required|optional]` or `smtps://…`. Plain `smtp://`
 * must upgrade with STARTTLS, except to a loopback host (a local relay or mail catcher: nothing
 * crosses a network) or when the URL says `?tls=optional` (a relay on a network the operator
 * trusts); the password never travels in clear to a remote server by accident. Messages never
 * show the value: it may hold a password.
 */
function smtpConfig(value: string | undefined): SmtpConfig | undefined {
  if (value === undefined) return undefined;
  const refuse = (problem: string) => new ConfigError('SMTP_URL', `${problem} (the value is not shown because it may hold a password)`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('must be a URL such as smtps://user:password@smtp.example.com');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw refuse('must start with smtp:// or smtps://');
  if (url.hostname === '') throw refuse('must name a host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash) throw refuse('must not have a path or a fragment');
  const unknown = [...url.searchParams.keys()].find((key) => key !== 'tls');
  if (unknown !== undefined) throw refuse('takes one query parameter only, tls=required or tls=optional');
  const tls = url.searchParams.get('tls');
  if (tls !== null && tls !== 'required' && tls !== 'optional') throw refuse('tls must be required or optional');
  const implicitTls = url.protocol === 'smtps:';
  if (implicitTls && tls !== null) throw refuse('takes ?tls only with smtp:// (smtps:// is TLS from the start)');
  if ((url.username === '') !== (url.password === '')) throw refuse('must have both a user and a password, or neither');
  let auth: SmtpConfig['auth'];
  if (url.username !== '') {
    try {
      auth = { user: decodeURIComponent(url.username), pass: '' };
      Object.defineProperty(auth, 'pass', { value: decodeURIComponent(url.password), enumerable: false });
    } catch {
      throw refuse('has a user or password that is not valid percent-encoding');
    }
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    host,
    port: url.port === '' ? (implicitTls ? 465 : 587) : Number(url.port),
    implicitTls,
    starttls: tls ?? (isLoopbackHost(host) ? 'optional' : 'required'),
    auth,
  };
}

/** `MAIL_FROM`, or `ownproof <no-reply@…>` at the host of PUBLIC_BASE_URL. */
function mailFrom(value: string | undefined, publicBaseUrl: string): Mailbox {
  if (value === undefined) return { name: 'ownproof', address: `no-reply@${addressDomain(new URL(publicBaseUrl).hostname)}` };
  const mailbox = parseMailbox(value);
  if (!mailbox) throw new ConfigError('MAIL_FROM', `must be an e-mail address or "Name <address>" (got "${value}")`);
  return mailbox;
}
