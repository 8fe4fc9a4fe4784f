import { randomBytes } from 'node:crypto';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import type { Config } from '../../platform/config/config.js';
import { hashSecret, newId } from '../../platform/crypto/random.js';
import { openConnection, sealConnection, type StoredConnection } from '../stored-connection.js';
import { findAccountById, updateAccount } from '../account.repository.js';
import type { AccountRow } from '../connect.table.js';
import { connectSignedIn, hostedSessionOf, type EndedSession, type HostedFlowDeps, type HostedSession } from '../hosted-flow.service.js';
import { ProviderError, type Provider } from '../providers/provider.js';
import { findSessionById } from '../session.repository.js';
import { sessionSecret } from '../session.service.js';
import {
  authorizationUrl,
  exchangeCode,
  newPkce,
  OAuthError,
  refreshTokens,
  revokeToken,
  type OAuthApp,
  type OAuthTokens,
} from './oauth-client.js';
import { deleteExpiredOAuthAttempts, insertOAuthAttempt, takeOAuthAttempt } from './oauth-attempt.repository.js';

/** The one return address registered with every provider, under the hosted pages' base URL. */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';
/** How long a sign-in begun may take to come back. */
export const OAUTH_ATTEMPT_TTL_SECONDS = 10 * 60;
/** An access token this close to expiry is renewed before a refresh uses it. */
const RENEW_MARGIN_SECONDS = 120;
const VERIFIER_PURPOSE = 'connect_oauth_attempt.code_verifier';

/** Our OAuth client at `provider` (the operator's OAUTH_<ID>_CLIENT_ID/SECRET), or undefined when none is configured. */
export function oauthApp(config: Pick<Config, 'oauthClients' | 'connectBaseUrl'>, provider: Provider): OAuthApp | undefined {
  const client = provider.oauth ? config.oauthClients[provider.id] : undefined;
  return (
    client && {
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      redirectUri: `${config.connectBaseUrl}${OAUTH_CALLBACK_PATH}`,
    }
  );
}

/**
 * Begins "Sign in with {provider}" for a hosted session: stores the attempt (the hash of a fresh
 * `state`, the sealed PKCE verifier) and returns the authorization URL to send the browser to.
 * The state alone finds the attempt again, so the return leg needs no cookie.
 */
export async function beginOAuth(deps: HostedFlowDeps, hosted: HostedSession, provider: Provider): Promise<string | undefined> {
  const app = oauthApp(deps.config, provider);
  if (!app || !provider.oauth) return undefined;
  const state = randomBytes(32).toString('base64url');
  const { verifier, challenge } = newPkce();
  const id = newId('oauth');
  const now = unixSeconds(deps.clock);
  await deleteExpiredOAuthAttempts(deps.db, now);
  await insertOAuthAttempt(deps.db, {
    id,
    session_id: hosted.session.id,
    provider_id: provider.id,
    state_hash: hashSecret(state),
    verifier_sealed: deps.secretBox.seal(verifier, `${VERIFIER_PURPOSE}:${id}`),
    created_at: now,
    expires_at: now + OAUTH_ATTEMPT_TTL_SECONDS,
  });
  return authorizationUrl(provider.oauth.server, app, { state, challenge });
}

export type OAuthReturn =
  /** The state names no attempt that may still return (unknown, used, or older than the TTL). */
  | { kind: 'unknown' }
  /** The session it was begun in has ended meanwhile. */
  | { kind: 'ended'; ended: EndedSession }
  | { kind: 'connected'; secret: string }
  /** The session goes on: its provider page (when the provider is still offered) shows `message`. */
  | { kind: 'failed'; secret: string; hosted: HostedSession; provider: Provider | undefined; message: string };

/**
 * The return leg (`GET {CONNECT_BASE_URL}/oauth/callback`): takes the attempt its `state` names
 * (once), trades the code with the PKCE verifier, and connects the accounts the tokens open.
 */
