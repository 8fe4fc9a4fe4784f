import { createHash, randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';

/** An exchange's OAuth 2 authorization server (RFC 6749, with PKCE, RFC 7636, and revocation, RFC 7009). */
export interface OAuthServer {
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  /** What we ask for: read access only. */
  scopes: readonly string[];
}

/** Our registration with that server: the operator's client, and the one redirect URI registered for it. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** What a sign-in gives us, kept sealed as the account's connection (its `oauth`, stored-connection.ts). */
export const OAuthTokens = Type.Object({
  access_token: Type.String(),
  /** Absent when the server issues none; servers that rotate hand a new one on every refresh. */
  refresh_token: Type.Union([Type.String(), Type.Null()]),
  /** When the access token expires (Unix seconds); null when the server did not say. */
  expires_at: Type.Union([Type.Number(), Type.Null()]),
});
export type OAuthTokens = Static<typeof OAuthTokens>;

/**
 * A token call that failed. `invalid_grant`: the code or refresh token is no longer good (used,
 * expired, revoked) — the person must sign in again; `unavailable`: the server could not be reached
 * or answered 5xx — try later; `protocol`: it answered something we cannot use.
 */
export class OAuthError extends Error {
  constructor(
    readonly kind: 'invalid_grant' | 'unavailable' | 'protocol',
    message: string,
  ) {
    super(message);
    this.name = 'OAuthError';
  }
}

const TIMEOUT_MS = 20_000;

/** A PKCE verifier (43 characters of base64url, 256 bits) and its S256 challenge. */
export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Where the browser goes to sign in: the authorization request, with our state and the PKCE challenge. */
export function authorizationUrl(server: OAuthServer, app: OAuthApp, request: { state: string; challenge: string }): string {
  const url = new URL(server.authorizeUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope: server.scopes.join(' '),
    state: request.state,
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

/** Trades the authorization code (with the PKCE verifier) for tokens. */
export async function exchangeCode(server: OAuthServer, app: OAuthApp, code: string, verifier: string, now: number): Promise<OAuthTokens> {
  return tokens(
    await tokenRequest(server, app, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: app.redirectUri }),
    null,
    now,
  );
}

/**
 * New tokens for a refresh token. Servers that rotate refresh tokens (Coinbase does) answer with a
 * new one and void the old: the caller must store the answer before anything else.
 */
export async function refreshTokens(server: OAuthServer, app: OAuthApp, refreshToken: string, now: number): Promise<OAuthTokens> {
  return tokens(await tokenRequest(server, app, { grant_type: 'refresh_token', refresh_token: refreshToken }), refreshToken, now);
}

/** Revokes a token at the server (RFC 7009); revoking a refresh token ends the whole grant there. */
export async function revokeToken(
  server: OAuthServer,
  app: OAuthApp,
  token: string,
  hint: 'refresh_token' | 'access_token',
): Promise<void> {
  const res = await post(server.revokeUrl, { token, token_type_hint: hint, client_id: app.clientId, client_secret: app.clientSecret });
  // RFC 7009: 200 also for a token that was already invalid.
  if (!res.ok) throw new OAuthError(res.status >= 500 ? 'unavailable' : 'protocol', `the revocation endpoint answered ${res.status}`);
}

async function tokenRequest(server: OAuthServer, app: OAuthApp, params: Record<string, string>): Promise<unknown> {
  const res = await post(server.tokenUrl, { ...params, client_id: app.clientId, client_secret: app.clientSecret });
  const body: unknown = await res.json().catch(() => undefined);
  if (res.ok) return body;
  const error = (body as { error?: unknown } | undefined)?.error;
  if (res.status === 400 && error === 'invalid_grant') throw new OAuthError('invalid_grant', 'the grant is no longer valid');
  if (res.status >= 500 || res.status === 429) throw new OAuthError('unavailable', `the token endpoint answered ${res.status}`);
  throw new OAuthError('protocol', `the token endpoint answered ${res.status}${typeof error === 'string' ? ` (${error})` : ''}`);
}

async function post(url: string, params: Record<string, string>): Promise<Response> {
  try {
    return await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(params).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new OAuthError('unavailable', 'the authorization server could not be reached');
  }
}

function tokens(body: unknown, previousRefreshToken: string | null, now: number): OAuthTokens {
  const { access_token, refresh_token, expires_in, token_type } = (body ?? {}) as Record<string, unknown>;
  if (typeof access_token !== 'string' || access_token === '') throw new OAuthError('protocol', 'the token response has no access token');
  if (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer')
    throw new OAuthError('protocol', 'the token response is not a bearer token');
  return {
    access_token,
    refresh_token: typeof refresh_token === 'string' && refresh_token !== '' ? refresh_token : previousRefreshToken,
    expires_at: typeof expires_in === 'number' && expires_in > 0 ? now + Math.floor(expires_in) : null,
  };
}
