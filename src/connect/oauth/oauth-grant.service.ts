import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import type { Config } from '../../platform/config/config.js';
import { openConnection, sealConnection, type StoredConnection } from '../stored-connection.js';
import { findAccountById, updateAccount } from '../account.repository.js';
import type { AccountRow } from '../connect.table.js';
import { ProviderError, type Provider } from '../providers/provider.js';
import { OAuthError, refreshTokens, revokeToken, type OAuthApp } from './oauth-client.js';

/**
 * A signed-in account's grant at its provider (OAuth): our client there, its tokens renewed before
 * a refresh uses them, and revoked when the account is disconnected. The sign-in itself is
 * oauth-sign-in.service.ts.
 */

/** The one return address registered with every provider, under the hosted pages' base URL. */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';

/** An access token this close to expiry is renewed before a refresh uses it. */
const RENEW_MARGIN_SECONDS = 120;

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
 * The connection to refresh with: for an account signed in with OAuth whose access token is about
 * to expire, first new tokens, stored at once (the provider voided the old refresh token).
 * Failures become the refresh's: a grant that ended is `reauthentication_required`.
 */
export async function usableConnection(
  deps: Pick<AppContext, 'db' | 'clock' | 'config' | 'secretBox'>,
  account: AccountRow,
  provider: Provider,
  connection: StoredConnection,
): Promise<StoredConnection> {
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
