import type { FastifyBaseLogger } from 'fastify';
import { accountHoldersByEmail, retrieveAccountHolder } from '../../connect/account-holder.service.js';
import { clientDisplayName } from '../../clients/client.service.js';
import { unixSeconds } from '../../platform/clock.js';
import type { AppContext } from '../../platform/context.js';
import { recordEvent } from '../../platform/events/event.service.js';
import { emailIdentity } from '../../platform/mail/address.js';
import { renderEmail } from '../../platform/mail/email-layout.js';
import { MailError, type OutgoingMail } from '../../platform/mail/mailer.js';
import { noMailError } from '../../platform/mail/no-mail-transport.js';
import { findAccessRequestById, updateNotification, requestPermissions } from './access-request.repository.js';
import { controlsAnyClaim } from '../claims/claim.repository.js';
import { PERMISSION_MEANINGS } from './access-request.schemas.js';
import { toAccessRequest } from './access-request.service.js';
import { createSignInLink, reachableModes, REQUEST_LINK_TTL_SECONDS, SIGN_IN_LINK_TTL_SECONDS } from './portal/portal-auth.service.js';
import type { AccessRequestRow } from '../verify.table.js';

export type VerifyMailDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'mailer'>;

/** A date as the e-mail states it: unambiguous for every reader, in UTC. */
function utcDate(seconds: number): string {
  return `${new Date(seconds * 1000).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' })} UTC`;
}

/** The e-mail telling an account holder about a request: who asks, for what, why it matters, and a link that signs in and opens it. */
export function accessRequestMail(input: {
  to: string;
  holderName: string | null;
  clientName: string;
  request: AccessRequestRow;
  link: string;
}): OutgoingMail {
  const { clientName, request } = input;
  const permissions = requestPermissions(request);
  const content = renderEmail({
    preheader: `${clientName} asks you to share proof that you control a Bitcoin wallet.`,
    heading: `${clientName} asks for proof of your Bitcoin wallet`,
    paragraphs: [
      input.holderName ? `Hello ${input.holderName},` : 'Hello,',
      `${clientName} uses ownproof to confirm which Bitcoin wallets their customers control, and asks you to share yours. If you approve, they may:`,
      ...permissions.map((p) => `• ${PERMISSION_MEANINGS[p]}.`),
      ...(request.message ? [`Their message: “${request.message}”`] : []),
      `Why it matters: a shared proof lets ${clientName} rely on what you hold without you sending keys, passwords or screenshots. You choose which wallets to share, and you can revoke their access at any time in the portal.`,
      'If you have not proven a wallet yet, the portal walks you through it: your wallet signs a short message (no funds move).',
      `The request is open until ${utcDate(request.expires_at)}.`,
    ],
    action: { label: 'Review the request', url: input.link },
    footer: `You received this because ${clientName} has this address on file for you. Nothing is shared unless you approve. The button signs you in to the portal once, within 72 hours; after that, ask for a new link on the portal's sign-in page.`,
  });
  return { to: input.to, subject: `${clientName} asks you to share proof of your Bitcoin wallet`, kind: 'access_request', ...content };
}

/** The e-mail with a sign-in link to the portal. */
export function signInMail(input: { to: string; link: string }): OutgoingMail {
  const content = renderEmail({
    preheader: 'Your link to sign in to the ownproof portal.',
    heading: 'Sign in to the ownproof portal',
    paragraphs: [
      'Use the button below to sign in. It works once, within 15 minutes.',
      'In the portal you review requests to share your Bitcoin ownership proofs, see who has access, and revoke it.',
      'If you did not ask for this, ignore it: nobody can sign in without the link.',
    ],
    action: { label: 'Sign in', url: input.link },
    footer: 'You received this because someone asked for a sign-in link for this address on the ownproof portal.',
  });
  return { to: input.to, subject: 'Your ownproof sign-in link', kind: 'portal_sign_in', ...content };
}

/**
 * Sends a request's e-mail once. A refusal (or the last attempt failing) marks the notification
 * `failed` with the server's words and records `access_request.notification_failed`; a temporary
 * failure records the error and throws, so the job retries.
 */
