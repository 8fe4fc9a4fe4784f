import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration from the environment', () => {
  it('defaults to SQLite under ./data on 127.0.0.1:8080', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      host: '127.0.0.1',
      port: 8080,
      publicBaseUrl: 'http://127.0.0.1:8080',
      connectBaseUrl: 'http://127.0.0.1:8080/connect',
      logLevel: 'info',
      trustProxy: false,
      masterKey: undefined,
      previousMasterKey: undefined,
    });
    expect(config.database).toEqual({ engine: 'sqlite', file: expect.stringMatching(/\/data\/ownproof\.sqlite$/) });
  });

  it('switches to PostgreSQL for a postgres:// DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/own' }).database).toEqual({
      engine: 'postgres',
      url: 'postgres://u:p@db:5432/own',
    });
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/own' }).database.engine).toBe('postgres');
  });

  it('takes PUBLIC_BASE_URL and CONNECT_BASE_URL without trailing slashes', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/', CONNECT_BASE_URL: 'https://connect.example.com/' });
    expect(config.publicBaseUrl).toBe('https://api.example.com');
    expect(config.connectBaseUrl).toBe('https://connect.example.com');
  });

  it('allows loopback webhook targets outside production, and in production only with WEBHOOK_ALLOW_LOOPBACK=true', () => {
    const production = { NODE_ENV: 'production', MASTER_KEY: 'ab'.repeat(32) };
    expect(loadConfig({}).webhookAllowLoopback).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).webhookAllowLoopback).toBe(true);
    expect(loadConfig(production).webhookAllowLoopback).toBe(false);
    expect(loadConfig({ ...production, WEBHOOK_ALLOW_LOOPBACK: 'true' }).webhookAllowLoopback).toBe(true);
    expect(loadConfig({ ...production, WEBHOOK_ALLOW_LOOPBACK: 'FALSE' }).webhookAllowLoopback).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'false' }).webhookAllowLoopback).toBe(false);
    expect(() => loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'yes' })).toThrow(
      'Invalid configuration: WEBHOOK_ALLOW_LOOPBACK must be true or false (got "yes")',
    );
  });

  it('reads TRUST_PROXY as a boolean, a hop count or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('accepts a MASTER_KEY as hex or base64 and requires one in production', () => {
    const hex = 'ab'.repeat(32);
    expect(loadConfig({ MASTER_KEY: hex }).masterKey?.toString('hex')).toBe(hex);
    expect(loadConfig({ MASTER_KEY: Buffer.alloc(32, 1).toString('base64') }).masterKey).toEqual(Buffer.alloc(32, 1));
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/MASTER_KEY is required when NODE_ENV=production/);
  });

  it('reads MASTER_KEY_PREVIOUS, the key being rotated out, in the same forms', () => {
    const config = loadConfig({ MASTER_KEY: 'ab'.repeat(32), MASTER_KEY_PREVIOUS: Buffer.alloc(32, 2).toString('base64url') });
    expect(config.previousMasterKey).toEqual(Buffer.alloc(32, 2));
    expect(config.masterKey?.toString('hex')).toBe('ab'.repeat(32));
  });

  it('reads OAuth clients by provider from OAUTH_<ID>_CLIENT_ID and _CLIENT_SECRET, the secret never serialised', () => {
    expect(loadConfig({}).oauthClients).toEqual({});
    const config = loadConfig({ OAUTH_COINBASE_CLIENT_ID: 'cb-client', OAUTH_COINBASE_CLIENT_SECRET: 'hunter2' });
    expect(config.oauthClients.coinbase?.clientId).toBe('cb-client');
    expect(config.oauthClients.coinbase?.clientSecret).toBe('hunter2');
    expect(JSON.stringify(config)).not.toContain('hunter2');
    expect(() => loadConfig({ OAUTH_COINBASE_CLIENT_ID: 'cb-client' })).toThrow(
      'OAUTH_COINBASE_CLIENT_SECRET is required with OAUTH_COINBASE_CLIENT_ID',
    );
    expect(() => loadConfig({ OAUTH_COINBASE_CLIENT_SECRET: 'hunter2' })).toThrow(
      'OAUTH_COINBASE_CLIENT_ID is required with OAUTH_COINBASE_CLIENT_SECRET',
    );
  });

  it('lays statement PDFs out on A4 unless STATEMENT_PAGE_SIZE says Letter (any letter case)', () => {
    expect(loadConfig({}).statementPageSize).toBe('A4');
    expect(loadConfig({ STATEMENT_PAGE_SIZE: 'letter' }).statementPageSize).toBe('Letter');
    expect(loadConfig({ STATEMENT_PAGE_SIZE: 'a4' }).statementPageSize).toBe('A4');
  });

  it('serves metrics only with METRICS_PORT, on 127.0.0.1 unless METRICS_HOST says otherwise, never on the API port', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 0 });
    expect(() => loadConfig({ METRICS_HOST: '10.0.0.5' })).toThrow('Invalid configuration: METRICS_HOST is set but METRICS_PORT is not');
    expect(() => loadConfig({ PORT: '9000', METRICS_PORT: '9000' })).toThrow(
      'Invalid configuration: METRICS_PORT must differ from PORT (9000)',
    );
  });

  it('reads PRICE_SOURCE in lower case, leaving the default and the check to the prices module', () => {
    expect(loadConfig({}).priceSource).toBeUndefined();
    expect(loadConfig({ PRICE_SOURCE: ' Kraken ' }).priceSource).toBe('kraken');
  });

  it.each([
    ['PORT', 'eighty', /^Invalid configuration: PORT must be a whole number from 0 to 65535 \(got "eighty"\)$/],
    ['PORT', '70000', /PORT must be a whole number/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    ['NODE_ENV', 'staging', /NODE_ENV must be one of/],
    ['PUBLIC_BASE_URL', 'example.com', /PUBLIC_BASE_URL must be an absolute http\(s\) URL/],
    ['CONNECT_BASE_URL', 'ftp://example.com', /CONNECT_BASE_URL must use http or https/],
    ['DATABASE_URL', 'mysql://root:hunter2@db/x', /DATABASE_URL must start with postgres:\/\//],
    ['MASTER_KEY', 'short', /MASTER_KEY must be 32 bytes/],
    ['MASTER_KEY_PREVIOUS', 'ab'.repeat(31), /^Invalid configuration: MASTER_KEY_PREVIOUS must be 32 bytes/],
    ['TRUST_PROXY', 'sometimes', /TRUST_PROXY must be true, false/],
    ['METRICS_PORT', '99999', /^Invalid configuration: METRICS_PORT must be a whole number from 0 to 65535 \(got "99999"\)$/],
    ['STATEMENT_PAGE_SIZE', 'A5', /^Invalid configuration: STATEMENT_PAGE_SIZE must be A4 or Letter \(got "A5"\)$/],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).message).not.toContain('\n');
    expect((error as ConfigError).message).not.toContain('hunter2');
  });
});
