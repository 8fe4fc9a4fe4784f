import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { unixSeconds } from '../../platform/clock.js';
import { firstString, formValues } from '../../platform/web/form-values.js';
import type { PageContent, PageKit } from '../../platform/web/page-surface.js';
import {
  acceptDisclaimer,
  connectWithProvider,
  exitSession,
  finishSession,
  lookUpHostedSession,
  walletProofRequest,
  walletToProve,
  type HostedSession,
} from '../hosted-flow.service.js';
import { oauthApp, OAUTH_CALLBACK_PATH } from '../oauth/oauth-grant.service.js';
import { beginOAuth, completeOAuth } from '../oauth/oauth-sign-in.service.js';
import type { Provider } from '../providers/provider.js';
import { isSessionBrowser } from '../session.service.js';
import { proofRoutes } from '../../verify/claims/pages/proof.routes.js';
import { accountsPage } from './accounts-page.js';
import { disclaimerPage } from './disclaimer-page.js';
import type { FlowView } from './flow-view.js';
import { endedLinkPage, invalidLinkPage, otherBrowserPage, signInExpiredPage } from './link-pages.js';
import { closeTabPage, providerMissingPage, returnLinkPage, type FlowOutcome } from './outcome-pages.js';
import { providerFormPage } from './provider-form-page.js';
import { MAX_QUERY_LENGTH, providersPage } from './providers-page.js';

interface SecretParams {
  secret: string;
}
interface ProviderParams extends SecretParams {
  provider: string;
}

/** Hidden from the OpenAPI document: these are pages, not API operations. */
const PAGE = { schema: { hide: true } } as const;

/**
 * The hosted connection flow at `{CONNECT_BASE_URL}/{client_secret}`: plain forms and links,
 * POST-redirect-GET, no script. Each route looks the session up, makes at most one hosted-flow
 * service call and renders the result.
 *
 * GET  /{secret}                      the current step: disclaimer, provider choice or connected accounts
 * GET  /{secret}/providers?q=         provider choice, filtered by the search box
 * GET  /{secret}/providers/{id}       the provider's credential form
 * POST /{secret}/consent              Continue on the disclaimer
 * POST /{secret}/providers/{id}       connect with the provider
 * POST /{secret}/providers/{id}/oauth "Sign in with {provider}": on to its authorization page
 * GET  /oauth/callback?state&code     the return from it (the state names the session)
 * POST /{secret}/finish               Done: complete the session and go back to the client
 * POST /{secret}/exit                 Cancel at any step: abandon the session
 * …    /{secret}/accounts/{account}/prove/…   a connected wallet's ownership proof (verify's proof pages)
 */