export async function sendAccessRequestMail(
  deps: VerifyMailDeps,
  id: string,
  attempt: { lastAttempt: boolean; log: FastifyBaseLogger },
): Promise<void> {
  const row = await findAccessRequestById(deps.db, id);
  if (!row || row.notification_status !== 'pending') return;
  const now = () => unixSeconds(deps.clock);
  if (row.status !== 'pending') {
    await updateNotification(deps.db, id, {
      notification_status: 'failed',
      notification_error: `not sent: the request was ${row.status} first`,
      updated_at: now(),
    });
    return;
  }
  const scope = { clientId: row.client_id, mode: row.mode };
  const holder = await retrieveAccountHolder(deps, scope, row.account_holder_id);
  const clientName = (await clientDisplayName(deps, row.client_id)) ?? 'A company you deal with';
  try {
    // A server that sends no mail refuses before a sign-in link is made for nobody.
    if (deps.mailer.transport === 'none') throw noMailError();
    const link = await createSignInLink(deps, { email: holder.email, accessRequestId: row.id, ttlSeconds: REQUEST_LINK_TTL_SECONDS });
    await deps.mailer.send(accessRequestMail({ to: holder.email, holderName: holder.name, clientName, request: row, link }));
  } catch (error) {
    if (!(error instanceof MailError)) throw error;
    if (!error.permanent && !attempt.lastAttempt) {
      await updateNotification(deps.db, id, { notification_error: error.message, updated_at: now() });
      attempt.log.info({ access_request_id: id }, 'access request e-mail not sent yet; will retry');
      throw error;
    }
    await deps.db.transaction().execute(async (trx) => {
      const failed = await updateNotification(trx, id, {
        notification_status: 'failed',
        notification_error: error.message,
        updated_at: now(),
      });
      if (failed) await recordEvent({ db: trx, clock: deps.clock }, scope, 'access_request.notification_failed', toAccessRequest(failed));
    });
    attempt.log.warn({ access_request_id: id, permanent: error.permanent }, 'access request e-mail failed');
    return;
  }
  await updateNotification(deps.db, id, {
    notification_status: 'sent',
    notification_error: null,
    notification_sent_at: now(),
    updated_at: now(),
  });
}

/**
 * Sends a sign-in link if any account holder (in the modes the mail transport may reach) has the
 * address, or the address controls claims there (a holder's old address still manages what it
 * proved: docs/verify.md, "Who controls a claim"); otherwise nothing. A link asked for with a
 * request id opens that request when it is the person's and still pending. A server that sends no
 * mail (production without SMTP_URL) makes no link and logs an error: someone is waiting for it.
 */
export async function sendSignInMail(
  deps: VerifyMailDeps,
  input: { email: string; access_request_id?: string },
  attempt: { log: FastifyBaseLogger },
): Promise<void> {
  const modes = reachableModes(deps.mailer);
  if (modes.length === 0) {
    attempt.log.error('portal sign-in link not sent: this production server has no SMTP_URL, so it sends no e-mail');
    return;
  }
  const holders = await accountHoldersByEmail(deps, input.email, modes);
  if (holders.length === 0 && !(await controlsAnyClaim(deps.db, emailIdentity(input.email), modes))) {
    attempt.log.info('portal sign-in link not sent: no account holder has the address and it controls no claim');
    return;
  }
  const request = input.access_request_id ? await findAccessRequestById(deps.db, input.access_request_id) : undefined;
  const opens = request && request.status === 'pending' && holders.some((h) => h.id === request.account_holder_id) ? request.id : undefined;
  const link = await createSignInLink(deps, {
    email: input.email,
    ttlSeconds: SIGN_IN_LINK_TTL_SECONDS,
    ...(opens ? { accessRequestId: opens } : {}),
  });
  try {
    await deps.mailer.send(signInMail({ to: holders[0]?.email ?? input.email, link }));
  } catch (error) {
    if (error instanceof MailError && error.permanent) {
      attempt.log.warn({ code: error.responseCode }, 'portal sign-in e-mail refused by the mail server');
      return;
    }
    throw error;
  }
}
