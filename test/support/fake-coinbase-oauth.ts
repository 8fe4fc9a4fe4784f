import type { JsonWebKey } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';
import type { OAuthServer } from '../../src/connect/oauth/oauth-client.js';
import type { CoinbaseAccount, FakeCoinbase } from './fake-coinbase.js';

export const OAUTH_CLIENT_ID = 'ownproof-test-client';
export const OAUTH_CLIENT_SECRET = 'oauth-client-secret-for-tests';

export interface FakeCoinbaseOAuth {
  issuer: string;
  /** The server's URLs for `oauthServerOverrides.coinbase`. */
  server: Pick<OAuthServer, 'authorizeUrl' | 'tokenUrl' | 'revokeUrl'>;
  /** Every token request's form body, in order. */
  tokenRequests: Record<string, string>[];
  /** Refresh tokens still honoured, with the Coinbase account (key) each signs in. */
  liveRefreshTokens: Map<string, string>;
  /** Tokens revoked (RFC 7009), in order. */
  revoked: string[];
  /** The Coinbase account the next authorization signs in as. */
  signInAs(account: CoinbaseAccount): void;
  /** The next authorization answers `error=access_denied`, as when the person declines. */
  declineNext(): void;
  close(): Promise<void>;
}

/**
 * A real OAuth 2 server (oauth2-mock-server: authorization code with PKCE checked, RS256 access
 * tokens) made to behave as Coinbase's: it checks our client secret, rotates refresh tokens (a used
 * one is refused with `invalid_grant`), grants our read scopes, signs the person in as a fake
 * Coinbase account, and revokes (its own revocation endpoint does not read RFC 7009's form bodies,
 * so that one is answered in front of it). The fake Coinbase is told to trust its tokens.
 */
export async function startFakeCoinbaseOAuth(coinbase: FakeCoinbase): Promise<FakeCoinbaseOAuth> {
  const oauth = new OAuth2Server();
  await oauth.issuer.keys.generate('RS256');
  const tokenRequests: Record<string, string>[] = [];
  const liveRefreshTokens = new Map<string, string>();
  const revoked: string[] = [];
  let signingIn: string | undefined;
  let decline = false;

  const front = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/revoke') return oauth.service.requestHandler(req, res);
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const params = new URLSearchParams(body);
      if (params.get('client_id') !== OAUTH_CLIENT_ID || params.get('client_secret') !== OAUTH_CLIENT_SECRET)
        return res.writeHead(401).end();
      revoked.push(params.get('token') ?? '');
      liveRefreshTokens.delete(params.get('token') ?? '');
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  oauth.issuer.url = issuer;
  coinbase.trustOAuthIssuer(issuer, oauth.issuer.keys.toJSON() as JsonWebKey[]);

  oauth.service.on('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
    if (!decline) return;
    decline = false;
    redirect.url.searchParams.delete('code');
    redirect.url.searchParams.set('error', 'access_denied');
  });
  oauth.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }, req: { body: Record<string, string> }) => {
    const account = req.body.grant_type === 'refresh_token' ? liveRefreshTokens.get(req.body.refresh_token ?? '') : signingIn;
    Object.assign(token.payload, {
      sub: account,
      scope: 'wallet:accounts:read wallet:transactions:read wallet:addresses:read wallet:user:read',
    });
  });
  oauth.service.on(
    'beforeResponse',
    (response: { statusCode: number; body: Record<string, unknown> }, req: { body: Record<string, string> }) => {
      const body = req.body;
      tokenRequests.push(body);
      if (body.client_id !== OAUTH_CLIENT_ID || body.client_secret !== OAUTH_CLIENT_SECRET) {
        Object.assign(response, { statusCode: 401, body: { error: 'invalid_client' } });
        return;
      }
      let account = signingIn as string;
      if (body.grant_type === 'refresh_token') {
        const owner = liveRefreshTokens.get(body.refresh_token ?? '');
        if (!owner) {
          Object.assign(response, { statusCode: 400, body: { error: 'invalid_grant' } });
          return;
        }
        liveRefreshTokens.delete(body.refresh_token as string);
        account = owner;
      }
      liveRefreshTokens.set(response.body.refresh_token as string, account);
    },
  );

  return {
    issuer,
    server: { authorizeUrl: `${issuer}/authorize`, tokenUrl: `${issuer}/token`, revokeUrl: `${issuer}/revoke` },
    tokenRequests,
    liveRefreshTokens,
    revoked,
    signInAs: (account) => {
      signingIn = account.key;
    },
    declineNext: () => {
      decline = true;
    },
    close: () =>
      new Promise((resolve) => {
        front.closeAllConnections();
        front.close(() => resolve());
      }),
  };
}
