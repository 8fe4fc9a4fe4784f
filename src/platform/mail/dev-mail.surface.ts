import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { unixSeconds } from '../clock.js';
import { firstString } from '../web/form-values.js';
import { pageCsp } from '../web/page-headers.js';
import type { PageKit, PageSurface } from '../web/page-surface.js';
import { isLoopbackHost } from './address.js';
import { MAIL_SANDBOX, outboxListPage, outboxMessageJson, outboxMessagePage } from './dev-mail-pages.js';
import { findOutboxMessage, latestOutboxMessage, listOutboxMessages } from './outbox.repository.js';

/** Messages per page of the list. */
const PAGE_SIZE = 50;

/**
 * The HTML part of a message is shown as its own document in a frame, under a policy of its own:
 * `sandbox` (an opaque origin, no script, no forms, no navigation of the page around it), no
 * request to anywhere (`default-src 'none'`: no tracking pixel, no remote font), its inline
 * styles, `data:` images, and framed by our own pages only. Mail HTML is written for mail apps,
 * which never run it; neither do we. Its links open in a new tab (`MAIL_SANDBOX`).
 */
const MAIL_HTML_CSP = `sandbox ${MAIL_SANDBOX}; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'`;
/** The message page frames `/{id}/html`, which the pages' `default-src 'none'` alone would block. */
const MESSAGE_PAGE_CSP = `${pageCsp()}; frame-src 'self'`;

function jsonNotFound(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .status(404)
    .type('application/json; charset=utf-8')
    .send({ error: { code: 'resource_missing', message } });
}

/** `name` or `name:port`, `[IPv6]` or `[IPv6]:port`: a Host header with nothing else in it (no `user@`, no path). */
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/**
 * Whether a Host header names this server as its developer reaches it: a loopback name
 * (`localhost`, 127.0.0.0/8, `[::1]`) or the host of PUBLIC_BASE_URL, on any port. Through DNS
 * rebinding, a page at `attacker.test` that re-resolves its name to 127.0.0.1 reads our answers
 * as its own; its requests still say `Host: attacker.test`, which is refused. The port is not
 * compared: an attacker controls the name, never which port of ours a name leads to.
 */
function isOwnHost(header: string | undefined, publicBaseUrl: string): boolean {
  const name = header === undefined ? undefined : HOST_HEADER.exec(header)?.[1]?.toLowerCase();
  if (name === undefined) return false;
  return name === new URL(publicBaseUrl).hostname || isLoopbackHost(name);
}

const devMailRoutes: FastifyPluginAsync<{ kit: PageKit }> = async (app, { kit }) => {
  const PAGE = { schema: { hide: true } } as const;
  const { db, clock, config } = app.ctx;

  // The Host header as the browser sent it, not `request.host`: with TRUST_PROXY that reads
  // X-Forwarded-Host, which a rebinding page, being same-origin with its own name, can set.
  app.addHook('onRequest', async (request, reply) => {
    if (!isOwnHost(request.headers.host, config.publicBaseUrl)) return reply.callNotFound();
  });

  app.get('/', PAGE, async (request, reply) => {
    const before = firstString((request.query as Record<string, unknown>).before);
    const { rows, hasMore } = await listOutboxMessages(db, unixSeconds(clock), { limit: PAGE_SIZE, ...(before ? { before } : {}) });
    const last = rows.at(-1);
    const olderHref = hasMore && last ? `${kit.prefix}?before=${encodeURIComponent(last.id)}` : undefined;
    return kit.send(reply, outboxListPage({ prefix: kit.prefix, rows, olderHref, smtp: app.ctx.mailer.transport === 'smtp' }));
  });

  // `?to=` narrows to one recipient: what a test asks after its code sent someone a sign-in link.
  app.get('/latest.json', PAGE, async (request, reply) => {
    const to = firstString((request.query as Record<string, unknown>).to);
    const row = await latestOutboxMessage(db, unixSeconds(clock), to);
    if (!row) return jsonNotFound(reply, to === undefined ? 'The outbox is empty.' : 'No message to that address in the outbox.');
    return reply.type('application/json; charset=utf-8').send(outboxMessageJson(row));
  });

  app.get<{ Params: { id: string } }>('/:id.json', PAGE, async (request, reply) => {
    const row = await findOutboxMessage(db, request.params.id, unixSeconds(clock));
    if (!row) return jsonNotFound(reply, 'No such message in the outbox.');
    return reply.type('application/json; charset=utf-8').send(outboxMessageJson(row));
  });

  app.get<{ Params: { id: string } }>('/:id', PAGE, async (request, reply) => {
    const row = await findOutboxMessage(db, request.params.id, unixSeconds(clock));
    if (!row) return reply.callNotFound();
    reply.header('content-security-policy', MESSAGE_PAGE_CSP);
    return kit.send(reply, outboxMessagePage(kit.prefix, row));
  });

  app.get<{ Params: { id: string } }>('/:id/html', PAGE, async (request, reply) => {
    const row = await findOutboxMessage(db, request.params.id, unixSeconds(clock));
    if (!row) return reply.callNotFound();
    return reply
      .header('content-security-policy', MAIL_HTML_CSP)
      .header('x-frame-options', 'SAMEORIGIN')
      .type('text/html; charset=utf-8')
      .send(row.html_body);
  });
};

/**
 * `/dev/mail` (under PUBLIC_BASE_URL): the outbox of a server without SMTP_URL, for the people
 * developing and testing it — the list of messages and each message, whose sign-in links can be
 * followed from here. Outside production only; there is no sign-in (development servers listen
 * on 127.0.0.1 by default).
 */
export const devMailPages: PageSurface = {
  id: 'mail',
  baseUrl: (config) => `${config.publicBaseUrl}/dev/mail`,
  // Production has no outbox to read: the surface is not mounted, so every path under it is a 404.
  servedIn: (config) => config.env !== 'production',
  surfaceName: 'Outbox',
  footer: 'Development outbox: mail kept instead of sent. Not served in production.',
  stylesheet: new URL('./dev-mail.css', import.meta.url),
  routes: devMailRoutes,
};
