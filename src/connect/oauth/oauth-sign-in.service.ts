import { randomBytes } from 'node:crypto';
import { unixSeconds } from '../../platform/clock.js';
import { hashSecret, newId } from '../../platform/crypto/random.js';
import { oauthApp } from './oauth-grant.service.js';
import { connectSignedIn, hostedSessionOf, type EndedSession, type HostedFlowDeps, type HostedSession } from '../hosted-flow.service.js';
import type { Provider } from '../providers/provider.js';
import { findSessionById } from '../session.repository.js';
import { sessionSecret } from '../session.service.js';
import { authorizationUrl, exchangeCode, newPkce, OAuthError, type OAuthTokens } from './oauth-client.js';
import { deleteExpiredOAuthAttempts, insertOAuthAttempt, takeOAuthAttempt } from './oauth-attempt.repository.js';

/** How long a sign-in begun may take to come back. */
export const OAUTH_ATTEMPT_TTL_SECONDS = 10 * 60;
const VERIFIER_PURPOSE = 'connect_oauth_attempt.code_verifier';

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
