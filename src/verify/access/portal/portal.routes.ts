import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { enqueueJob } from '../../../platform/jobs/enqueue.js';
import { isMailAddress } from '../../../platform/mail/address.js';
import { notFoundPage } from '../../../platform/web/error-pages.js';
import { formValues } from '../../../platform/web/form-values.js';
import type { PageContent, PageKit } from '../../../platform/web/page-surface.js';
import { portalSignInMailJob } from '../access-request.job.js';
import { declineAccessRequest, grantAccessRequest } from '../access-request.service.js';
import { proofRoutes } from '../../claims/pages/proof.routes.js';
import type { ProofPlace } from '../../claims/pages/proof-place.js';
import { revokeAccess, revokeClaim } from '../sharing.service.js';
import {
  admitSignInRequest,
  endPortalSession,
  findPortalSession,
  linkIsUsable,
  ownerOf,
  reachableModes,
  portalBaseUrl,
  portalPerson,
  signInWithLink,
  SESSION_TTL_SECONDS,
  type PersonHolder,
  type PortalPerson,
} from './portal-auth.service.js';
import {
  accessPage,
  chooseHolderPage,
  requestsPage,
  reviewPage,
  revokeClaimPage,
  receiptPage,
  walletsPage,
  type PortalFrame,
} from './portal-pages.js';
import { checkMailPage, confirmSignInPage, noMailPage, signInPage, tooManySignInsPage } from './portal-sign-in-pages.js';
import { personClaims, personRequest, personRequests, requestClaims, type PortalRequest } from './portal.service.js';
import { emailIdentity } from '../../../platform/mail/address.js';

const PAGE = { schema: { hide: true } } as const;
/** Notices after a POST, named in the redirect's query string (never free text from it). */
const NOTICES = {
  revoked: 'Access revoked. They can no longer read that claim.',
  claim_revoked: 'The claim is revoked and no longer shared with anyone.',
} as const;

interface IdParams {
  id: string;
}

/**
 * The account-holder portal at `PUBLIC_BASE_URL/portal`: passwordless sign-in by e-mail link, then
 * requests (review, prove, approve, decline), shared access (revoke) and wallets (prove another,
 * revoke a claim). Plain forms, POST-redirect-GET, no script. Every id in a path or form is checked
 * against the signed-in person: another person's id reads as unknown.
 *
 * GET  /                              → the requests, or the sign-in page
 * GET  /sign-in  POST /sign-in        ask for a sign-in link (same answer for any address)
 * GET  /sign-in/{token}               confirm; POST signs in (a fresh session) and opens the link's request
 * POST /sign-out
 * GET  /requests, /requests/{id}      notifications; review
 * POST /requests/{id}/approve|decline
 * …    /requests/{id}/prove/…         prove a wallet for that request's requester (verify's proof pages)
 * GET  /access  POST /access/revoke   shared access
 * GET  /wallets, /wallets/prove       my wallets; for whom to prove one
 * GET  /wallets/{claim}               one claim: what it proves, its receipt to copy or check
 * …    /wallets/prove/{holder}/…      prove a wallet (proof pages)
 * GET  /wallets/{claim}/revoke        confirm; POST revokes the claim
 */
