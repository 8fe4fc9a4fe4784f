import type * as CcxtModule from 'ccxt';
import { parseRetryAfter } from '../../platform/http/retry-after.js';
import { StoredCursorError } from './history/cursor.js';
import { ProviderError, type ConnectOutcome } from './provider.js';

export type Ccxt = typeof CcxtModule;
type ConnectFailure = Extract<ConnectOutcome, { ok: false }>;

/** How long we tell the client to wait after the exchange throttled us, unless it asks for longer. */
export const EXCHANGE_RATE_LIMIT_SECONDS = 60;
/** How long we tell the client to wait after the exchange was down, in maintenance or unreachable, unless it asks for longer. */
export const EXCHANGE_UNAVAILABLE_SECONDS = 120;
/** The longest wait an exchange's Retry-After can set: past it, the client may ask again. */
const MAX_WAIT_SECONDS = 86_400;

/**
 * How long to wait: ours, or the exchange's Retry-After (seconds or an HTTP-date, in the last
 * answer's headers: ccxt keeps them but puts no wait on its errors) when it asks for longer.
 */
export function waitSeconds(ours: number, headers: Record<string, unknown> | undefined): number {
  const header = headers?.['Retry-After'];
  const asked = parseRetryAfter(typeof header === 'string' ? header : undefined, Date.now());
  return asked === undefined ? ours : Math.min(MAX_WAIT_SECONDS, Math.max(ours, Math.ceil(asked / 1000)));
}

/** Exchanges say "IP" in many ways when a key is bound to other addresses than ours. */
const IP_ALLOW_LIST = /\b(ip|ip address)\b|whitelist|white list|allow-?list|allowed ip/i;

/**
 * Some exchanges answer a bad signature (a wrong secret) with an error ccxt has no class for, such
 * as Kraken's `EAPI:Invalid signature`: to the person it is the same as a wrong key.
 */
const BAD_SIGNATURE = /invalid signature|signature (is )?(invalid|mismatch)/i;

/** The kinds of failure we explain, from ccxt's error classes (most specific first). */
export type CcxtFailureKind =
  'ip_allow_list' | 'suspended' | 'permission' | 'auth' | 'nonce' | 'rate_limited' | 'maintenance' | 'unavailable' | 'other';

/** What kind of failure a ccxt call's error is, by ccxt's error classes; the one reading for every caller. */
export function classifyCcxtError(ccxt: Ccxt, error: unknown): CcxtFailureKind {
  if (!(error instanceof ccxt.BaseError)) return 'other';
  if (error instanceof ccxt.AuthenticationError && IP_ALLOW_LIST.test(error.message)) return 'ip_allow_list';
  if (error instanceof ccxt.AccountSuspended) return 'suspended';
  if (error instanceof ccxt.PermissionDenied) return 'permission';
  if (error instanceof ccxt.AuthenticationError) return 'auth';
  if (error instanceof ccxt.ExchangeError && BAD_SIGNATURE.test(error.message)) return 'auth';
  // InvalidNonce is a NetworkError in ccxt's tree: test it before the transient ones.
  if (error instanceof ccxt.InvalidNonce) return 'nonce';
  if (error instanceof ccxt.RateLimitExceeded || error instanceof ccxt.DDoSProtection) return 'rate_limited';
  if (error instanceof ccxt.OnMaintenance) return 'maintenance';
  // OperationFailed is ccxt's "possibly temporary" family (NetworkError, BadResponse, and an
  // exchange's own "internal error, try again", e.g. Binance -1001).
  if (error instanceof ccxt.OperationFailed) return 'unavailable';
  return 'other';
}

/**
 * A failed connection attempt in plain words, for the hosted form. The exchange's own message is
 * never shown (nor logged): it is in the exchange's jargon and may echo what we sent.
 */