export const hostedConnectRoutes: FastifyPluginAsync<{ kit: PageKit }> = async (app, { kit }) => {
  const { prefix } = kit;
  const ctx = app.ctx;
  const form = { ...PAGE, preHandler: app.csrfProtection };

  const secure = ctx.config.connectBaseUrl.startsWith('https:');
  // `__Secure-` makes browsers refuse the cookie from a plain-http origin that could plant it.
  const BROWSER_COOKIE = `${secure ? '__Secure-' : ''}ownproof_connect_browser`;

  /**
   * The open session behind the URL, asked for by the browser it belongs to; or the 404/410 page,
   * or the "open in another browser" page, already sent.
   */
  async function openSession(request: FastifyRequest<{ Params: SecretParams }>, reply: FastifyReply): Promise<HostedSession | undefined> {
    const found = await lookUpHostedSession(ctx, request.params.secret);
    if (found.state === 'open') {
      if (isSessionBrowser(found.session, request.cookies[BROWSER_COOKIE])) return found;
      kit.send(reply, otherBrowserPage());
      return undefined;
    }
    kit.send(reply, found.state === 'not_found' ? invalidLinkPage() : endedLinkPage(found));
    return undefined;
  }

  /** Path of the session's pages; the secret was checked by the lookup (base62 only). */
  const basePath = (request: FastifyRequest<{ Params: SecretParams }>) => `${prefix}/${encodeURIComponent(request.params.secret)}`;

  function viewOf(request: FastifyRequest<{ Params: SecretParams }>, reply: FastifyReply, hosted: HostedSession): FlowView {
    return {
      base: basePath(request),
      csrfToken: reply.generateCsrf(),
      clientName: hosted.clientName,
    };
  }

  function sendFlowPage(reply: FastifyReply, hosted: HostedSession, page: PageContent, formActionOrigins: string[] = []): FastifyReply {
    return kit.send(reply, page, { testMode: hosted.mode === 'test', formActionOrigins: [...returnOrigins(hosted), ...formActionOrigins] });
  }

  /** Whether the provider's page offers "Sign in with …": it has an OAuth server and the operator registered a client. */
  const signInOffered = (provider: Provider) => oauthApp(ctx.config, provider) !== undefined;

  /** A provider's page; its sign-in button posts here and is redirected on to the provider, which the CSP must allow. */
  function sendProviderPage(reply: FastifyReply, hosted: HostedSession, provider: Provider, page: PageContent): FastifyReply {
    const signIn = provider.oauth && signInOffered(provider) ? [new URL(provider.oauth.server.authorizeUrl).origin] : [];
    return sendFlowPage(reply, hosted, page, signIn);
  }

  /** Back to the first step that still needs doing. */
  function redirectToStart(request: FastifyRequest<{ Params: SecretParams }>, reply: FastifyReply): FastifyReply {
    return reply.redirect(basePath(request), 303);
  }

  /**
   * The session ended: send the browser to the return URL (with `session_id` and `status`), offer
   * a link when it is an app scheme a redirect cannot open, or say the tab can be closed.
   */
  function sendExit(reply: FastifyReply, hosted: HostedSession, url: string | null, outcome: FlowOutcome): FastifyReply {
    const options = { testMode: hosted.mode === 'test' };
    if (url === null) return kit.send(reply, closeTabPage(hosted.clientName, outcome), options);
    if (isWebUrl(url)) return reply.redirect(url, 303);
    return kit.send(reply, returnLinkPage(hosted.clientName, outcome, url), options);
  }

  app.get<{ Params: SecretParams }>('/:secret', PAGE, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    if (!hosted.consented) {
      // The first page: if it cannot be shown, the flow failed to initialise and the session ends.
      let page: PageContent;
      try {
        if (hosted.providers.length === 0) throw new Error('no providers are offered in this mode');
        page = disclaimerPage(viewOf(request, reply, hosted), hosted.permissions);
      } catch (error) {
        request.log.error({ err: error }, 'hosted connect flow failed to initialise');
        const url = await exitSession(ctx, hosted, 'initialization_failed');
        return sendExit(reply, hosted, url, { kind: 'initialization_failed' });
      }
      return sendFlowPage(reply, hosted, page);
    }
    if (hosted.accounts.length === 0) {
      return sendFlowPage(
        reply,
        hosted,
        providersPage(viewOf(request, reply, hosted), { providers: hosted.providers, query: '', connectedCount: 0 }),
      );
    }
    return sendFlowPage(reply, hosted, accountsPage(viewOf(request, reply, hosted), { accounts: hosted.accounts }));
  });

  app.get<{ Params: SecretParams; Querystring: Record<string, unknown> }>('/:secret/providers', PAGE, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    if (!hosted.consented) return redirectToStart(request, reply);
    const query = (firstString(request.query.q) ?? '').slice(0, MAX_QUERY_LENGTH);
    return sendFlowPage(
      reply,
      hosted,
      providersPage(viewOf(request, reply, hosted), { providers: hosted.providers, query, connectedCount: hosted.accounts.length }),
    );
  });

  app.get<{ Params: ProviderParams }>('/:secret/providers/:provider', PAGE, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    if (!hosted.consented) return redirectToStart(request, reply);
    const provider = hosted.providers.find((p) => p.id === request.params.provider);
    if (!provider) return sendFlowPage(reply, hosted, providerMissingPage(viewOf(request, reply, hosted)));
    return sendProviderPage(
      reply,
      hosted,
      provider,
      providerFormPage(viewOf(request, reply, hosted), { provider, signIn: signInOffered(provider) }),
    );
  });

  app.post<{ Params: ProviderParams }>('/:secret/providers/:provider/oauth', form, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    if (!hosted.consented) return redirectToStart(request, reply);
    const provider = hosted.providers.find((p) => p.id === request.params.provider);
    if (!provider) return sendFlowPage(reply, hosted, providerMissingPage(viewOf(request, reply, hosted)));
    const url = await beginOAuth(ctx, hosted, provider);
    return url ? reply.redirect(url, 303) : reply.redirect(`${basePath(request)}/providers/${encodeURIComponent(provider.id)}`, 303);
  });

  // The one redirect URI registered with providers: the state finds the session, no cookie needed.
  app.get<{ Querystring: Record<string, unknown> }>(OAUTH_CALLBACK_PATH, PAGE, async (request, reply) => {
    const { query } = request;
    const result = await completeOAuth(ctx, {
      state: firstString(query.state),
      code: firstString(query.code),
      error: firstString(query.error),
    });
    if (result.kind === 'unknown') return kit.send(reply, signInExpiredPage());
    if (result.kind === 'ended') return kit.send(reply, endedLinkPage(result.ended));
    const base = `${prefix}/${encodeURIComponent(result.secret)}`;
    if (result.kind === 'connected') return reply.redirect(base, 303);
    const { hosted, provider } = result;
    const view: FlowView = { base, csrfToken: reply.generateCsrf(), clientName: hosted.clientName };
    // The session is open; only the provider is no longer offered (its configuration changed meanwhile).
    if (!provider) return sendFlowPage(reply, hosted, providerMissingPage(view));
    return sendProviderPage(
      reply,
      hosted,
      provider,
      providerFormPage(view, { provider, signIn: signInOffered(provider), error: { message: result.message }, status: 422 }),
    );
  });

  app.post<{ Params: SecretParams }>('/:secret/consent', form, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    const token = await acceptDisclaimer(ctx, hosted);
    // Scoped to this session's pages; it lives as long as the session may stay open.
    if (token) {
      const maxAge = Math.max(1, hosted.session.expires_at - unixSeconds(ctx.clock));
      reply.setCookie(BROWSER_COOKIE, token, { path: basePath(request), httpOnly: true, sameSite: 'lax', secure, maxAge });
    }
    return reply.redirect(`${basePath(request)}/providers`, 303);
  });

  app.post<{ Params: ProviderParams }>('/:secret/providers/:provider', form, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    if (!hosted.consented) return redirectToStart(request, reply);
    const provider = hosted.providers.find((p) => p.id === request.params.provider);
    if (!provider) return sendFlowPage(reply, hosted, providerMissingPage(viewOf(request, reply, hosted)));
    const values = formValues(
      request.body,
      provider.credentialFields.map((f) => f.name),
    );
    const attempt = await connectWithProvider(ctx, hosted, provider, values);
    if (attempt.ok) return redirectToStart(request, reply);
    const status = attempt.reason === 'provider_unavailable' ? 503 : attempt.reason === 'too_many_attempts' ? 429 : 422;
    const error = { message: attempt.message, ...(attempt.field ? { field: attempt.field } : {}) };
    return sendProviderPage(
      reply,
      hosted,
      provider,
      providerFormPage(viewOf(request, reply, hosted), { provider, signIn: signInOffered(provider), values, error, status }),
    );
  });

  app.post<{ Params: SecretParams }>('/:secret/finish', form, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    if (!hosted.consented) return redirectToStart(request, reply);
    const finished = await finishSession(ctx, hosted);
    // Nothing connected yet (or the session ended meanwhile): the first page says what is next.
    if (!finished.ok) return redirectToStart(request, reply);
    return sendExit(reply, hosted, finished.redirectUrl, { kind: 'completed', accountCount: hosted.accounts.length });
  });

  app.post<{ Params: SecretParams }>('/:secret/exit', form, async (request, reply) => {
    const hosted = await openSession(request, reply);
    if (!hosted) return reply;
    const url = await exitSession(ctx, hosted, 'cancelled');
    return sendExit(reply, hosted, url, { kind: 'cancelled' });
  });

  // The verify module's ownership proof, for a wallet connected in this session. A proven wallet
  // becomes a claim recorded on its account; Done shares it with the session's client (and its
  // account shows `ownership: verified`), Cancel or expiry shares nothing.
  await app.register(
    proofRoutes({
      async resolve(request, reply) {
        const params = request.params as SecretParams & { account: string };
        const hosted = await openSession(request as FastifyRequest<{ Params: SecretParams }>, reply);
        if (!hosted) return undefined;
        const wallet = hosted.consented ? await walletToProve(ctx, hosted, params.account) : undefined;
        if (!wallet) {
          kit.send(reply, invalidLinkPage());
          return undefined;
        }
        const base = basePath(request as FastifyRequest<{ Params: SecretParams }>);
        return {
          ...walletProofRequest(ctx, hosted, wallet),
          base: `${base}/accounts/${encodeURIComponent(wallet.account.id)}/prove`,
          subject: wallet.subject,
          subjectName: wallet.account.display_name,
          back: { href: base, label: 'Back to your connected accounts' },
          doneUrl: base,
          sendOptions: { testMode: hosted.mode === 'test', formActionOrigins: returnOrigins(hosted) },
        };
      },
    }),
    { prefix: '/:secret/accounts/:account/prove', kit },
  );
};

/** http(s) return URLs are redirected to; anything else (an app scheme) is offered as a link. */
function isWebUrl(url: string): boolean {
  return /^https?:/i.test(url);
}

/** The return URL's origin, which the forms' CSP must allow so the 303 after Done/Cancel is followed. */
function returnOrigins(hosted: HostedSession): string[] {
  const returnUrl = hosted.session.return_url;
  return returnUrl && isWebUrl(returnUrl) ? [new URL(returnUrl).origin] : [];
}