export const portalRoutes: FastifyPluginAsync<{ kit: PageKit }> = async (app, { kit }) => {
  const { prefix } = kit;
  const ctx = app.ctx;
  const form = { ...PAGE, preHandler: app.csrfProtection };
  const secure = portalBaseUrl(ctx.config).startsWith('https:');
  // `__Secure-` makes browsers refuse the cookie from a plain-http origin that could plant it.
  const COOKIE = `${secure ? '__Secure-' : ''}ownproof_portal_session`;
  const cookieOptions = { path: prefix || '/', httpOnly: true, sameSite: 'lax' as const, secure };

  /** The signed-in person, or undefined after sending them to sign in. */
  async function signedIn(request: FastifyRequest, reply: FastifyReply, requestId?: string): Promise<PortalPerson | undefined> {
    const token = request.cookies[COOKIE];
    const session = token ? await findPortalSession(ctx, token) : undefined;
    if (!session) {
      reply.redirect(`${prefix}/sign-in${requestId ? `?request=${encodeURIComponent(requestId)}` : ''}`, 303);
      return undefined;
    }
    return portalPerson(ctx, session);
  }

  const frame = (reply: FastifyReply, person: PortalPerson, current: PortalFrame['current']): PortalFrame => ({
    prefix,
    person,
    csrfToken: reply.generateCsrf(),
    current,
  });
  const notice = (request: FastifyRequest) => NOTICES[(request.query as Record<string, string>).done as keyof typeof NOTICES];
  const send = (reply: FastifyReply, page: PageContent) => kit.send(reply, page);
  /** A used or expired sign-in link: the sign-in form for a new one. */
  const linkEnded = (reply: FastifyReply) =>
    send(
      reply,
      signInPage(prefix, reply.generateCsrf(), {
        status: 410,
        notice: 'This sign-in link has expired or was already used. Enter your e-mail address for a new one.',
      }),
    );

  app.get('/', PAGE, async (request, reply) => {
    const token = request.cookies[COOKIE];
    return reply.redirect(`${prefix}/${token && (await findPortalSession(ctx, token)) ? 'requests' : 'sign-in'}`, 303);
  });

  app.get('/sign-in', PAGE, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const requestId = formValues(query, ['request']).request;
    const signedOut = formValues(query, ['signed_out']).signed_out === '1';
    return send(
      reply,
      signInPage(prefix, reply.generateCsrf(), {
        ...(requestId ? { requestId } : {}),
        ...(signedOut ? { notice: 'You are signed out.' } : {}),
      }),
    );
  });

  app.post('/sign-in', form, async (request, reply) => {
    const fields = formValues(request.body, ['email', 'request']);
    const email = (fields.email ?? '').trim();
    const requestId = fields.request && /^ar_[0-9A-Za-z]{1,64}$/.test(fields.request) ? fields.request : undefined;
    if (!isMailAddress(email)) {
      return send(
        reply,
        signInPage(prefix, reply.generateCsrf(), {
          email,
          ...(requestId ? { requestId } : {}),
          error: 'Enter an e-mail address like name@example.com.',
        }),
      );
    }
    // A server that sends no e-mail says so to everyone alike, before a link or a job is made.
    if (reachableModes(ctx.mailer).length === 0) return send(reply, noMailPage());
    const admitted = await admitSignInRequest(ctx, email, request.ip);
    if (!admitted.ok) {
      reply.header('retry-after', String(admitted.retryAfterSeconds));
      return send(reply, tooManySignInsPage(prefix, reply.generateCsrf(), admitted.retryAfterSeconds));
    }
    await enqueueJob(ctx.db, ctx.clock, portalSignInMailJob, {
      email: emailIdentity(email),
      ...(requestId ? { access_request_id: requestId } : {}),
    });
    return send(reply, checkMailPage(email));
  });

  app.get<{ Params: { token: string } }>('/sign-in/:token', PAGE, async (request, reply) => {
    if (!(await linkIsUsable(ctx, request.params.token))) return linkEnded(reply);
    return send(reply, confirmSignInPage(`${prefix}/sign-in/${encodeURIComponent(request.params.token)}`, reply.generateCsrf()));
  });

  app.post<{ Params: { token: string } }>('/sign-in/:token', form, async (request, reply) => {
    const outcome = await signInWithLink(ctx, request.params.token, request.cookies[COOKIE]);
    if (!outcome.ok) return linkEnded(reply);
    reply.setCookie(COOKIE, outcome.sessionToken, { ...cookieOptions, maxAge: SESSION_TTL_SECONDS });
    return reply.redirect(`${prefix}/requests${outcome.accessRequestId ? `/${outcome.accessRequestId}` : ''}`, 303);
  });

  app.post('/sign-out', form, async (request, reply) => {
    const token = request.cookies[COOKIE];
    if (token) await endPortalSession(ctx, token);
    reply.clearCookie(COOKIE, cookieOptions);
    return reply.redirect(`${prefix}/sign-in?signed_out=1`, 303);
  });

  app.get('/requests', PAGE, async (request, reply) => {
    const person = await signedIn(request, reply);
    if (!person) return reply;
    return send(reply, requestsPage(frame(reply, person, 'requests'), await personRequests(ctx, person)));
  });

  /** A request of the signed-in person; or the sign-in redirect or the not-found page sent. */
  async function ownRequest(request: FastifyRequest, reply: FastifyReply) {
    const { id } = request.params as IdParams;
    const person = await signedIn(request, reply, id);
    if (!person) return undefined;
    const found = await personRequest(ctx, person, id);
    if (!found) {
      send(reply, notFoundPage());
      return undefined;
    }
    return { person, found };
  }

  /** The review page: the request and the claims the person may share with the requester. */
  async function sendReview(reply: FastifyReply, seen: { person: PortalPerson; found: PortalRequest }, error?: string) {
    const claims = await requestClaims(ctx, seen.person, seen.found);
    return send(reply, reviewPage(frame(reply, seen.person, 'requests'), { request: seen.found, claims, ...(error ? { error } : {}) }));
  }

  app.get<{ Params: IdParams }>('/requests/:id', PAGE, async (request, reply) => {
    const seen = await ownRequest(request, reply);
    if (!seen) return reply;
    return sendReview(reply, seen);
  });

  app.post<{ Params: IdParams }>('/requests/:id/approve', form, async (request, reply) => {
    const seen = await ownRequest(request, reply);
    if (!seen) return reply;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const picked = (Object.hasOwn(body, 'claim') ? [body.claim].flat() : []).filter((v): v is string => typeof v === 'string');
    const outcome = await grantAccessRequest(ctx, seen.found.row, ownerOf(seen.person), picked);
    if (!outcome.ok && outcome.reason !== 'not_pending') {
      return sendReview(
        reply,
        seen,
        outcome.reason === 'no_claims'
          ? 'Choose at least one wallet to share, or decline the request.'
          : 'Choose only wallets listed here.',
      );
    }
    return reply.redirect(`${prefix}/requests/${seen.found.row.id}`, 303);
  });

  app.post<{ Params: IdParams }>('/requests/:id/decline', form, async (request, reply) => {
    const seen = await ownRequest(request, reply);
    if (!seen) return reply;
    await declineAccessRequest(ctx, seen.found.row);
    return reply.redirect(`${prefix}/requests/${seen.found.row.id}`, 303);
  });

  app.get('/access', PAGE, async (request, reply) => {
    const person = await signedIn(request, reply);
    if (!person) return reply;
    return send(reply, accessPage(frame(reply, person, 'access'), await personClaims(ctx, person), notice(request)));
  });

  app.post('/access/revoke', form, async (request, reply) => {
    const person = await signedIn(request, reply);
    if (!person) return reply;
    const fields = formValues(request.body, ['client', 'claim']);
    const revoked = fields.client && fields.claim ? await revokeAccess(ctx, ownerOf(person), fields.client, fields.claim) : undefined;
    return reply.redirect(`${prefix}/access${revoked ? '?done=revoked' : ''}`, 303);
  });

  app.get('/wallets', PAGE, async (request, reply) => {
    const person = await signedIn(request, reply);
    if (!person) return reply;
    return send(reply, walletsPage(frame(reply, person, 'wallets'), await personClaims(ctx, person), notice(request)));
  });

  app.get('/wallets/prove', PAGE, async (request, reply) => {
    const person = await signedIn(request, reply);
    if (!person) return reply;
    const only = person.holders.length === 1 ? person.holders[0] : undefined;
    if (only) return reply.redirect(`${prefix}/wallets/prove/${only.id}`, 303);
    return send(reply, chooseHolderPage(frame(reply, person, 'wallets')));
  });

  /** One of the claims the person controls (`active` only when it is to be revoked), or the wallets page to go back to. */
  async function ownClaim(request: FastifyRequest<{ Params: IdParams }>, reply: FastifyReply, options: { active: boolean }) {
    const person = await signedIn(request, reply);
    if (!person) return undefined;
    const claim = (await personClaims(ctx, person)).find(
      (c) => c.row.id === request.params.id && (!options.active || c.row.status === 'active'),
    );
    if (!claim) {
      reply.redirect(`${prefix}/wallets`, 303);
      return undefined;
    }
    return { person, claim };
  }

  app.get<{ Params: IdParams }>('/wallets/:id', PAGE, async (request, reply) => {
    const own = await ownClaim(request, reply, { active: false });
    if (!own) return reply;
    return kit.send(reply, receiptPage(frame(reply, own.person, 'wallets'), own.claim), { script: true });
  });

  app.get<{ Params: IdParams }>('/wallets/:id/revoke', PAGE, async (request, reply) => {
    const own = await ownClaim(request, reply, { active: true });
    if (!own) return reply;
    return send(reply, revokeClaimPage(frame(reply, own.person, 'wallets'), own.claim));
  });

  app.post<{ Params: IdParams }>('/wallets/:id/revoke', form, async (request, reply) => {
    const own = await ownClaim(request, reply, { active: true });
    if (!own) return reply;
    const revoked = await revokeClaim(ctx, ownerOf(own.person), own.claim.row.id);
    return reply.redirect(`${prefix}/wallets${revoked ? '?done=claim_revoked' : ''}`, 303);
  });

  /** The proof pages' place for one of the person's account holders: the claim will be the signed-in address's. */
  function placeFor(
    person: PortalPerson,
    holder: PersonHolder,
    at: { base: string; back: ProofPlace['back']; doneUrl: string },
  ): ProofPlace {
    return {
      scope: { clientId: holder.clientId, mode: holder.mode },
      accountHolderId: holder.id,
      requesterName: holder.clientName,
      base: at.base,
      origin: { kind: 'portal' },
      controller: person.email,
      back: at.back,
      doneUrl: at.doneUrl,
      sendOptions: { testMode: holder.mode === 'test' },
    };
  }

  await app.register(
    proofRoutes({
      async resolve(request, reply) {
        const seen = await ownRequest(request, reply);
        if (!seen) return undefined;
        const base = `${prefix}/requests/${seen.found.row.id}`;
        return placeFor(seen.person, seen.found.holder, {
          base: `${base}/prove`,
          back: { href: base, label: 'Back to the request' },
          doneUrl: base,
        });
      },
    }),
    { prefix: '/requests/:id/prove', kit },
  );

  await app.register(
    proofRoutes({
      async resolve(request, reply) {
        const person = await signedIn(request, reply);
        if (!person) return undefined;
        const { holder: holderId } = request.params as { holder: string };
        const holder = person.holders.find((h) => h.id === holderId);
        if (!holder) {
          reply.redirect(`${prefix}/wallets`, 303);
          return undefined;
        }
        return placeFor(person, holder, {
          base: `${prefix}/wallets/prove/${encodeURIComponent(holder.id)}`,
          back: { href: `${prefix}/wallets`, label: 'Back to my wallets' },
          doneUrl: `${prefix}/wallets`,
        });
      },
    }),
    { prefix: '/wallets/prove/:holder', kit },
  );
};
