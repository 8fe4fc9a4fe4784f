import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { Db } from '../db/database.js';
import { createLogger, redactSecrets } from '../http/logging.js';
import type { Metrics } from '../metrics/metrics.js';
import { mailMessages } from './mail.metrics.js';
import { MailError, outgoingMailProblem, type Mailer } from './mailer.js';
import { createNoMailTransport } from './no-mail-transport.js';
import { createOutboxTransport } from './outbox-transport.js';
import { createSmtpTransport } from './smtp-transport.js';
import { TransportFailure, type MailTransport } from './transport.js';

/** Where mail log lines go: the process's pino logger (Fastify's `app.log` is one). */
export type MailLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/**
 * The mailer of the configuration: SMTP when SMTP_URL is set; otherwise the outbox table outside
 * production, and in production no transport at all (every message refused, none kept). Every
 * message is checked first (one plain recipient, a one-line subject, both bodies; see
 * `outgoingMailProblem`), and every send writes one log line with its kind, transport and message
 * id — never the recipient or the body, which hold personal data and sign-in links — and counts
 * in `ownproof_mail_messages_total` by the same kind and transport.
 */
export function createMailer(config: Config, deps: { db: Db; clock: Clock; metrics: Metrics }, options: { log?: MailLog } = {}): Mailer {
  const log = options.log ?? createLogger(config.logLevel);
  const counted = deps.metrics.counter(mailMessages);
  const transport: MailTransport = config.mail.smtp
    ? createSmtpTransport({ ...config.mail, smtp: config.mail.smtp })
    : config.env === 'production'
      ? createNoMailTransport()
      : createOutboxTransport(deps, config.mail.from);
  return {
    transport: transport.name,
    async send(mail) {
      // A kind is a constant of the calling code; cut short in case a bug passed something else.
      const line = { component: 'mail', transport: transport.name, kind: String(mail.kind).slice(0, 64) };
      const problem = outgoingMailProblem(mail);
      // A refused message may carry any text as its kind (the check refuses it): not a label.
      const kind = problem === undefined ? line.kind : 'invalid_message';
      const count = (outcome: 'sent' | 'failed_transient' | 'failed_permanent') =>
        counted.inc({ kind, transport: transport.name, outcome });
      if (problem !== undefined) {
        count('failed_permanent');
        log.error(line, `mail refused: ${problem}`);
        throw new MailError(`The message was not sent: ${problem}.`, { permanent: true });
      }
      const started = Date.now();
      try {
        const sent = await transport.send(mail);
        count('sent');
        log.info(
          {
            ...line,
            message_id: sent.messageId,
            ...(sent.response ? { response: redactSecrets(sent.response) } : {}),
            ms: Date.now() - started,
          },
          'mail sent',
        );
        return { messageId: sent.messageId };
      } catch (error) {
        const failure =
          error instanceof TransportFailure
            ? error
            : new TransportFailure(new MailError('The message could not be sent (unexpected error).', { permanent: false }), {
                error: redactSecrets(error instanceof Error ? error.message : String(error)),
              });
        const { mailError } = failure;
        count(mailError.permanent ? 'failed_permanent' : 'failed_transient');
        // Refusals often quote the address (`550 5.1.1 <ada@example.com>: User unknown`); the caller
        // gets that, the log does not.
        const hidden = withoutAddress({ reason: mailError.message, ...failure.detail }, mail.to);
        // A permanent refusal needs a person (a wrong address, a refused login); a passing failure is retried.
        log[mailError.permanent ? 'error' : 'warn'](
          { ...line, permanent: mailError.permanent, response_code: mailError.responseCode, ...hidden, ms: Date.now() - started },
          'mail not sent',
        );
        throw mailError;
      }
    },
    close: () => transport.close(),
  };
}

/** The text values of `fields` with every mention of `address` (any letter case) replaced. */
function withoutAddress(fields: Record<string, unknown>, address: string): Record<string, unknown> {
  const pattern = new RegExp(address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' ? value.replace(pattern, '[recipient]') : value]),
  );
}