export function connectFailure(ccxt: Ccxt, error: unknown, exchange: string): ConnectFailure {
  switch (classifyCcxtError(ccxt, error)) {
    case 'ip_allow_list':
      // Some exchanges give one answer for a wrong key, an IP allow-list and a missing permission
      // (Binance's "Invalid API-key, IP, or permissions"): name all three.
      return {
        ok: false,
        reason: 'invalid_credentials',
        message: `${exchange} did not accept this key. Check that you copied the key and secret completely, that the key has the read permission, and that it is not restricted to IP addresses other than this server's (remove the restriction, or create a key without one).`,
      };
    case 'suspended':
      return {
        ok: false,
        reason: 'invalid_credentials',
        message: `${exchange} says this account is locked or suspended. Sort it out with ${exchange}, then try again.`,
      };
    case 'permission':
      return {
        ok: false,
        reason: 'invalid_credentials',
        message: `This key is missing a permission we need to read balances and history. Follow the steps above to give it the read permissions, then try again.`,
      };
    case 'auth':
      return {
        ok: false,
        reason: 'invalid_credentials',
        message: `${exchange} did not accept this API key and secret. Check that you copied both completely, without spaces.`,
      };
    case 'nonce':
      return {
        ok: false,
        reason: 'invalid_credentials',
        message: `${exchange} refused the request's timing (nonce). This happens when the key is also used by another app, or a clock is wrong: create a new key for us alone and try again.`,
      };
    case 'rate_limited':
      return {
        ok: false,
        reason: 'provider_unavailable',
        message: `${exchange} is limiting how often we may ask. Please wait a minute and try again.`,
      };
    case 'maintenance':
      return { ok: false, reason: 'provider_unavailable', message: `${exchange} is down for maintenance. Please try again later.` };
    case 'unavailable':
      return {
        ok: false,
        reason: 'provider_unavailable',
        message: `${exchange} is not responding right now. Please try again in a moment.`,
      };
    case 'other':
      return { ok: false, reason: 'provider_unavailable', message: `${exchange} gave an answer we could not use. Please try again later.` };
  }
}

/**
 * A failed data call as the account's refresh state tells it. Expired or revoked keys mark the
 * account `requires_reauth`; throttling and outages carry a time to come back. Anything else is a
 * plain Error naming only the ccxt class, so the job retries it and nothing the exchange echoed (or
 * a credential) lands in the job's `last_error`. A stored cursor that is not its walk's
 * (StoredCursorError, our own data) goes on as it is, naming the field, for the job to log.
 */
export function refreshFailure(ccxt: Ccxt, error: unknown, exchange: string, lastHeaders?: Record<string, unknown>): Error {
  // Our own stored cursor, not the exchange's answer: its message says which field, and is kept.
  if (error instanceof StoredCursorError) return error;
  const kind = classifyCcxtError(ccxt, error);
  switch (kind) {
    case 'ip_allow_list':
    case 'suspended':
    case 'permission':
    case 'auth':
      return new ProviderError(
        'reauthentication_required',
        `${exchange} no longer accepts the API key (${describeAuth(kind)}); the account holder must connect again.`,
      );
    case 'rate_limited':
      return new ProviderError(
        'provider_rate_limited',
        `${exchange} rate limit reached.`,
        waitSeconds(EXCHANGE_RATE_LIMIT_SECONDS, lastHeaders),
      );
    case 'maintenance':
      return new ProviderError(
        'provider_unavailable',
        `${exchange} is down for maintenance.`,
        waitSeconds(EXCHANGE_UNAVAILABLE_SECONDS, lastHeaders),
      );
    case 'unavailable':
      return new ProviderError(
        'provider_unavailable',
        `${exchange} is not responding.`,
        waitSeconds(EXCHANGE_UNAVAILABLE_SECONDS, lastHeaders),
      );
    case 'nonce':
      return new ProviderError('provider_error', `${exchange} refused the request's nonce (the key may be used by another app too).`);
    case 'other':
      return new Error(`${exchange} call failed: ${error instanceof Error ? error.constructor.name : typeof error}`);
  }
}

function describeAuth(kind: 'ip_allow_list' | 'suspended' | 'permission' | 'auth'): string {
  return {
    ip_allow_list: 'IP address not allowed',
    suspended: 'account locked',
    permission: 'permission missing',
    auth: 'key invalid or revoked',
  }[kind];
}