export async function completeOAuth(
  deps: HostedFlowDeps,
  query: { state?: string | undefined; code?: string | undefined; error?: string | undefined },
): Promise<OAuthReturn> {
  if (!query.state) return { kind: 'unknown' };
  const now = unixSeconds(deps.clock);
  const attempt = await takeOAuthAttempt(deps.db, hashSecret(query.state), now);
  if (!attempt) return { kind: 'unknown' };
  const row = await findSessionById(deps.db, attempt.session_id);
  if (!row) return { kind: 'unknown' };
  const hosted = await hostedSessionOf(deps, row);
  if (hosted.state === 'ended') return { kind: 'ended', ended: hosted };
  const secret = sessionSecret(deps, row);
  const provider = hosted.providers.find((p) => p.id === attempt.provider_id);
  const app = provider && oauthApp(deps.config, provider);
  const failed = (message: string): OAuthReturn => ({ kind: 'failed', secret, hosted, provider, message });
  if (!provider?.oauth || !app) return failed('Signing in there is not available any more. Use an API key instead.');
  if (query.error === 'access_denied')
    return failed(`You did not allow access at ${provider.name}. Sign in again and choose Allow, or use an API key.`);
  if (query.error !== undefined || !query.code) return failed(`${provider.name} did not complete the sign-in. Please try again.`);

  let tokens: OAuthTokens;
  try {
    const verifier = deps.secretBox.open(attempt.verifier_sealed, `${VERIFIER_PURPOSE}:${attempt.id}`);
    tokens = await exchangeCode(provider.oauth.server, app, query.code, verifier, now);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return failed(
      error.kind === 'unavailable'
        ? `${provider.name} could not be reached to finish the sign-in. Please try again in a moment.`
        : `${provider.name} did not accept the sign-in. Please sign in again.`,
    );
  }
  const connected = await connectSignedIn(deps, hosted, provider, tokens);
  return connected.ok ? { kind: 'connected', secret } : failed(connected.message);
}

/**
 * The connection to refresh with: for an account signed in with OAuth whose access token is about
 * to expire, first new tokens, stored at once (the provider voided the old refresh token).
 * Failures become the refresh's: a grant that ended is `reauthentication_required`.
 */
export async function usableConnection(
  deps: Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox'>,
  account: AccountRow,
  provider: Provider,
  connection: StoredConnection,
): Promise<Record<string, unknown>> {
  const tokens = connection.oauth;
  const now = unixSeconds(deps.clock);
  if (!tokens || tokens.expires_at === null || tokens.expires_at > now + RENEW_MARGIN_SECONDS) return connection;
  const app = oauthApp(deps.config, provider);
  const ended = new ProviderError(
    'reauthentication_required',
    `The sign-in with ${provider.name} ended: the account holder must connect again.`,
  );
  if (!provider.oauth || !app || !tokens.refresh_token) throw ended;
  try {
    const next = { ...connection, oauth: await refreshTokens(provider.oauth.server, app, tokens.refresh_token, now) };
    await updateAccount(deps.db, account.id, {
      connection_sealed: sealConnection(deps.secretBox, account.id, next),
    });
    return next;
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    if (error.kind !== 'invalid_grant')
      throw new ProviderError('provider_unavailable', `${provider.name} could not renew the sign-in right now.`);
    // A refresh running at the same time may have renewed first: its tokens are stored.
    const current = await findAccountById(deps.db, account.id);
    if (current && current.connection_sealed !== account.connection_sealed) {
      return openConnection(deps.secretBox, current);
    }
    throw ended;
  }
}

/**
 * Ends the grant at the provider when an account signed in with OAuth is disconnected: revoking
 * the refresh token ends it there (RFC 7009). Best effort: a provider that cannot be reached does
 * not keep the account connected. Accounts of other providers have nothing to revoke (their
 * connection is not even opened).
 */
export async function revokeSignIn(
  deps: Pick<AppContext, 'config' | 'secretBox'>,
  provider: Provider | undefined,
  account: Pick<AccountRow, 'id' | 'connection_sealed'>,
): Promise<void> {
  const app = provider && oauthApp(deps.config, provider);
  if (!provider?.oauth || !app) return;
  const tokens = openConnection(deps.secretBox, account).oauth;
  if (!tokens) return;
  try {
    await revokeToken(
      provider.oauth.server,
      app,
      tokens.refresh_token ?? tokens.access_token,
      tokens.refresh_token ? 'refresh_token' : 'access_token',
    );
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
  }
}
